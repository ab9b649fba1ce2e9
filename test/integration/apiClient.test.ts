import { Agent } from "undici";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiClient, type ApiClientOptions } from "../../src/client/apiClient.js";
import {
  CancelledError,
  HttpError,
  InvalidKeyError,
  MalformedResponseError,
  MissingScopeError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
} from "../../src/client/errors.js";
import type { RetryWait } from "../../src/client/rateLimit.js";
import { RequestBudget } from "../../src/client/requestBudget.js";
import { USER_AGENT } from "../../src/version.js";
import {
  hang,
  json,
  raw,
  type ScriptedServer,
  startScriptedServer,
  unusedPort,
} from "../helpers/scriptedHttpServer.js";

const KEY = "ask_test_0123456789abcdef";

const KEY_INFO = {
  valid: true,
  key_id: "6f1c1a9e-0000-4000-8000-000000000001",
  name: "ci-bot",
  user_id: "usr_1",
  organization_id: "org_1",
  tenant_id: "org_1",
  role: "member",
  scopes: ["sessions:read"],
  effective_scopes: ["sessions:read"],
  expires_at: null,
};
const IDENTITY = { tenant_id: "org_1", principal_id: "usr_1", scopes: ["read"] };
const session = (n: number) => ({ session_id: `ses_${n}`, state: "active", title: `s${n}` });

let srv: ScriptedServer;
let other: ScriptedServer | null = null;
let agent: Agent;

beforeEach(async () => {
  srv = await startScriptedServer();
  agent = new Agent({ keepAliveTimeout: 2000 });
});

afterEach(async () => {
  vi.restoreAllMocks();
  await agent.destroy();
  await srv.close();
  if (other) await other.close();
  other = null;
});

/**
 * Fast retries and neutral jitter unless a test says otherwise, and a request budget of the
 * client's own: the process shares one per key and service, and a port the system hands out
 * again would otherwise inherit an earlier test's 429 hold (an hour, in one of them).
 */
function client(opts: Partial<ApiClientOptions> = {}): ApiClient {
  return new ApiClient({
    baseUrl: srv.url,
    apiKey: KEY,
    dispatcher: agent,
    backoffBaseMs: 5,
    jitter: 0,
    timeoutMs: 2000,
    budget: new RequestBudget(),
    ...opts,
  });
}

/**
 * Every retry wait the tracker publishes. A wait longer than `failAbove` aborts the call,
 * so a wrong (long) delay fails the test at once instead of sleeping through it.
 */
function recordWaits(c: ApiClient, ctl: AbortController, failAbove = 1000): RetryWait[] {
  const waits: RetryWait[] = [];
  c.rateLimit.subscribe(() => {
    const w = c.rateLimit.waiting;
    if (w && !waits.includes(w)) {
      waits.push(w);
      if (w.delayMs > failAbove) ctl.abort();
    }
  });
  return waits;
}

/**
 * How many requests the server had seen each time a retry wait began and ended: a retry
 * sent before its wait was over would show up as a count that grew during the wait.
 */
function requestsAroundWaits(c: ApiClient): { waiting: boolean; requests: number }[] {
  const log: { waiting: boolean; requests: number }[] = [];
  c.rateLimit.subscribe(() => {
    const waiting = c.rateLimit.waiting !== null;
    if ((log.at(-1)?.waiting ?? false) !== waiting)
      log.push({ waiting, requests: srv.seen.length });
  });
  return log;
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected the call to fail");
}

