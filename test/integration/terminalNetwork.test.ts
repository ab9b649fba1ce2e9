import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, tempConfigHome } from "../helpers/cli.js";
import { type ServiceBehindProxy, startServiceBehindProxy } from "../helpers/netFixtures.js";

/**
 * The terminal takes the network path every request takes: the built CLI's `attach` through
 * an HTTPS_PROXY CONNECT tunnel to a TLS front signed by a private CA (NODE_EXTRA_CA_CERTS),
 * under a path prefix, and against a service that serves its API only under /api/cloud.
 */

const HOST = "agent-sessions.test";
const PREFIX = "/tenant-t/api";
const cfg = tempConfigHome();
let net: ServiceBehindProxy;

beforeAll(async () => {
  net = await startServiceBehindProxy({
    host: HOST,
    prefix: PREFIX,
    server: {
      seed: 35,
      paceMs: 0,
      sessionCount: 3,
      mount: "cloud",
      rateLimit: { limit: 100, windowMs: 60_000, burst: 20 },
    },
  });
});
afterAll(async () => {
  await net?.close();
  cfg.cleanup();
});

describe("attach over the same network path as every request", () => {
  it("through a CONNECT proxy and TLS with a private CA, the shell answers echo hi", async () => {
    const { server, proxy, ca, front } = net;
    const id = server.sessions().find((s) => s.state === "active")?.id as string;
    const seenBefore = front.seen.length;
    const r = await runCli(["attach", id], {
      env: {
        XDG_CONFIG_HOME: cfg.dir,
        AGENT_SESSIONS_BASE_URL: `https://${HOST}:${front.port}${PREFIX}`,
        AGENT_SESSIONS_API_KEY: server.key("owner"),
        HTTPS_PROXY: proxy.url,
        NODE_EXTRA_CA_CERTS: ca.caFile,
      },
      input: "echo h''i\rexit\r",
      timeoutMs: 20_000,
    });
    expect(r.stderr).not.toMatch(/^error:/m);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^hi$/m);
    expect(r.stderr).toContain(`attached to ${id}: detach with Ctrl-]`);
    expect(proxy.seen).toContain(`CONNECT ${HOST}:${front.port}`);
    // The token and the terminal both under the prefix and the service's own mount.
    const seen = front.seen.slice(seenBefore);
    expect(seen).toContain(`${PREFIX}/api/cloud/sessions/${id}/ws-token`);
    expect(
      seen.some((p) => p.startsWith(`${PREFIX}/api/cloud/sessions/${id}/terminal?token=`)),
    ).toBe(true);
  });

  it("without the CA the terminal is not opened: exit 6 and the certificate named", async () => {
    const { server, front } = net;
    const id = server.sessions().find((s) => s.state === "active")?.id as string;
    const r = await runCli(["attach", id], {
      env: {
        XDG_CONFIG_HOME: cfg.dir,
        AGENT_SESSIONS_BASE_URL: `https://127.0.0.1:${front.port}${PREFIX}`,
        AGENT_SESSIONS_API_KEY: server.key("owner"),
      },
      input: "",
      timeoutMs: 20_000,
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/certificate/i);
  });
});
