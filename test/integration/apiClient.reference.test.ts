import { Agent } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, type ApiClientOptions } from "../../src/client/apiClient.js";
import {
  HttpError,
  InvalidKeyError,
  MissingScopeError,
  NotFoundError,
  RateLimitedError,
} from "../../src/client/errors.js";
import type { RetryWait } from "../../src/client/rateLimit.js";
import { MODERN_SCOPES } from "../../src/protocol/scopes.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";

// The API client against the reference service over loopback: every endpoint's success and
// failure, each demo key's scopes, pagination, rate limiting and injected faults.

const MEMBER_CEILING = ["integrations:read", "sessions:prompt", "sessions:read", "sessions:write"];
const ALL = [...MODERN_SCOPES].sort();

let server: ReferenceServer;
let agent: Agent;

beforeAll(async () => {
  server = await startServer({ paceMs: 0, sessionCount: 7, seed: 42 });
  agent = new Agent({ keepAliveTimeout: 2000 });
});

afterAll(async () => {
  await agent.close();
  await server.close();
});

afterEach(() => {
  server.faults.reset();
});

function client(keyName: string, opts: Partial<ApiClientOptions> = {}): ApiClient {
  return new ApiClient({
    baseUrl: server.url,
    apiKey: keyName === "bogus" ? "ask_not_a_real_key" : server.key(keyName),
    dispatcher: agent,
    backoffBaseMs: 5,
    jitter: 0,
    timeoutMs: 10_000,
    ...opts,
  });
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected the call to fail");
}

/** The retry waits a client publishes (not the request budget's pacing, said too). */
function waitsOf(c: ApiClient): RetryWait[] {
  const waits: RetryWait[] = [];
  c.rateLimit.subscribe(() => {
    const w = c.rateLimit.waiting;
    if (w && w.cause.kind !== "budget" && !waits.includes(w)) waits.push(w);
  });
  return waits;
}

const sorted = (xs: readonly string[]) => [...xs].sort();

describe("each demo key", () => {
  it.each([
    ["owner", "owner", ALL, ALL],
    ["admin", "admin", ALL, ALL],
    ["member", "member", MEMBER_CEILING, MEMBER_CEILING],
    ["demoted", "member", ALL, MEMBER_CEILING],
    ["legacy", "admin", ["deploy", "read"], MEMBER_CEILING],
    [
      "readonly",
      "member",
      ["sessions:prompt", "sessions:read"],
      ["sessions:prompt", "sessions:read"],
    ],
  ])("%s: role %s, stored and effective scopes", async (name, role, stored, effective) => {
    const c = client(name);
    const info = await c.verify();
    expect(info.valid).toBe(true);
    expect(info.role).toBe(role);
    expect(info.organization_id).toMatch(/^org_/);
    expect(info.tenant_id).toBe(info.organization_id);
    expect(sorted(info.scopes)).toEqual(stored);
    expect(sorted(info.effective_scopes)).toEqual(effective);
    expect(info.expires_at).toBeNull();
    const me = await c.me();
    expect(me.principal_id).toBe(info.user_id);
    expect(me.tenant_id).toBe(info.tenant_id);
    expect(sorted(me.scopes)).toEqual(stored);
  });

  it("demoted: effective scopes are narrower than stored ones", async () => {
    const info = await client("demoted").verify();
    expect(info.effective_scopes.length).toBeLessThan(info.scopes.length);
    expect(info.effective_scopes).not.toContain("integrations:write");
  });

  it("personal: no organization, no role, tenant is the user", async () => {
    const info = await client("personal").verify();
    expect(info.organization_id).toBeNull();
    expect(info.role).toBeNull();
    expect(info.tenant_id).toBe(info.user_id);
    expect(sorted(info.effective_scopes)).toEqual(sorted(info.scopes));
    const me = await client("personal").me();
    expect(me.tenant_id).toBe(info.user_id);
  });

  it("expiring: carries an expiry a few days ahead", async () => {
    const info = await client("expiring").verify();
    const left = Date.parse(info.expires_at ?? "") - Date.now();
    expect(left).toBeGreaterThan(2 * 86_400_000);
    expect(left).toBeLessThan(4 * 86_400_000);
  });

  it("expired: verify and me refuse it with a message saying so", async () => {
    const c = client("expired");
    const v = (await caught(c.verify())) as InvalidKeyError;
    expect(v).toBeInstanceOf(InvalidKeyError);
    expect(v.status).toBe(401);
    expect(v.message).toMatch(/expired/i);
    const m = (await caught(c.me())) as InvalidKeyError;
    expect(m).toBeInstanceOf(InvalidKeyError);
    expect(m.message).toMatch(/expired/i);
  });

  it("an unknown key: both endpoints' error shapes become InvalidKeyError messages", async () => {
    const c = client("bogus");
    await expect(c.verify()).rejects.toThrow(new InvalidKeyError("Invalid API key", 401));
    await expect(c.me()).rejects.toThrow(new InvalidKeyError("Invalid API key", 401));
    await expect(c.listSessions()).rejects.toBeInstanceOf(InvalidKeyError);
  });

  it("publishes the service's rate-limit headers", async () => {
    const c = client("member");
    await c.me();
    expect(c.rateLimit.info?.limit).toBe(600);
    expect(c.rateLimit.info?.remaining).toBeGreaterThan(0);
    expect(c.rateLimit.info?.remaining).toBeLessThan(600);
  });
});

