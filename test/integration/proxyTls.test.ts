import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReferenceServer } from "../../src/server/index.js";
import { ndjson, runCli, tempConfigHome } from "../helpers/cli.js";
import {
  type ProxyServer,
  startHangUpProxy,
  startServiceBehindProxy,
  type ThrowawayCa,
  type TlsFront,
} from "../helpers/netFixtures.js";
import { unusedPort } from "../helpers/scriptedHttpServer.js";
import { advanceUntilEvents, onStderr } from "../helpers/simulatedClock.js";

/**
 * The built CLI through a proxy and over TLS, as a user behind a corporate proxy or in front
 * of a private CA runs it: HTTP(S)_PROXY and NO_PROXY as curl reads them, NODE_EXTRA_CA_CERTS
 * for the CA, and a base URL with a path prefix. Everything on loopback: the service's host
 * name resolves only inside the proxy.
 */

const HOST = "agent-sessions.test";
const PREFIX = "/tenant-a/api";
const cfg = tempConfigHome();
let server: ReferenceServer;
let proxy: ProxyServer;
let ca: ThrowawayCa;
let front: TlsFront;
let closeNet: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({
    server,
    proxy,
    ca,
    front,
    close: closeNet,
  } = await startServiceBehindProxy({
    host: HOST,
    prefix: PREFIX,
    server: {
      seed: 21,
      paceMs: 200,
      heartbeatMs: 1000,
      sessionCount: 4,
      // The sessions change only when a test advances the clock (a watch, once it is live).
      clock: "manual",
      rateLimit: { limit: 100, windowMs: 60_000, burst: 20 },
    },
  }));
});
afterAll(async () => {
  await closeNet?.();
  cfg.cleanup();
});

function env(baseUrl: string, extra: Record<string, string> = {}) {
  return {
    XDG_CONFIG_HOME: cfg.dir,
    AGENT_SESSIONS_BASE_URL: baseUrl,
    AGENT_SESSIONS_API_KEY: server.key("owner"),
    ...extra,
  };
}

const viaProxy = () => `http://${HOST}:${server.port}`;

describe("through HTTP_PROXY to an http:// service", () => {
  it("whoami, sessions and watch work for a host only the proxy can resolve", async () => {
    const e = env(viaProxy(), { HTTP_PROXY: proxy.url });
    const who = await runCli(["whoami", "--json"], { env: e });
    expect(who.stderr).not.toMatch(/^error:/m);
    expect(who.code).toBe(0);
    const list = await runCli(["sessions", "--json"], { env: e });
    expect(list.code).toBe(0);
    const ids = (JSON.parse(list.stdout) as { id: string }[]).map((s) => s.id);
    expect(ids.sort()).toEqual([...server.sessionIds()].sort());
    const first = server.sessionIds()[0] ?? "";
    const watch = await runCli(["watch", "--json", "--max-events", "3", first], {
      env: e,
      timeoutMs: 20_000,
      onSpawn: onStderr('"status":"live"', 1, () => advanceUntilEvents(server, [first], 3)),
    });
    expect(watch.code).toBe(0);
    expect(ndjson(watch.stdout)).toHaveLength(3);
    // Forward requests, as curl sends them for http:// (absolute URLs to the proxy).
    expect(
      proxy.seen.some((l) => l.startsWith(`GET http://${HOST}:${server.port}/api/sessions`)),
    ).toBe(true);
  }, 40_000);

  it("the UI (snapshot) draws the identity and the list through the proxy", async () => {
    const r = await runCli(["snapshot", "--after", "1500"], {
      env: env(viaProxy(), { http_proxy: proxy.url }),
      timeoutMs: 20_000,
    });
    expect(r.code).toBe(0);
    // The list came through the proxy: every session it lists is drawn (the service hides
    // failed and ending ones).
    const listed = server.sessions().filter((x) => !["error", "destroyed"].includes(x.state));
    expect(r.stdout).toContain(`Sessions ${listed.length}/${listed.length}`);
    for (const x of listed) expect(r.stdout).toContain(x.id.slice(0, 10));
  }, 30_000);

  it("NO_PROXY sends a listed host direct: the proxy sees nothing", async () => {
    const before = proxy.seen.length;
    const r = await runCli(["whoami"], {
      env: env(server.url, { HTTP_PROXY: proxy.url, NO_PROXY: "localhost,127.0.0.1" }),
    });
    expect(r.code).toBe(0);
    expect(proxy.seen.length).toBe(before);
  });

  it("a proxy nothing listens on: exit 6, an error naming the variable", async () => {
    const dead = `http://127.0.0.1:${await unusedPort()}`;
    const r = await runCli(["whoami"], {
      env: env(viaProxy(), {
        HTTPS_PROXY: "",
        HTTP_PROXY: dead,
        AGENT_SESSIONS_RETRY_BASE_MS: "10",
      }),
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: .*could not reach the proxy ${dead.replace(/\./g, "\\.")} from HTTP_PROXY: it refused the connection$`,
        "m",
      ),
    );
    expect(r.stderr).toMatch(/^hint: Check HTTP_PROXY/m);
    expect(r.stderr).not.toContain(server.key("owner"));
  });

  it.each([
    ["HTTP_PROXY", "http", "close", "it closed the connection"],
    ["HTTP_PROXY", "http", "reset", "it reset the connection"],
    ["HTTPS_PROXY", "https", "close", "it closed the connection before the tunnel to"],
    ["HTTPS_PROXY", "https", "reset", "it closed the connection before the tunnel to"],
  ] as const)(
    "%s to an %s:// service, a proxy that hangs up (%s): exit 6 naming the variable, a few attempts",
    async (variable, scheme, mode, said) => {
      const hangUp = await startHangUpProxy(mode);
      try {
        const r = await runCli(["sessions", "--json"], {
          env: env(`${scheme}://${HOST}:${server.port}`, {
            HTTP_PROXY: "",
            HTTPS_PROXY: "",
            [variable]: hangUp.url,
            AGENT_SESSIONS_RETRY_BASE_MS: "10",
          }),
          timeoutMs: 20_000,
        });
        expect(r.code).toBe(6);
        expect(r.stdout).toBe("");
        expect(r.stderr).toContain(
          `error: GET /api/sessions: could not reach the proxy ${hangUp.url} from ${variable}: ${said}`,
        );
        expect(r.stderr).toMatch(new RegExp(`^hint: Check ${variable}`, "m"));
        expect(r.stderr).not.toContain(server.key("owner"));
        // Retried as any dropped connection is (5 attempts), never in a loop against the proxy.
        expect(hangUp.connections()).toBeGreaterThanOrEqual(1);
        expect(hangUp.connections()).toBeLessThanOrEqual(10);
      } finally {
        await hangUp.close();
      }
    },
    30_000,
  );

  it("watch through a proxy that resets says so on stderr, and names the variable", async () => {
    const hangUp = await startHangUpProxy("reset");
    try {
      const r = await runCli(["watch", server.sessionIds()[0] ?? ""], {
        env: env(viaProxy(), { HTTPS_PROXY: "", HTTP_PROXY: hangUp.url }),
        timeoutMs: 20_000,
        onSpawn: (child) => {
          let said = "";
          let stopping = false;
          child.stderr?.on("data", (d: Buffer | string) => {
            said += d.toString();
            // Once, as a user would: a second SIGTERM is Node's own (the process dies by it).
            if (!stopping && said.includes("reconnecting")) {
              stopping = true;
              child.kill("SIGTERM");
            }
          });
        },
      });
      expect(r.stderr).toMatch(
        new RegExp(
          `reconnecting in .*: connection failed: could not reach the proxy ${hangUp.url.replace(/\./g, "\\.")} from HTTP_PROXY: it reset the connection`,
        ),
      );
      expect(r.code).toBe(0);
    } finally {
      await hangUp.close();
    }
  }, 30_000);

  it("a proxy URL that cannot be one: exit 2 before anything is sent", async () => {
    const r = await runCli(["whoami"], {
      env: env(viaProxy(), { HTTP_PROXY: "socks5://127.0.0.1:1" }),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: HTTP_PROXY names a socks5 proxy/m);
  });
});