describe("every request", () => {
  it("carries the bearer key, a product User-Agent and asks for JSON", async () => {
    srv.reply(json(200, IDENTITY));
    await client().me();
    const h = srv.seen[0]?.headers;
    expect(h?.authorization).toBe(`Bearer ${KEY}`);
    expect(h?.["user-agent"]).toBe(USER_AGENT);
    expect(h?.["user-agent"]).toMatch(/^agent-sessions-tui\/\d+\.\d+\.\d+/);
    expect(h?.accept).toBe("application/json");
  });

  // undici hands a finished socket back to the pool a tick after the body ends, so
  // back-to-back requests alternate between two sockets; without reuse there would be one
  // socket per request.
  it("keeps its connections alive on a dispatcher of its own, which close() lets go", async () => {
    srv.fallback(json(200, IDENTITY));
    const c = new ApiClient({ baseUrl: srv.url, apiKey: KEY });
    for (let i = 0; i < 6; i++) await c.me();
    expect(srv.seen).toHaveLength(6);
    expect(new Set(srv.seen.map((s) => s.socket)).size).toBeLessThanOrEqual(2);
    // A second client does not share the first one's sockets: nothing is process-wide.
    const d = new ApiClient({ baseUrl: srv.url, apiKey: KEY });
    await d.me();
    const firstSockets = new Set(srv.seen.slice(0, 6).map((s) => s.socket));
    expect([...firstSockets]).not.toContain(srv.seen[6]?.socket);
    await d.close();
    await c.close();
    // Closed: nothing more is sent, and the caller is told why.
    await expect(c.me()).rejects.toThrow(/client was closed/);
    expect(srv.seen).toHaveLength(7);
  });

  it("reads error bodies to the end so sockets go back to the pool", async () => {
    // Larger than undici's 64 KiB buffer: an unread body would hold its socket.
    srv.fallback(json(404, { detail: "no such session ".repeat(20_000) }));
    const c = client({ maxAttempts: 1 });
    for (let i = 0; i < 6; i++) {
      await expect(c.getSession(`ses_${i}`)).rejects.toBeInstanceOf(NotFoundError);
    }
    srv.reply(json(500, { detail: "boom" }));
    await expect(c.getSession("ses_y")).rejects.toBeInstanceOf(HttpError);
    expect(srv.seen).toHaveLength(7);
    expect(new Set(srv.seen.map((s) => s.socket)).size).toBeLessThanOrEqual(2);
  });

  it("never puts the key in an error message, even when the server echoes it", async () => {
    srv.reply(json(401, { detail: `key ${KEY} is revoked` }));
    const err = (await caught(client().verify())) as Error;
    expect(err).toBeInstanceOf(InvalidKeyError);
    expect(err.message).not.toContain(KEY);
    expect(err.message).toContain("[redacted key]");
  });
});

describe("rate-limit headers", () => {
  it("are published from a success and from an error response", async () => {
    const c = client({ maxAttempts: 1 });
    let notified = 0;
    c.rateLimit.subscribe(() => notified++);
    srv.reply(
      json(200, IDENTITY, {
        "x-ratelimit-remaining": "41",
        "x-ratelimit-limit": "60",
        "x-ratelimit-reset": "12",
      }),
      json(404, { detail: "gone" }, { "x-ratelimit-remaining": "40", "x-ratelimit-limit": "60" }),
    );
    await c.me();
    expect(c.rateLimit.info).toMatchObject({ remaining: 41, limit: 60, resetSeconds: 12 });
    await expect(c.getSession("ses_gone")).rejects.toBeInstanceOf(NotFoundError);
    expect(c.rateLimit.info).toMatchObject({ remaining: 40, limit: 60, resetSeconds: null });
    expect(notified).toBe(2);
  });

  it("a response without them leaves the last figures in place", async () => {
    const c = client();
    srv.reply(json(200, IDENTITY, { "x-ratelimit-remaining": "9" }), json(200, IDENTITY));
    await c.me();
    await c.me();
    expect(c.rateLimit.info?.remaining).toBe(9);
  });

  it("an epoch-seconds reset becomes seconds from now", async () => {
    const c = client();
    const at = Math.floor(Date.now() / 1000) + 30;
    srv.reply(json(200, IDENTITY, { "x-ratelimit-remaining": "1", "x-ratelimit-reset": `${at}` }));
    // Bounds from the clock around the call, so a slow machine cannot move them.
    const before = Date.now() / 1000;
    await c.me();
    const after = Date.now() / 1000;
    const reset = c.rateLimit.info?.resetSeconds ?? -1;
    expect(reset).toBeGreaterThanOrEqual(Math.ceil(at - after));
    expect(reset).toBeLessThanOrEqual(Math.ceil(at - before));
  });
});

