import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type WebSocket, WebSocketServer } from "ws";
import { ApiClient } from "../../src/client/apiClient.js";
import {
  type TerminalConnection as Conn,
  TerminalConnection,
  type TerminalStatus,
} from "../../src/client/terminalConnection.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";

/**
 * The session terminal over a real WebSocket on loopback: the reference service's shell (a
 * pty through script(1)), and a scripted service for the closes a real one may send.
 */

let server: ReferenceServer;
let active: string;
let paused: string;

beforeAll(async () => {
  server = await startServer({
    seed: 34,
    clock: "manual",
    paceMs: 0,
    sessionCount: 6,
    terminalIdleMs: 60_000,
    rateLimit: { limit: 100, windowMs: 60_000, burst: 20 },
  });
  const ss = server.sessions();
  active = ss.find((s) => s.state === "active")?.id ?? "";
  paused = ss.find((s) => s.state === "paused")?.id ?? "";
});
afterAll(async () => {
  await server?.close();
});

function client(key = "owner", baseUrl = server.url): ApiClient {
  return new ApiClient({ baseUrl, apiKey: server.key(key), backoffBaseMs: 50 });
}

/** A terminal whose output is collected as text; `until` waits for a pattern in it. */
function attach(api: ApiClient, id: string, cols = 80, rows = 24) {
  let out = "";
  const statuses: TerminalStatus[] = [];
  const waiters: { re: RegExp; done: () => void }[] = [];
  const term: Conn = new TerminalConnection(api, id, {
    cols,
    rows,
    backoffBaseMs: 20,
    onData: (chunk) => {
      out += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      for (const w of [...waiters]) if (w.re.test(out)) w.done();
    },
    onStatus: (s) => statuses.push(s),
  });
  const ended = term.run();
  const until = (re: RegExp, ms = 8000) =>
    new Promise<void>((resolve, reject) => {
      if (re.test(out)) return resolve();
      const t = setTimeout(() => reject(new Error(`no ${re} in ${JSON.stringify(out)}`)), ms);
      waiters.push({
        re,
        done: () => {
          clearTimeout(t);
          resolve();
        },
      });
    });
  const opened = () =>
    new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const check = setInterval(() => {
        if (statuses.some((s) => s.kind === "open")) {
          clearInterval(check);
          resolve();
        } else if (Date.now() - started > 8000) {
          clearInterval(check);
          reject(new Error(`never opened: ${JSON.stringify(statuses)}`));
        }
      }, 5);
    });
  return { term, ended, until, opened, statuses, output: () => out };
}

describe("the reference service's terminal", () => {
  it("runs a real shell in the session's workspace: echo hi shows hi, and a resize reaches the pty", async () => {
    const api = client();
    const t = attach(api, active, 100, 30);
    await t.opened();
    t.term.send("echo h''i\r");
    await t.until(/\rhi\r\n/);
    t.term.send("stty size; pwd\r");
    await t.until(/30 100/);
    await t.until(new RegExp(`workspaces/${active}\r\n`));
    t.term.resize(120, 40);
    t.term.send("stty size\r");
    await t.until(/40 120/);
    t.term.close();
    expect(await t.ended).toEqual({ kind: "detached" });
    await api.close();
  });

  it("keeps the shell across a detach: reattaching finds what was left in it", async () => {
    const api = client();
    const first = attach(api, active);
    await first.opened();
    first.term.send("KEPT=still-here\r");
    await first.until(/KEPT=still-here/);
    first.term.close();
    await first.ended;
    const again = attach(api, active);
    await again.opened();
    again.term.send("echo $KEPT:x\r");
    await again.until(/still-here:x/);
    again.term.close();
    await again.ended;
    await api.close();
  });

  it("a second connection takes the terminal: the first ends with 4009, said, and does not fight back", async () => {
    const api = client();
    const first = attach(api, active);
    await first.opened();
    const second = attach(api, active);
    const end = await first.ended;
    expect(end.kind).toBe("taken");
    expect(end.kind === "taken" && end.message).toMatch(/Another client took this terminal/);
    await second.opened();
    second.term.send("echo second-owns-it\r");
    await second.until(/\rsecond-owns-it\r\n/);
    expect(server.terminalConnections()).toBe(1);
    second.term.close();
    await second.ended;
    await api.close();
  });

  it("the idle close is said, and nothing was sent to hold it open", async () => {
    const api = client();
    const t = attach(api, active);
    await t.opened();
    t.term.send("echo before-idle\r");
    await t.until(/\rbefore-idle\r\n/);
    server.clock.advance(60_001);
    const end = await t.ended;
    expect(end.kind).toBe("idle");
    expect(end.kind === "idle" && end.message).toMatch(/idle timeout/);
    await api.close();
  });

  it("a paused session's terminal is refused with the service's words; a key without sessions:terminal names the scope", async () => {
    const api = client();
    const p = attach(api, paused);
    const end = await p.ended;
    expect(end.kind).toBe("refused");
    expect(end.kind === "refused" && end.message).toMatch(/Session is not active/);
    await api.close();
    const member = client("member");
    const m = attach(member, active);
    const refused = await m.ended;
    expect(refused.kind === "refused" && refused.message).toMatch(/sessions:terminal/);
    await member.close();
  });
});

