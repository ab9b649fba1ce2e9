import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { ndjson, runCli, tempConfigHome } from "../helpers/cli.js";
import {
  json,
  raw,
  type ScriptedServer,
  startScriptedServer,
} from "../helpers/scriptedHttpServer.js";
import { advanceUntilEvents, onStderr } from "../helpers/simulatedClock.js";

/**
 * Headless commands against a service limited as the real one documents it (100 requests a
 * minute, burst 20), with enough pages or streams to make them wait: every command finishes
 * its output and exits 0, and says on stderr that it waits. A process waiting for the
 * request budget must stay alive (Node ends a process whose top-level await has nothing
 * left to keep it going with exit 13 and half a JSON document).
 */

const REAL_LIMIT = { limit: 100, windowMs: 60_000, burst: 20 };
const cfg = tempConfigHome();
afterAll(() => cfg.cleanup());
let server: ReferenceServer | null = null;
let scripted: ScriptedServer | null = null;

afterEach(async () => {
  await server?.close();
  server = null;
  await scripted?.close();
  scripted = null;
});

function env(url: string, key: string, extra: Record<string, string> = {}) {
  return {
    XDG_CONFIG_HOME: cfg.dir,
    AGENT_SESSIONS_BASE_URL: url,
    AGENT_SESSIONS_API_KEY: key,
    ...extra,
  };
}