describe("429 and retries", () => {
  it("documented defaults: 5 attempts, first wait 1 s ± 20 %, waits capped at 60 s", async () => {
    // Only the random source is given (to read the jitter's bounds); every limit is the default.
    const firstWait = async (random: number, retryAfter?: string) => {
      const c = new ApiClient({
        baseUrl: srv.url,
        apiKey: KEY,
        dispatcher: agent,
        random: () => random,
        // A budget of its own: the 429s of the calls before must not hold this one.
        budget: new RequestBudget(),
      });
      const ctl = new AbortController();
      const waits: RetryWait[] = [];
      c.rateLimit.subscribe(() => {
        const w = c.rateLimit.waiting;
        if (w && !waits.includes(w)) {
          waits.push(w);
          ctl.abort();
        }
      });
      srv.reply(json(429, {}, retryAfter ? { "retry-after": retryAfter } : {}));
      expect(await caught(c.me(ctl.signal))).toBeInstanceOf(CancelledError);
      expect(waits).toHaveLength(1);
      return waits[0]!;
    };
    expect(await firstWait(0)).toMatchObject({ attempt: 2, maxAttempts: 5, delayMs: 800 });
    expect((await firstWait(1)).delayMs).toBe(1200);
    expect((await firstWait(0.5, "60")).delayMs).toBe(60_000);
  });

  it("a Retry-After past the 60 s cap ends the call at once, naming the wait (no retry)", async () => {
    const c = client();
    const waits = recordWaits(c, new AbortController());
    srv.reply(json(429, { detail: "hourly quota used" }, { "retry-after": "3600" }));
    const e = await caught(c.me());
    expect(e).toBeInstanceOf(RateLimitedError);
    expect((e as RateLimitedError).exitCode).toBe(5);
    expect((e as Error).message).toBe(
      "GET /api/v1/me was rate limited (HTTP 429) and the service asks to wait 1h, longer than the 60 s this client waits: hourly quota used",
    );
    expect(srv.seen).toHaveLength(1);
    expect(waits).toHaveLength(0);
  });

  it("waits Retry-After, then succeeds, publishing the wait as a countdown", async () => {
    const c = client();
    const ctl = new AbortController();
    const waits = recordWaits(c, ctl);
    srv.reply(
      json(429, { detail: "slow down" }, { "retry-after": "0.05", "x-ratelimit-remaining": "0" }),
      json(200, IDENTITY, { "x-ratelimit-remaining": "59" }),
    );
    // The retry is sent only after the wait, and the wait is a 50 ms timer.
    const seenAt = requestsAroundWaits(c);
    const timers = vi.spyOn(globalThis, "setTimeout");
    await expect(c.me(ctl.signal)).resolves.toMatchObject({ principal_id: "usr_1" });
    expect(srv.seen).toHaveLength(2);
    expect(waits).toHaveLength(1);
    const w = waits[0]!;
    expect(w).toMatchObject({ attempt: 2, maxAttempts: 5, delayMs: 50 });
    expect(w.reason).toMatch(/429/);
    expect(seenAt).toEqual([
      { waiting: true, requests: 1 },
      { waiting: false, requests: 1 },
    ]);
    expect(timers.mock.calls.some((call) => call[1] === 50)).toBe(true);
    expect(c.rateLimit.waiting).toBeNull();
    expect(c.rateLimit.info?.remaining).toBe(59);
  });

  it("reads an HTTP-date Retry-After (one past maxDelayMs ends the call)", async () => {
    const c = client({ maxDelayMs: 5000, backoffBaseMs: 7, jitter: 0 });
    const ctl = new AbortController();
    const waits = recordWaits(c, ctl, 5000);
    const soon = new Date(Date.now() + 2000).toUTCString();
    srv.reply(json(429, {}, { "retry-after": soon }), json(200, IDENTITY));
    await c.me(ctl.signal);
    expect(waits).toHaveLength(1);
    expect(waits[0]!.delayMs).toBeGreaterThan(500);
    expect(waits[0]!.delayMs).toBeLessThanOrEqual(2000);
    const inAnHour = new Date(Date.now() + 3_600_000).toUTCString();
    srv.reply(json(429, {}, { "retry-after": inAnHour }));
    expect(await caught(c.me())).toBeInstanceOf(RateLimitedError);
    // No retry wait for it (the budget may still pace the call, slowed by the first 429).
    expect(waits.filter((w) => w.cause.kind !== "budget")).toHaveLength(1);
    expect(srv.seen).toHaveLength(3);
  });

  it("an HTTP-date in the past is no reason to hurry: the retry waits the base delay", async () => {
    const c = client({ backoffBaseMs: 30 });
    const ctl = new AbortController();
    const waits = recordWaits(c, ctl, 100);
    srv.reply(
      json(429, {}, { "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" }),
      json(200, IDENTITY),
    );
    await c.me(ctl.signal);
    expect(waits.map((w) => w.delayMs)).toEqual([30]);
  });

  it.each([
    ["garbage", { "retry-after": "in a minute" }],
    ["missing", {}],
  ])("a %s Retry-After falls back to the backoff base", async (_what, headers) => {
    const c = client({ backoffBaseMs: 7 });
    const ctl = new AbortController();
    const waits = recordWaits(c, ctl);
    srv.reply(json(429, {}, headers as Record<string, string>), json(200, IDENTITY));
    await c.me(ctl.signal);
    expect(waits.map((w) => w.delayMs)).toEqual([7]);
  });

  it("doubles the first wait on each later retry, up to the cap", async () => {
    const c = client({ maxDelayMs: 30 });
    const ctl = new AbortController();
    const waits = recordWaits(c, ctl);
    srv.reply(
      json(429, {}, { "retry-after": "0.01" }),
      json(429, {}),
      json(429, {}),
      json(429, {}),
      json(200, IDENTITY),
    );
    await c.me(ctl.signal);
    expect(waits.map((w) => w.delayMs)).toEqual([10, 20, 30, 30]);
    expect(waits.map((w) => w.attempt)).toEqual([2, 3, 4, 5]);
    expect(srv.seen).toHaveLength(5);
  });

  it("adds jitter from the injected source, still within the cap", async () => {
    const c = client({ maxDelayMs: 30, jitter: 0.5, random: () => 0.99 });
    const ctl = new AbortController();
    const waits = recordWaits(c, ctl);
    srv.reply(
      json(429, {}, { "retry-after": "0.01" }),
      json(429, {}),
      json(429, {}),
      json(200, IDENTITY),
    );
    await c.me(ctl.signal);
    // 10 and 20 pushed up by ~49 %; 40 capped at 30 before and after jitter.
    expect(waits.map((w) => w.delayMs)).toEqual([15, 30, 30]);
  });

  it("jitter never waits less than the server's Retry-After", async () => {
    const c = client({ jitter: 0.5, random: () => 0 });
    const ctl = new AbortController();
    const waits = recordWaits(c, ctl);
    srv.reply(json(429, {}, { "retry-after": "0.02" }), json(200, IDENTITY));
    await c.me(ctl.signal);
    expect(waits.map((w) => w.delayMs)).toEqual([20]);
  });

  it("gives up after maxAttempts with RateLimitedError (exit 5)", async () => {
    const c = client({ maxAttempts: 3 });
    srv.fallback(json(429, { detail: "quota used up" }, { "retry-after": "0" }));
    const err = (await caught(c.listSessions())) as RateLimitedError;
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.attempts).toBe(3);
    expect(err.exitCode).toBe(5);
    expect(err.retryAfterMs).toBe(0);
    expect(err.message).toContain("quota used up");
    expect(err.message).toContain("/api/sessions");
    expect(srv.seen).toHaveLength(3);
  });

  it("retries a POST on 429 (the service did not act on it)", async () => {
    srv.reply(json(429, {}, { "retry-after": "0" }), json(200, { ok: true, operation: "push" }));
    await expect(client().git("ses_1", { kind: "push" })).resolves.toMatchObject({ ok: true });
    expect(srv.seen.map((s) => s.method)).toEqual(["POST", "POST"]);
  });

  it("cancelling during a wait rejects with CancelledError and clears the timer", async () => {
    const setSpy = vi.spyOn(globalThis, "setTimeout");
    const clearSpy = vi.spyOn(globalThis, "clearTimeout");
    const c = client({ maxDelayMs: 3_600_000 });
    const ctl = new AbortController();
    c.rateLimit.subscribe(() => {
      // After the wait's timer is armed, which happens right after it is published.
      if (c.rateLimit.waiting) queueMicrotask(() => ctl.abort());
    });
    srv.reply(json(429, {}, { "retry-after": "3600" }));
    // The wait is an hour: the call coming back at all means the cancel ended it.
    const err = await caught(c.me(ctl.signal));
    expect(err).toBeInstanceOf(CancelledError);
    const waitTimer = setSpy.mock.results.find(
      (_r, i) => setSpy.mock.calls[i]?.[1] === 3_600_000,
    )?.value;
    expect(waitTimer).toBeDefined();
    expect(clearSpy).toHaveBeenCalledWith(waitTimer);
    expect(c.rateLimit.waiting).toBeNull();
    expect(srv.seen).toHaveLength(1);
  });

  it("the client-wide signal cancels a wait too", async () => {
    const ctl = new AbortController();
    const c = client({ signal: ctl.signal, maxDelayMs: 3_600_000 });
    c.rateLimit.subscribe(() => {
      if (c.rateLimit.waiting) ctl.abort();
    });
    srv.reply(json(429, {}, { "retry-after": "3600" }));
    await expect(c.listSessions()).rejects.toBeInstanceOf(CancelledError);
    await expect(c.me()).rejects.toBeInstanceOf(CancelledError);
    expect(srv.seen).toHaveLength(1);
  });
  it("dozens of calls in flight on one client-wide signal print no listener warning", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    try {
      const ctl = new AbortController();
      const c = client({ signal: ctl.signal });
      srv.fallback((_req, res) => {
        setTimeout(() => {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ sessions: [session(1)] }));
        }, 50);
      });
      const lists = await Promise.all(Array.from({ length: 12 }, () => c.listSessions()));
      expect(lists.every((l) => l.sessions[0]?.session_id === "ses_1")).toBe(true);
      // Warnings are emitted on the next tick.
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.includes("MaxListeners"))).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });
});