describe("sessions", () => {
  it("pages through every session, newest first, without repeats", async () => {
    const pages = [];
    for await (const page of client("member").sessionPages({ limit: 2 })) pages.push(page);
    expect(pages.map((p) => p.sessions.length)).toEqual([2, 2, 2, 1]);
    const ids = pages.flatMap((p) => p.sessions.map((s) => s.session_id));
    expect(ids).toEqual(server.sessionIds());
    expect(pages.at(-1)?.next).toBeNull();
    // The documented offset paging: the total of every page, has_more until the last.
    expect(pages.map((p) => p.total)).toEqual([7, 7, 7, 7]);
    expect(pages.map((p) => p.hasMore)).toEqual([true, true, true, false]);
  });

  it("filters by state", async () => {
    const want = server.sessions().filter((s) => s.state === "paused");
    const got = [];
    for await (const page of client("member").sessionPages({ state: "paused", limit: 3 })) {
      got.push(...page.sessions);
    }
    expect(got.map((s) => s.session_id)).toEqual(want.map((s) => s.id));
    expect(got.every((s) => s.state === "paused")).toBe(true);
  });

  it("a bad parameter is an HttpError with the service's message", async () => {
    const err = (await caught(client("member").listSessions({ state: "sleeping" }))) as HttpError;
    expect(err).toBeInstanceOf(HttpError);
    expect(err.status).toBe(400);
    expect(err.message).toContain("state must be one of active, paused");
    // The documented structured error body becomes one line naming the field.
    expect(err.message).toContain("(validation_error)");
    expect(err.hint).toBe("Check the value given for state.");
  });

  it("gets one session; an unknown id is NotFoundError", async () => {
    const c = client("member");
    const id = server.sessionIds()[0] as string;
    await expect(c.getSession(id)).resolves.toMatchObject({ session_id: id });
    const err = (await caught(c.getSession("ses_nope"))) as NotFoundError;
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toContain("ses_nope");
    expect(err.hint).toMatch(/Check the session id/);
  });
});