/** A scripted service: ws-token answers and a terminal socket the test drives per connection. */
async function scripted(onConnection: (ws: WebSocket, n: number) => void) {
  let minted = 0;
  let connections = 0;
  const tokenHeaders: Record<string, unknown>[] = [];
  const upgradeHeaders: Record<string, unknown>[] = [];
  const wss = new WebSocketServer({ noServer: true });
  const http: Server = createServer((req, res) => {
    req.resume();
    if (req.method === "POST" && /\/ws-token$/.test(req.url ?? "")) {
      minted++;
      tokenHeaders.push({ ...req.headers });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ token: `t${minted}`, expires_at: "2030-01-01T00:00:00Z" }));
      return;
    }
    res.writeHead(404, { "content-type": "application/json" }).end('{"detail":"Not Found"}');
  });
  http.on("upgrade", (req, socket, head) => {
    upgradeHeaders.push({ ...req.headers });
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, ++connections));
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    minted: () => minted,
    tokenHeaders,
    upgradeHeaders,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

describe("closes a real service may send", () => {
  it("4001 on a fresh token: one more token is minted and the terminal opens", async () => {
    const svc = await scripted((ws, n) => {
      if (n === 1) ws.close(4001, "Token expired");
      else {
        ws.send(JSON.stringify({ type: "connected" }));
        ws.send(Buffer.from("welcome\r\n"));
      }
    });
    const api = new ApiClient({ baseUrl: svc.url, apiKey: "k-test", backoffBaseMs: 20 });
    const t = attach(api, "ses_a");
    await t.until(/welcome/);
    expect(svc.minted()).toBe(2);
    t.term.close();
    await t.ended;
    await api.close();
    await svc.close();
  });

  it("the organization header goes with the token and the socket; the key only with the token", async () => {
    const svc = await scripted((ws) => ws.send("ready\r\n"));
    const api = new ApiClient({
      baseUrl: svc.url,
      apiKey: "k-secret-test",
      organizationId: "org_terminal",
    });
    const t = attach(api, "ses_a");
    await t.until(/ready/);
    t.term.close();
    await t.ended;
    expect(svc.tokenHeaders[0]).toMatchObject({
      authorization: "Bearer k-secret-test",
      "x-organization-id": "org_terminal",
    });
    expect(svc.upgradeHeaders[0]?.["x-organization-id"]).toBe("org_terminal");
    expect(svc.upgradeHeaders[0]?.authorization).toBeUndefined();
    expect(JSON.stringify(svc.upgradeHeaders)).not.toContain("k-secret-test");
    await api.close();
    await svc.close();
  });

  it("4001 twice in a row ends the terminal, saying so", async () => {
    const svc = await scripted((ws) => ws.close(4001, "Invalid token"));
    const api = new ApiClient({ baseUrl: svc.url, apiKey: "k-test", backoffBaseMs: 20 });
    const end = await attach(api, "ses_a").ended;
    expect(end.kind).toBe("refused");
    expect(end.kind === "refused" && end.message).toMatch(/refused a fresh terminal token twice/);
    expect(svc.minted()).toBe(2);
    await api.close();
    await svc.close();
  });

  it("a dropped connection reconnects with a new token, says so, and answers a ping", async () => {
    const pongs: string[] = [];
    const svc = await scripted((ws, n) => {
      ws.on("message", (d) => pongs.push(String(d)));
      if (n === 1) {
        ws.send("first\r\n");
        setTimeout(() => ws.terminate(), 20);
      } else {
        ws.send(JSON.stringify({ type: "ping" }));
        ws.send("second\r\n");
      }
    });
    const api = new ApiClient({ baseUrl: svc.url, apiKey: "k-test", backoffBaseMs: 20 });
    const t = attach(api, "ses_a");
    await t.until(/first[\s\S]*second/);
    const said = t.statuses.find((s) => s.kind === "reconnecting");
    expect(said?.kind === "reconnecting" && said.reason).toMatch(/connection dropped/);
    expect(svc.minted()).toBe(2);
    // The pong was sent before "second" was read; it still has to cross loopback.
    await expect.poll(() => pongs).toContain('{"type":"pong"}');
    // The client's own control messages: a resize on every connection, never fake input.
    expect(pongs.filter((p) => !p.startsWith("{"))).toEqual([]);
    t.term.close();
    await t.ended;
    await api.close();
    await svc.close();
  });

  it("sandbox_expired ends the terminal with its reason", async () => {
    const svc = await scripted((ws) => ws.send(JSON.stringify({ type: "sandbox_expired" })));
    const api = new ApiClient({ baseUrl: svc.url, apiKey: "k-test", backoffBaseMs: 20 });
    const end = await attach(api, "ses_a").ended;
    expect(end.kind).toBe("sandbox_expired");
    await api.close();
    await svc.close();
  });
});