describe("5xx and network errors", () => {
  it("retries a GET on 5xx with a growing delay", async () => {
    const c = client();
    const ctl = new AbortController();
    const waits = recordWaits(c, ctl);
    const seenAt = requestsAroundWaits(c);
    const timers = vi.spyOn(globalThis, "setTimeout");
    srv.reply(json(503, {}), json(502, {}), json(500, {}), json(200, session(1)));
    await expect(c.getSession("ses_1", ctl.signal)).resolves.toMatchObject({
      session_id: "ses_1",
    });
    expect(waits.map((w) => w.delayMs)).toEqual([5, 10, 20]);
    expect(waits.map((w) => w.reason)).toEqual([
      "service error (HTTP 503)",
      "service error (HTTP 502)",
      "service error (HTTP 500)",
    ]);
    // Each wait is a timer of its delay, and each retry went out after it, not during it.
    for (const ms of [5, 10, 20])
      expect(timers.mock.calls.some((call) => call[1] === ms)).toBe(true);
    expect(seenAt).toEqual(
      [1, 2, 3].flatMap((n) => [
        { waiting: true, requests: n },
        { waiting: false, requests: n },
      ]),
    );
  });

  it("a 5xx that persists is an HttpError with the server's message", async () => {
    srv.fallback(json(503, { detail: "maintenance" }));
    const err = (await caught(client({ maxAttempts: 2 }).listSessions())) as HttpError;
    expect(err).toBeInstanceOf(HttpError);
    expect(err.status).toBe(503);
    expect(err.message).toContain("maintenance");
    expect(srv.seen).toHaveLength(2);
  });

  it("never retries a POST on 5xx (it may have acted)", async () => {
    srv.fallback(json(500, { detail: "push failed halfway" }));
    const err = (await caught(
      client().git("ses_1", { kind: "branch", name: "feature/x" }),
    )) as HttpError;
    expect(err).toBeInstanceOf(HttpError);
    expect(err.message).toContain("push failed halfway");
    expect(srv.seen).toHaveLength(1);
  });

  it("a timeout is a NetworkError(timedOut), retried for GETs", async () => {
    srv.fallback(hang);
    const err = (await caught(client({ timeoutMs: 250, maxAttempts: 2 }).me())) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.timedOut).toBe(true);
    expect(err.exitCode).toBe(6);
    expect(err.message).toMatch(/250 ms/);
    expect(srv.seen).toHaveLength(2);
  });

  it("a slow body counts against the same timeout", async () => {
    srv.reply((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"tenant_id":');
    });
    const err = (await caught(client({ timeoutMs: 100, maxAttempts: 1 }).me())) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.timedOut).toBe(true);
  });

  it("connection refused on loopback fails at once: nothing listens there, so no retry", async () => {
    const port = await unusedPort();
    const c = client({ baseUrl: `http://127.0.0.1:${port}`, maxAttempts: 5 });
    const ctl = new AbortController();
    const waits = recordWaits(c, ctl);
    const err = (await caught(c.verify(ctl.signal))) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.failure.kind).toBe("refused");
    expect(err.timedOut).toBe(false);
    expect(err.message).toContain("connection refused");
    expect(err.message).toContain(`127.0.0.1:${port}`);
    expect(err.message).not.toContain(KEY);
    expect(err.hint).toMatch(/nothing is listening/i);
    expect(waits).toHaveLength(0);
  });

  it("a host name that does not resolve is not retried", async () => {
    // A resolver that knows no names: the failure comes through undici's real connect path.
    let lookups = 0;
    const noNames = new Agent({
      connect: {
        lookup: (hostname, _opts, cb) => {
          lookups++;
          const e = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
            code: "ENOTFOUND",
          });
          (cb as (err: Error) => void)(e);
        },
      },
    });
    try {
      const c = client({ baseUrl: "http://agents.example.test", dispatcher: noNames });
      const ctl = new AbortController();
      const waits = recordWaits(c, ctl);
      const err = (await caught(c.me(ctl.signal))) as NetworkError;
      expect(err).toBeInstanceOf(NetworkError);
      expect(err.failure.kind).toBe("host_not_found");
      expect(err.message).toContain("host not found");
      expect(err.hint).toMatch(/host name does not resolve/);
      expect(waits).toHaveLength(0);
      expect(lookups).toBe(1);
    } finally {
      await noNames.close();
    }
  });

  it("https to a port that speaks plain http is a TLS failure, not retried", async () => {
    const c = client({ baseUrl: srv.url.replace("http:", "https:") });
    const ctl = new AbortController();
    const waits = recordWaits(c, ctl);
    const err = (await caught(c.listSessions({}, ctl.signal))) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.failure.kind).toBe("tls");
    expect(err.message).toMatch(/TLS/);
    expect(waits).toHaveLength(0);
    expect(srv.seen).toHaveLength(0);
  });

  it("a connection the service drops is retried, and each wait says why", async () => {
    srv.reply((req) => req.socket.destroy());
    srv.reply(json(200, IDENTITY));
    const c = client({ maxAttempts: 3 });
    const ctl = new AbortController();
    const waits = recordWaits(c, ctl);
    await expect(c.me(ctl.signal)).resolves.toEqual(IDENTITY);
    expect(waits).toHaveLength(1);
    expect(waits[0]?.reason).toBe("connection closed by the service");
    expect(waits[0]?.cause).toEqual({ kind: "network", failure: "reset" });
    expect(srv.seen).toHaveLength(2);
  });
});