describe("paging and streaming under the documented rate limit", () => {
  it("sessions --all --json --limit 2 pages 23 times past the burst: whole array, exit 0, no 429", async () => {
    server = await startServer({ seed: 7, paceMs: 0, sessionCount: 45, rateLimit: REAL_LIMIT });
    const r = await runCli(["sessions", "--all", "--json", "--limit", "2", "--include-destroyed"], {
      env: env(server.url, server.key("owner")),
      timeoutMs: 40_000,
    });
    expect(r.stderr).not.toMatch(/^error:/m);
    expect(r.code).toBe(0);
    const listed = JSON.parse(r.stdout) as { id: string }[];
    expect(listed.map((s) => s.id).sort()).toEqual([...server.sessionIds()].sort());
    // A page past the burst waits up to 0.6 s for its token: no one wait is worth a line, and
    // once they add up to a second that is said once (never a line a page). How much they add
    // up to depends on the machine: while a loaded one reads the first twenty pages, the
    // bucket refills, and the later pages may not wait at all (then nothing is said).
    const pacing = r.stderr.split("\n").filter((l) => /pacing/.test(l));
    expect(pacing.length).toBeLessThanOrEqual(1);
    for (const line of pacing) {
      expect(line).toMatch(
        /^pacing requests to the service's limit \(100 per minute, burst 20\); short waits add up: 1(\.\d)? s so far: waiting \d+ ms$/,
      );
    }
    // The budget kept the command under the limit: the service refused nothing.
    expect(server.requestCounts().rateLimited).toBe(0);
  }, 60_000);

  it("watch of 25 sessions opens every stream past the burst and delivers, exit 0", async () => {
    server = await startServer({
      seed: 8,
      paceMs: 150,
      heartbeatMs: 1000,
      sessionCount: 25,
      rateLimit: REAL_LIMIT,
      clock: "manual",
    });
    const ids = server.sessionIds();
    const live = server;
    const r = await runCli(["watch", "--json", "--max-events", "60", ...ids], {
      env: env(server.url, server.key("owner")),
      timeoutMs: 40_000,
      // Once every stream is open, past the burst too, the sessions work.
      onSpawn: onStderr('"status":"live"', ids.length, () => advanceUntilEvents(live, ids, 60)),
    });
    expect(r.code).toBe(0);
    const lines = ndjson(r.stdout);
    expect(lines).toHaveLength(60);
    expect(r.stderr).toMatch(/^pacing stream openings to the service's limit/m);
    expect(server.requestCounts().rateLimited).toBe(0);
  }, 60_000);

  it("snapshot --fleet of 30 sessions renders every row, exit 0", async () => {
    server = await startServer({
      seed: 9,
      paceMs: 300,
      heartbeatMs: 1000,
      sessionCount: 30,
      rateLimit: REAL_LIMIT,
      clock: "manual",
    });
    const r = await runCli(["snapshot", "--fleet", "--height", "50", "--after", "1000"], {
      env: env(server.url, server.key("owner")),
      timeoutMs: 40_000,
    });
    expect(r.stderr).not.toMatch(/^error:/m);
    expect(r.code).toBe(0);
    // The streams past the burst wait, and the wait is said; the dozens of history reads in
    // flight at once are no leak, and Node warns of none (its warning would break the UI).
    expect(r.stderr).toMatch(/^pacing stream openings to the service's limit .*: waiting /m);
    expect(r.stderr).not.toMatch(/Warning/);
    const shown = server.sessions().filter((s) => s.state !== "destroyed" && s.state !== "error");
    const rows = r.stdout.split("\n").filter((l) => /ses_[0-9a-z]{8}/.test(l));
    expect(rows).toHaveLength(shown.length);
    for (const s of shown) expect(r.stdout).toContain(s.id);
  }, 60_000);

  it("watch --attention over 45 sessions lists them all (3 pages), keeps going, ends 0 on SIGTERM", async () => {
    server = await startServer({
      seed: 10,
      paceMs: 0,
      heartbeatMs: 1000,
      sessionCount: 45,
      rateLimit: REAL_LIMIT,
    });
    const ids = server.sessionIds().slice(0, 22);
    const r = await runCli(["watch", "--attention", "--json", ...ids], {
      env: env(server.url, server.key("owner"), { AGENT_SESSIONS_REFRESH_MS: "1000" }),
      timeoutMs: 40_000,
      onSpawn: (child) => {
        let said = "";
        let stopping = false;
        child.stderr?.on("data", (d: Buffer | string) => {
          said += d.toString();
          // Every stream open (22 past the burst of 20), then stop once, as a user would.
          if (!stopping && said.includes("for attention")) {
            stopping = true;
            setTimeout(() => child.kill("SIGTERM"), 3000);
          }
        });
      },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/watching \d+ sessions for attention/);
    expect(r.stderr).toMatch(/^pacing stream openings to the service's limit .*: waiting /m);
    expect(r.stderr).not.toMatch(/^error:/m);
  }, 60_000);
});

describe("a service whose X-RateLimit-Remaining stays at 0 while it answers", () => {
  it("sessions --all holds once, then treats the figure as a hint: 10 pages in seconds, not minutes", async () => {
    scripted = await startScriptedServer();
    const all = Array.from({ length: 20 }, (_, i) => ({
      session_id: `ses_zero${String(i).padStart(2, "0")}`,
      state: "running",
      title: `s${i}`,
    }));
    scripted.fallback((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      const headers = {
        "content-type": "application/json",
        "x-ratelimit-limit": "100",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": "60",
      };
      if (!url.pathname.endsWith("/sessions")) {
        res.writeHead(404, headers).end(JSON.stringify({ detail: "not here" }));
        return;
      }
      const offset = Number(url.searchParams.get("offset") ?? 0);
      const limit = Number(url.searchParams.get("limit") ?? 20);
      res.writeHead(200, headers).end(
        JSON.stringify({
          sessions: all.slice(offset, offset + limit),
          total: all.length,
          limit,
          offset,
        }),
      );
    });
    const started = Date.now();
    const r = await runCli(["sessions", "--all", "--json", "--limit", "2"], {
      env: env(scripted.url, "ask_zero_0123456789abcdef"),
      timeoutMs: 40_000,
    });
    const took = Date.now() - started;
    expect(r.stderr).not.toMatch(/^error:/m);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { session_id: string }[]).map((x) => x.session_id)).toEqual(
      all.map((x) => x.session_id),
    );
    // Trusted, "0 left" with a 60 s reset would hold each of the 10 pages for most of a
    // minute; held once for two tokens and then shown to be a hint, the listing takes seconds
    // (7 s here when the machine is loaded, the CLI's start most of it). Even one page held
    // for most of a minute goes past 30 s.
    expect(took).toBeLessThan(30_000);
  }, 60_000);
});

describe("429 storms with absurd Retry-After values", () => {
  it.each(["-5", "garbage", "1e9"])(
    "Retry-After %s: the backoff schedule instead, 5 attempts, exit 5 with the documented message",
    async (value) => {
      scripted = await startScriptedServer();
      const refused = json(
        429,
        { detail: "Too many requests" },
        { "retry-after": value, "x-ratelimit-limit": "100", "x-ratelimit-remaining": "0" },
      );
      scripted.reply(refused, refused, refused, refused, refused, refused, refused);
      const r = await runCli(["sessions", "--json"], {
        env: env(scripted.url, "ask_storm_0123456789", { AGENT_SESSIONS_RETRY_BASE_MS: "50" }),
        timeoutMs: 30_000,
      });
      expect(r.code).toBe(5);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(
        /^error: GET \/api\/sessions was still rate limited \(HTTP 429\) after 5 attempts: Too many requests$/m,
      );
      expect(r.stderr).toMatch(/^hint: /m);
      expect(r.stderr).toMatch(/^rate limited \(HTTP 429\): retrying in \d+ ms \(attempt 2\/5\)$/m);
      // No storm: exactly the five attempts, each after the one before had its wait.
      expect(scripted.seen).toHaveLength(5);
      const gaps = scripted.seen.slice(1).map((s, i) => s.at - (scripted?.seen[i]?.at ?? 0));
      for (const g of gaps) expect(g).toBeGreaterThanOrEqual(35);
    },
    40_000,
  );

  it("a Retry-After of a billion seconds ends at once: exit 5 naming the wait, one request", async () => {
    scripted = await startScriptedServer();
    scripted.reply(json(429, { detail: "quota" }, { "retry-after": "1000000000" }));
    const r = await runCli(["sessions"], {
      env: env(scripted.url, "ask_storm_0123456789"),
      timeoutMs: 10_000,
    });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(
      /^error: GET \/api\/sessions was rate limited \(HTTP 429\) and the service asks to wait \d+d, longer than the 60 s this client waits: quota$/m,
    );
    expect(scripted.seen).toHaveLength(1);
  });
});

describe("a 429 on an event stream", () => {
  it("watch waits the Retry-After, reconnects and delivers: exit 0, never 13", async () => {
    scripted = await startScriptedServer();
    const limits = { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "0" };
    const events = [1, 2, 3].map((n) => `event: output\ndata: {"text":"line ${n}"}\n\n`).join("");
    scripted.reply(
      json(429, { detail: "slow down" }, { ...limits, "retry-after": "1" }),
      raw(200, events, { "content-type": "text/event-stream", "x-ratelimit-limit": "100" }),
    );
    const r = await runCli(["watch", "--json", "--max-events", "3", "ses_limited1"], {
      env: env(scripted.url, "ask_storm_0123456789"),
      timeoutMs: 20_000,
    });
    expect(r.stderr).not.toMatch(/^error:/m);
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout).map((l) => (l.data as { text?: string }).text)).toEqual([
      "line 1",
      "line 2",
      "line 3",
    ]);
    expect(r.stderr).toMatch(/reconnecting.*rate limited \(429\), retry after 1 s/);
    expect(scripted.seen).toHaveLength(2);
    expect((scripted.seen[1]?.at ?? 0) - (scripted.seen[0]?.at ?? 0)).toBeGreaterThanOrEqual(900);
  });
});