describe("https:// with a private CA, a path prefix, and HTTPS_PROXY", () => {
  it("works with NODE_EXTRA_CA_CERTS, and every request goes under the prefix", async () => {
    const seenBefore = front.seen.length;
    const base = `https://127.0.0.1:${front.port}${PREFIX}/`;
    const e = env(base, { NODE_EXTRA_CA_CERTS: ca.caFile });
    const who = await runCli(["whoami"], { env: e });
    expect(who.stderr).not.toMatch(/^error:/m);
    expect(who.code).toBe(0);
    const second = server.sessionIds()[1] ?? "";
    const watch = await runCli(["watch", "--json", "--max-events", "2", second], {
      env: e,
      timeoutMs: 20_000,
      onSpawn: onStderr('"status":"live"', 1, () => advanceUntilEvents(server, [second], 2)),
    });
    expect(watch.code).toBe(0);
    // A listing and an action (a POST) too: every kind of call goes under the prefix.
    const list = await runCli(["sessions", "--json"], { env: e });
    expect(list.code).toBe(0);
    // One that can be paused (a paused one is refused before anything is sent).
    const id = server.sessions().find((x) => x.state === "active" && x.id !== second)?.id ?? "";
    // The POST goes under the prefix too, and the service behind it pauses the session.
    const pause = await runCli(["pause", id, "--json"], { env: e });
    expect(pause.code, pause.stderr).toBe(0);
    expect(server.sessions().find((x) => x.id === id)?.state).toBe("paused");
    const seen = front.seen.slice(seenBefore);
    expect(seen.length).toBeGreaterThanOrEqual(5);
    expect(seen).toContain(`${PREFIX}/api/sessions/${id}/pause`);
    for (const p of seen) expect(p.startsWith(`${PREFIX}/api/`)).toBe(true);
  }, 40_000);

  it("without the CA: exit 6, the certificate named, and the way out (NODE_EXTRA_CA_CERTS)", async () => {
    const r = await runCli(["whoami"], { env: env(`https://127.0.0.1:${front.port}${PREFIX}`) });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/^error: .*TLS certificate/m);
    expect(r.stderr).toMatch(/^hint: .*NODE_EXTRA_CA_CERTS/m);
  });

  it("through HTTPS_PROXY the key travels inside the tunnel: the proxy never sees it", async () => {
    const seenBefore = proxy.seen.length;
    const bytesBefore = proxy.clientBytes().length;
    const base = `https://${HOST}:${front.port}${PREFIX}`;
    const e = env(base, { HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: ca.caFile });
    const list = await runCli(["sessions", "--json"], { env: e });
    expect(list.stderr).not.toMatch(/^error:/m);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toHaveLength(
      server.sessions().filter((x) => !["error", "destroyed"].includes(x.state)).length,
    );
    expect(proxy.seen.slice(seenBefore)).toContain(`CONNECT ${HOST}:${front.port}`);
    const key = server.key("owner");
    const relayed = proxy.clientBytes().slice(bytesBefore);
    expect(relayed.length).toBeGreaterThan(500);
    expect(relayed).not.toContain(key);
    expect(relayed).not.toContain(key.slice(4, 20));
  }, 30_000);
});