describe("typed errors", () => {
  it("401 with {detail: string} is InvalidKeyError with the server's message", async () => {
    srv.reply(json(401, { detail: "API key expired on 2024-01-01" }));
    const err = (await caught(client().verify())) as InvalidKeyError;
    expect(err).toBeInstanceOf(InvalidKeyError);
    expect(err.message).toBe("API key expired on 2024-01-01");
    expect(err.status).toBe(401);
    expect(err.exitCode).toBe(3);
  });

  it("401 with {detail: {error}} is InvalidKeyError with the server's message", async () => {
    srv.reply(json(401, { detail: { error: "Invalid API key" } }));
    const err = (await caught(client().listSessions())) as InvalidKeyError;
    expect(err).toBeInstanceOf(InvalidKeyError);
    expect(err.message).toBe("Invalid API key");
  });

  it("verify answering valid:false is an invalid key", async () => {
    srv.reply(json(200, { ...KEY_INFO, valid: false }));
    await expect(client().verify()).rejects.toBeInstanceOf(InvalidKeyError);
  });

  it.each([401, 403, 404, 418, 204, 202])(
    "/api/v1/me answering %i means the key is invalid",
    async (status) => {
      srv.reply(
        status === 204 ? raw(204, "") : json(status, { detail: { error: `nope ${status}` } }),
      );
      const err = (await caught(client().me())) as InvalidKeyError;
      expect(err).toBeInstanceOf(InvalidKeyError);
      expect(err.status).toBe(status);
      if (status !== 204) expect(err.message).toBe(`nope ${status}`);
    },
  );

  it("/api/v1/me answering 5xx is retried, then reported as an invalid key naming the status", async () => {
    srv.fallback(raw(500, "Internal Server Error"));
    const err = (await caught(client({ maxAttempts: 2 }).me())) as InvalidKeyError;
    expect(err).toBeInstanceOf(InvalidKeyError);
    expect(err.message).toContain("HTTP 500");
    expect(srv.seen).toHaveLength(2);
  });

  it("/api/v1/me answering 429 goes through the rate-limit retries", async () => {
    srv.fallback(json(429, {}, { "retry-after": "0" }));
    await expect(client({ maxAttempts: 2 }).me()).rejects.toBeInstanceOf(RateLimitedError);
  });

  it("403 is MissingScopeError with the scope the body names", async () => {
    srv.reply(
      json(403, {
        detail: "This key lacks sessions:write",
        required_scope: "sessions:write",
      }),
    );
    const err = (await caught(
      client().git("ses_1", { kind: "clone", repoUrl: "demo" }),
    )) as MissingScopeError;
    expect(err).toBeInstanceOf(MissingScopeError);
    expect(err.message).toBe("This key lacks sessions:write");
    expect(err.requiredScope).toBe("sessions:write");
    expect(err.exitCode).toBe(4);
  });

  it("403 without a scope in the body names the scope the call needs", async () => {
    srv.reply(json(403, { detail: { error: "Forbidden" } }), json(403, {}));
    const c = client();
    const list = (await caught(c.listSessions())) as MissingScopeError;
    expect(list.requiredScope).toBe("sessions:read");
    expect(list.message).toBe("Forbidden");
    const push = (await caught(
      c.git("ses_1", { kind: "push", branch: "main" }),
    )) as MissingScopeError;
    expect(push.requiredScope).toBe("sessions:write");
    expect(push.message).toContain("/git/operation");
  });

  it("404 is NotFoundError with the server's message, or one naming the session", async () => {
    srv.reply(json(404, { detail: "Session ses_zz not found" }), raw(404, "not json"));
    const c = client();
    await expect(c.getSession("ses_zz")).rejects.toThrow(
      new NotFoundError("Session ses_zz not found"),
    );
    const err = (await caught(c.getSession("ses_qq"))) as NotFoundError;
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toContain("ses_qq");
  });

  it("other 4xx are HttpError with status and message", async () => {
    srv.reply(json(422, { detail: "invalid branch name: 'a..b'" }));
    const err = (await caught(
      client().git("ses_1", { kind: "branch", name: "a..b" }),
    )) as HttpError;
    expect(err).toBeInstanceOf(HttpError);
    expect(err.status).toBe(422);
    expect(err.message).toContain("invalid branch name");
  });

  it("a body that is not JSON is a MalformedResponseError naming the endpoint", async () => {
    srv.reply(raw(200, "<html>login</html>", { "content-type": "text/html" }));
    const err = (await caught(client().me())) as MalformedResponseError;
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect(err.message).toContain("GET /api/v1/me");
    expect(err.message).toContain("not JSON");
    expect(err.message).toContain("text/html");
  });

  it("JSON of the wrong shape is a MalformedResponseError saying which field", async () => {
    srv.reply(json(200, { ...IDENTITY, scopes: "read" }), raw(200, ""));
    const c = client();
    const err = (await caught(c.me())) as MalformedResponseError;
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect(err.message).toContain("scopes");
    const empty = (await caught(c.verify())) as MalformedResponseError;
    expect(empty).toBeInstanceOf(MalformedResponseError);
    expect(empty.message).toContain("empty body");
  });

  it("a session list of the wrong shape is a MalformedResponseError", async () => {
    srv.reply(json(200, { results: [] }), json(200, [{ state: "active" }]));
    const c = client();
    await expect(c.listSessions()).rejects.toThrow(/sessions, items or data/);
    await expect(c.listSessions()).rejects.toBeInstanceOf(MalformedResponseError);
  });

  it("a body beyond maxBodyBytes is malformed, not buffered without end", async () => {
    srv.reply(json(200, [session(1), session(2), session(3)]));
    const err = await caught(client({ maxBodyBytes: 40 }).listSessions());
    expect(err).toBeInstanceOf(MalformedResponseError);
  });
});