describe("git", () => {
  it("clone, branch, push and pull request, against real repositories", async () => {
    const c = client("owner");
    const id = server.sessionIds()[1] as string;
    const cloned = await c.git(id, { kind: "clone", repoUrl: "demo/app" });
    expect(cloned).toMatchObject({ ok: true, branch: "main", repoUrl: "demo/app" });
    expect(cloned.path).toBe(`workspaces/${id}`);
    const branched = await c.git(id, { kind: "branch", name: "feature/api-client" });
    expect(branched).toMatchObject({ ok: true, operation: "branch", branch: "feature/api-client" });
    const pushed = await c.git(id, { kind: "push" });
    expect(pushed).toMatchObject({ ok: true, operation: "push", branch: "feature/api-client" });
    expect(pushed.sha).toMatch(/^[0-9a-f]{40}$/);
    const pr = await c.git(id, { kind: "pr", title: "API client", base: "main" });
    expect(pr).toMatchObject({ ok: true, operation: "create-pr", prNumber: 1 });
    expect(pr.prUrl).toContain("/demo/app/pull/1");
    expect(server.pullRequests().map((p) => p.title)).toContain("API client");
  });

  it("bad input gets the service's message", async () => {
    const c = client("owner");
    const id = server.sessionIds()[2] as string;
    const unknown = (await caught(
      c.git(id, { kind: "clone", repoUrl: "evil/repo" }),
    )) as NotFoundError;
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect(unknown.message).toContain("Unknown repository");
    // The session was found; the repository was not: the hint says which to check.
    expect(unknown.hint).toMatch(/^Check the repository URL/);
    const noRepo = (await caught(c.git(id, { kind: "push" }))) as HttpError;
    expect(noRepo).toBeInstanceOf(HttpError);
    expect(noRepo.status).toBe(409);
    expect(noRepo.message).toContain("clone a repository first");
    // A hint that fits the cause, not just the status.
    expect(noRepo.hint).toContain("agent-sessions git clone");
    await c.git(id, { kind: "clone", repoUrl: "demo/docs" });
    const bad = (await caught(c.git(id, { kind: "branch", name: "bad..name" }))) as HttpError;
    expect(bad.status).toBe(422);
    expect(bad.message).toContain("Invalid branch name");
  });

  it("a key without sessions:write gets MissingScopeError naming it", async () => {
    const id = server.sessionIds()[3] as string;
    const err = (await caught(
      client("readonly").git(id, { kind: "clone", repoUrl: "demo/app" }),
    )) as MissingScopeError;
    expect(err).toBeInstanceOf(MissingScopeError);
    expect(err.requiredScope).toBe("sessions:write");
    expect(err.message).toBe("Insufficient scope: requires sessions:write");
    expect(err.exitCode).toBe(4);
  });
});

describe("rate limits and faults", () => {
  it("429 then success: waits Retry-After, then doubles it", async () => {
    server.faults.set({ failStatus: 429, failCount: 2, failRetryAfter: "0.02" });
    const c = client("member");
    const waits = waitsOf(c);
    await expect(c.me()).resolves.toHaveProperty("principal_id");
    expect(waits.map((w) => w.delayMs)).toEqual([20, 40]);
    expect(c.rateLimit.info?.limit).toBe(600);
  });

  it("5xx on a GET is retried with a growing delay", async () => {
    server.faults.set({ failStatus: 503, failCount: 3 });
    const c = client("member");
    const waits = waitsOf(c);
    const page = await c.listSessions({ limit: 1 });
    expect(page.sessions).toHaveLength(1);
    expect(waits.map((w) => w.delayMs)).toEqual([5, 10, 20]);
  });

  it("5xx on a POST is not retried", async () => {
    server.faults.set({ failStatus: 500, failCount: 1 });
    const c = client("owner");
    const err = (await caught(
      c.git(server.sessionIds()[4] as string, { kind: "push" }),
    )) as HttpError;
    expect(err).toBeInstanceOf(HttpError);
    expect(err.status).toBe(500);
    expect(server.faults.get().failCount).toBe(0);
  });

  it("the real per-key limiter: a Retry-After past the cap gives RateLimitedError at once, other keys go on", async () => {
    const limited = await startServer({
      paceMs: 0,
      sessionCount: 1,
      rateLimit: { limit: 2, windowMs: 60_000 },
    });
    try {
      const opts = { maxAttempts: 2, maxDelayMs: 10 };
      const mk = (name: string) =>
        new ApiClient({
          baseUrl: limited.url,
          apiKey: limited.key(name),
          dispatcher: agent,
          ...opts,
        });
      const c = mk("member");
      await c.me();
      expect(c.rateLimit.info).toMatchObject({ limit: 2, remaining: 1 });
      await c.me();
      const err = (await caught(c.me())) as RateLimitedError;
      expect(err).toBeInstanceOf(RateLimitedError);
      // The service asks for about a minute, longer than this client's 10 ms cap: no retry.
      expect(err.attempts).toBe(1);
      expect(err.retryAfterMs).toBeGreaterThan(50_000);
      expect(err.message).toContain("and the service asks to wait");
      expect(err.message).toContain("Rate limit exceeded");
      expect(c.rateLimit.info?.remaining).toBe(0);
      await expect(mk("owner").me()).resolves.toHaveProperty("principal_id");
    } finally {
      await limited.close();
    }
  });
});