describe("redirects", () => {
  it("a cross-origin redirect is refused and the other origin never sees the key", async () => {
    other = await startScriptedServer();
    other.fallback(json(200, IDENTITY));
    srv.reply(raw(302, "", { location: `${other.url}/api/v1/me` }));
    const err = (await caught(client().me())) as HttpError;
    expect(err).toBeInstanceOf(HttpError);
    expect(err.message).toContain("another origin");
    expect(err.message).toContain(other.origin);
    expect(err.message).toContain("key was not sent");
    expect(other.seen.filter((s) => s.headers.authorization !== undefined)).toEqual([]);
    expect(other.seen).toHaveLength(0);
  });

  it("a redirect to another port of the same host is another origin", async () => {
    other = await startScriptedServer();
    srv.reply(raw(307, "", { location: `${other.url}/api/sessions` }));
    await expect(client().listSessions()).rejects.toThrow(/another origin/);
    expect(other.seen).toHaveLength(0);
  });

  it("same-origin redirects of a GET are followed with the key, up to 3", async () => {
    srv.reply(
      raw(301, "", { location: "/v2/me" }),
      raw(302, "", { location: `${srv.url}/v3/me` }),
      json(200, IDENTITY),
    );
    await expect(client().me()).resolves.toMatchObject({ tenant_id: "org_1" });
    expect(srv.seen.map((s) => s.url)).toEqual(["/api/v1/me", "/v2/me", "/v3/me"]);
    expect(srv.seen.every((s) => s.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  it("a fourth redirect is an error, not a loop", async () => {
    srv.fallback(raw(302, "", { location: "/again" }));
    await expect(client().listSessions()).rejects.toThrow(/more than 3 redirects/);
    expect(srv.seen).toHaveLength(4);
  });

  it("a POST is never redirected", async () => {
    srv.reply(raw(307, "", { location: "/elsewhere" }));
    await expect(client().git("ses_1", { kind: "push" })).rejects.toThrow(
      /only followed for reads/,
    );
    expect(srv.seen).toHaveLength(1);
  });
});

describe("sessions", () => {
  it.each([
    ["a bare array", [session(1), session(2)], null],
    [
      "{sessions, next_cursor}",
      { sessions: [session(1), session(2)], next_cursor: "c2" },
      { cursor: "c2" },
    ],
    ["{items, next}", { items: [session(1), session(2)], next: "n2" }, { cursor: "n2" }],
    ["{data, cursor}", { data: [session(1), session(2)], cursor: "d2" }, { cursor: "d2" }],
    ["has_more: false", { data: [session(1), session(2)], cursor: "d2", has_more: false }, null],
    [
      "{sessions, total, has_more} (offset paging)",
      { sessions: [session(1), session(2)], total: 5, has_more: true },
      { offset: 2 },
    ],
  ])("accepts %s", async (_shape, body, next) => {
    srv.reply(json(200, body));
    const page = await client().listSessions();
    expect(page.sessions.map((s) => s.session_id)).toEqual(["ses_1", "ses_2"]);
    expect(page.next).toEqual(next);
  });

  it("sends limit, state, cursor and filters as query parameters", async () => {
    srv.reply(json(200, []), json(200, []));
    await client().listSessions({
      limit: 100,
      state: "paused",
      agent: "codex",
      templateId: "tpl_x",
      visibility: "team",
      page: { cursor: "abc" },
      filters: { repo: "demo/app", limit: "ignored" },
    });
    await client().listSessions({ page: { offset: 40 } });
    const q = new URL(srv.seen[0]!.url, srv.url).searchParams;
    expect(q.get("limit")).toBe("100");
    expect(q.get("state")).toBe("paused");
    expect(q.get("agent")).toBe("codex");
    expect(q.get("template_id")).toBe("tpl_x");
    expect(q.get("visibility")).toBe("team");
    expect(q.get("cursor")).toBe("abc");
    expect(q.get("offset")).toBeNull();
    expect(q.get("repo")).toBe("demo/app");
    const q2 = new URL(srv.seen[1]!.url, srv.url).searchParams;
    expect(q2.get("offset")).toBe("40");
    expect(q2.get("cursor")).toBeNull();
  });

  it("pages through every page until the cursor runs out", async () => {
    srv.reply(
      json(200, { sessions: [session(1), session(2)], next_cursor: "p2" }),
      json(200, { sessions: [session(3), session(4)], next_cursor: "p3" }),
      json(200, { sessions: [session(5)], next_cursor: null }),
    );
    const ids: string[] = [];
    for await (const page of client().sessionPages({ limit: 2, state: "active" })) {
      ids.push(...page.sessions.map((s) => s.session_id));
    }
    expect(ids).toEqual(["ses_1", "ses_2", "ses_3", "ses_4", "ses_5"]);
    const queries = srv.seen.map((s) => new URL(s.url, srv.url).searchParams);
    expect(queries.map((q) => q.get("cursor"))).toEqual([null, "p2", "p3"]);
    expect(queries.every((q) => q.get("limit") === "2" && q.get("state") === "active")).toBe(true);
  });

  it("stops when the server repeats a cursor", async () => {
    srv.fallback(json(200, { items: [session(1)], next: "same" }));
    const pages = [];
    for await (const page of client().sessionPages()) pages.push(page);
    expect(pages).toHaveLength(2);
    expect(srv.seen).toHaveLength(2);
  });

  it("stops after maxPages whatever the server says", async () => {
    let n = 0;
    srv.fallback((req, res, body, index) => {
      n += 1;
      json(200, { items: [session(n)], next: `c${n}` })(req, res, body, index);
    });
    const pages = [];
    for await (const page of client().sessionPages({ maxPages: 3 })) pages.push(page);
    expect(pages).toHaveLength(3);
    expect(srv.seen).toHaveLength(3);
  });

  it("gets one session, as the record itself or wrapped in {session}", async () => {
    srv.reply(
      json(200, { id: "ses_a", state: "paused", extra: 1 }),
      json(200, { session: session(7) }),
    );
    const c = client();
    await expect(c.getSession("ses_a")).resolves.toMatchObject({
      session_id: "ses_a",
      state: "paused",
      extra: 1,
    });
    await expect(c.getSession("ses_7")).resolves.toMatchObject({ session_id: "ses_7" });
    expect(srv.seen.map((s) => s.url)).toEqual(["/api/sessions/ses_a", "/api/sessions/ses_7"]);
  });
});

describe("git", () => {
  const result = { operation: "x", success: true, result: { output: "done" } };

  it("posts the documented JSON bodies to the interface's paths", async () => {
    srv.fallback(json(200, result));
    const c = client();
    await c.git("ses_1", { kind: "clone", repoUrl: "demo/app", branch: "main" });
    await c.git("ses_1", { kind: "push" });
    await c.git("ses_1", { kind: "push", branch: "feature" });
    await c.git("ses_1", { kind: "branch", name: "feature", from: "main" });
    await c.git("ses_1", { kind: "pr", title: "Fix CI", base: "main", body: "why" });
    expect(srv.seen.map((s) => [s.method, s.url])).toEqual([
      ["POST", "/api/sessions/ses_1/git/clone"],
      ["POST", "/api/sessions/ses_1/git/operation"],
      ["POST", "/api/sessions/ses_1/git/operation"],
      ["POST", "/api/sessions/ses_1/git/operation"],
      ["POST", "/api/sessions/ses_1/git/operation"],
    ]);
    expect(srv.seen.every((s) => s.headers["content-type"] === "application/json")).toBe(true);
    expect(srv.seen.map((s) => JSON.parse(s.body))).toEqual([
      { repo_url: "demo/app", branch: "main" },
      { operation: "push", args: {} },
      { operation: "push", args: { branch: "feature" } },
      { operation: "branch", args: { name: "feature", from: "main" } },
      { operation: "create-pr", args: { title: "Fix CI", base: "main", body: "why" } },
    ]);
  });

  it("a 2xx answer of any shape is a success, carrying what it says", async () => {
    srv.reply(json(200, { output: "?" }), raw(204, ""), raw(200, "pushed it", {}));
    const c = client();
    await expect(c.git("ses_1", { kind: "push" })).resolves.toMatchObject({
      ok: true,
      output: "?",
    });
    await expect(c.git("ses_1", { kind: "push" })).resolves.toMatchObject({
      ok: true,
      status: 204,
      body: "",
    });
    await expect(c.git("ses_1", { kind: "push" })).resolves.toMatchObject({
      ok: true,
      output: "pushed it",
    });
  });
});
