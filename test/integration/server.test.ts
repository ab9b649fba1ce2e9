import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import {
  ApiKeyInfoSchema,
  effectiveScopes,
  IdentitySchema,
  MODERN_SCOPES,
} from "../../src/protocol/index.js";
import { type ReferenceServer, type ServerOptions, startServer } from "../../src/server/index.js";
import { api, waitFor } from "./serverTestUtils.js";

let server: ReferenceServer | null = null;
async function start(opts: ServerOptions = {}): Promise<ReferenceServer> {
  server = await startServer({ paceMs: 0, seed: 7, ...opts });
  return server;
}
afterEach(async () => {
  await server?.close();
  server = null;
});

describe("reference service: keys, verify and me", () => {
  it("issues the demo keys, deterministic for a seed and random without", async () => {
    const s = await start();
    expect(s.keys.map((k) => k.name)).toEqual([
      "owner",
      "admin",
      "member",
      "personal",
      "expired",
      "demoted",
      "legacy",
      "readonly",
      "expiring",
      "listonly",
    ]);
    for (const k of s.keys) expect(k.key).toMatch(/^ask_[0-9A-Za-z]{40}$/);
    expect(new Set(s.keys.map((k) => k.key)).size).toBe(s.keys.length);
    expect(() => s.key("nobody")).toThrow(/no demo key named nobody/);

    const same = await startServer({ paceMs: 0, seed: 7 });
    const unseeded = await startServer({ paceMs: 0 });
    try {
      expect(same.keys).toEqual(s.keys);
      expect(same.sessionIds()).toEqual(s.sessionIds());
      expect(unseeded.key("owner")).not.toBe(s.key("owner"));
    } finally {
      await same.close();
      await unseeded.close();
    }
  });

  it("verify reports each key kind with its effective scopes", async () => {
    const s = await start();
    const info = async (name: string) => {
      const r = await api(s.url, "/api/cloud/auth/verify", { key: s.key(name) });
      expect(r.status, name).toBe(200);
      return ApiKeyInfoSchema.parse(r.body);
    };

    const owner = await info("owner");
    expect(owner).toMatchObject({ valid: true, role: "owner", expires_at: null });
    expect(owner.key_id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(owner.organization_id).toMatch(/^org_/);
    expect(owner.tenant_id).toBe(owner.organization_id);
    expect(owner.effective_scopes).toEqual([...MODERN_SCOPES]);

    const member = await info("member");
    expect(member.role).toBe("member");
    expect(member.effective_scopes).toEqual(member.scopes);
    expect(member.effective_scopes).not.toContain("integrations:write");

    const personal = await info("personal");
    expect(personal.organization_id).toBeNull();
    expect(personal.role).toBeNull();
    expect(personal.tenant_id).toBe(personal.user_id);
    expect(personal.effective_scopes).toEqual(personal.scopes);

    const demoted = await info("demoted");
    expect(demoted.role).toBe("member");
    expect(demoted.scopes).toEqual([...MODERN_SCOPES]);
    expect(demoted.effective_scopes).toEqual(effectiveScopes(demoted.scopes, "member"));
    expect(demoted.effective_scopes).not.toContain("sessions:terminal");
    expect(demoted.effective_scopes).not.toContain("integrations:write");
    expect(demoted.effective_scopes.length).toBeLessThan(demoted.scopes.length);

    const legacy = await info("legacy");
    expect(legacy.scopes).toEqual(["read", "deploy"]);
    expect(legacy.effective_scopes).toEqual(effectiveScopes(["read", "deploy"], "admin"));
    expect(legacy.effective_scopes).toContain("sessions:prompt");
    expect(legacy.effective_scopes).not.toContain("read");

    const readonly = await info("readonly");
    expect(readonly.effective_scopes).toEqual(["sessions:read", "sessions:prompt"]);

    const expiring = await info("expiring");
    const inDays = (Date.parse(expiring.expires_at as string) - Date.now()) / 86_400_000;
    expect(inDays).toBeGreaterThan(2.9);
    expect(inDays).toBeLessThanOrEqual(3);
  });

  it("refuses invalid, expired and missing keys with 401 in each endpoint's error shape", async () => {
    const s = await start();
    const expired = await api(s.url, "/api/cloud/auth/verify", { key: s.key("expired") });
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ detail: expect.stringMatching(/^API key expired at /) });

    const bogus = await api(s.url, "/api/cloud/auth/verify", { key: `ask_${"x".repeat(40)}` });
    expect(bogus.status).toBe(401);
    expect(bogus.body).toEqual({ detail: "Invalid API key" });

    const missing = await api(s.url, "/api/cloud/auth/verify");
    expect(missing.status).toBe(401);
    expect((missing.body as { detail: string }).detail).toMatch(/Invalid API key/);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);

    const meExpired = await api(s.url, "/api/v1/me", { key: s.key("expired") });
    expect(meExpired.status).toBe(401);
    expect(meExpired.body).toEqual({ detail: { error: expect.stringMatching(/expired/) } });
    const meBogus = await api(s.url, "/api/v1/me", { key: "nope" });
    expect(meBogus.body).toEqual({ detail: { error: "Invalid API key" } });

    const list = await api(s.url, "/api/sessions", { key: s.key("expired") });
    expect(list.status).toBe(401);
    expect((list.body as { detail: string }).detail).toMatch(/expired/);
    // The key never comes back in an error.
    expect(JSON.stringify(expired.body)).not.toContain(s.key("expired"));
  });

  it("me returns tenant, principal and the stored scopes", async () => {
    const s = await start();
    for (const name of ["owner", "personal", "legacy", "demoted"]) {
      const v = ApiKeyInfoSchema.parse(
        (await api(s.url, "/api/cloud/auth/verify", { key: s.key(name) })).body,
      );
      const r = await api(s.url, "/api/v1/me", { key: s.key(name) });
      expect(r.status).toBe(200);
      // The interface's three fields and the documented email, org_name and api_key_name.
      expect(IdentitySchema.parse(r.body)).toEqual({
        tenant_id: v.tenant_id,
        principal_id: v.user_id,
        scopes: v.scopes,
        email: `${name}@demo.example`,
        org_name: name === "personal" ? null : "Demo Org",
        api_key_name: v.name,
      });
    }
  });
});

describe("reference service: scopes, errors, sessions", () => {
  it("answers 403 naming the missing scope in the documented words", async () => {
    const s = await start();
    const id = s.sessionIds()[0] as string;
    const git = await api(s.url, `/api/sessions/${id}/git/clone`, {
      key: s.key("readonly"),
      method: "POST",
      body: { repo_url: "demo/app" },
    });
    expect(git.status).toBe(403);
    expect(git.body).toEqual({ detail: "Insufficient scope: requires sessions:write" });
    const op = await api(s.url, `/api/sessions/${id}/git/operation`, {
      key: s.key("readonly"),
      method: "POST",
      body: { operation: "push" },
    });
    expect(op.body).toEqual({ detail: "Insufficient scope: requires sessions:write" });
    const stream = await api(s.url, `/api/cloud/sessions/${id}/events`, { key: s.key("listonly") });
    expect(stream.status).toBe(403);
    expect(stream.body).toEqual({ detail: "Insufficient scope: requires sessions:prompt" });
  });

  it("answers 404 for unknown sessions and paths, 405 for a wrong method", async () => {
    const s = await start();
    const key = s.key("owner");
    const one = await api(s.url, "/api/sessions/ses_nothere", { key });
    expect(one.status).toBe(404);
    expect(one.body).toEqual({ detail: "Session ses_nothere not found" });
    const ev = await api(s.url, "/api/sessions/ses_nothere/events", { key });
    expect(ev.body).toEqual({ detail: "Session ses_nothere not found" });
    const unknown = await api(s.url, "/api/v2/whatever", { key });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: "Not found: GET /api/v2/whatever" });
    const wrong = await api(s.url, "/api/sessions", { key, method: "DELETE" });
    expect(wrong.status).toBe(405);
    // The list is read (GET) and a session is created (POST) there; nothing is deleted.
    expect(wrong.headers.get("allow")).toBe("GET, POST");
  });

  it("gets one session record", async () => {
    const s = await start();
    const id = s.sessionIds()[1] as string;
    const r = await api(s.url, `/api/sessions/${id}`, { key: s.key("member") });
    expect(r.status).toBe(200);
    // The documented record: id, name, state, agent, template_id, sandbox_url, visibility,
    // user_id, organization_id, created_at, updated_at (plus a few of our own).
    expect(r.body).toMatchObject({
      id,
      name: expect.any(String),
      state: expect.stringMatching(/^(active|paused)$/),
      agent: expect.any(String),
      sandbox_url: expect.stringMatching(/^https:\/\//),
      visibility: expect.stringMatching(/^(private|team)$/),
      user_id: expect.stringMatching(/^usr_/),
      organization_id: expect.stringMatching(/^org_/),
      created_at: expect.any(String),
      updated_at: expect.any(String),
      repo: expect.stringMatching(/^demo\//),
      branch: null,
      event_count: 0,
    });
    expect(r.body).not.toHaveProperty("session_id");
    expect(r.body).not.toHaveProperty("title");
  });

  it("pages with limit and offset, says total and has_more, and filters", async () => {
    const s = await start({ sessionCount: 11 });
    const key = s.key("member");
    const seen: string[] = [];
    let offset = 0;
    let pages = 0;
    let more = true;
    while (more && pages < 10) {
      const r = await api(s.url, `/api/sessions?limit=4&offset=${offset}`, { key });
      expect(r.status).toBe(200);
      const body = r.body as { sessions: { id: string }[]; total: number; has_more: boolean };
      expect(body.sessions.length).toBeLessThanOrEqual(4);
      expect(body.total).toBe(11);
      seen.push(...body.sessions.map((x) => x.id));
      offset += body.sessions.length;
      more = body.has_more;
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(s.sessionIds());

    s.setState(s.sessionIds()[0] as string, "paused");
    const paused = s
      .sessions()
      .filter((x) => x.state === "paused")
      .map((x) => x.id);
    expect(paused.length).toBeGreaterThan(2);
    const r = await api(s.url, "/api/sessions?state=paused&limit=2&offset=2", { key });
    const body = r.body as { sessions: { id: string; state: string }[]; total: number };
    expect(body.total).toBe(paused.length);
    expect(body.sessions.map((x) => x.id)).toEqual(paused.slice(2, 4));

    const agent = s.sessions()[0]?.agent as string;
    const byAgent = await api(s.url, `/api/sessions?agent=${agent}&visibility=team`, { key });
    const agentBody = byAgent.body as { sessions: { agent: string; visibility: string }[] };
    expect(agentBody.sessions.length).toBeGreaterThan(0);
    expect(agentBody.sessions.every((x) => x.agent === agent && x.visibility === "team")).toBe(
      true,
    );

    const dflt = await api(s.url, "/api/sessions", { key });
    // The documented default page size.
    expect((dflt.body as { sessions: unknown[] }).sessions).toHaveLength(11);
  });

  it("rejects a bad limit, offset or state with the documented structured 400", async () => {
    const s = await start();
    const key = s.key("owner");
    for (const q of ["limit=0", "limit=101", "limit=abc", "limit=2.5"]) {
      const r = await api(s.url, `/api/sessions?${q}`, { key });
      expect(r.status, q).toBe(400);
      expect(r.body).toEqual({
        detail: {
          error: "validation_error",
          message: "limit must be an integer from 1 to 100",
          field: "limit",
        },
      });
    }
    expect((await api(s.url, "/api/sessions?limit=100", { key })).status).toBe(200);
    expect((await api(s.url, "/api/sessions?offset=-1", { key })).status).toBe(400);
    const st = await api(s.url, "/api/sessions?state=sleeping", { key });
    expect(st.status).toBe(400);
    expect(st.body).toMatchObject({ detail: { field: "state" } });
    // Every documented lifecycle state is a legal filter.
    for (const state of ["creating", "running", "destroyed", "error"]) {
      expect((await api(s.url, `/api/sessions?state=${state}`, { key })).status, state).toBe(200);
    }
  });

  it("honours X-Organization-Id: its own organization passes, another is refused", async () => {
    const s = await start();
    const key = s.key("member");
    const org = s.sessions()[0]?.organization_id as string;
    const ok = await api(s.url, "/api/sessions", { key, headers: { "x-organization-id": org } });
    expect(ok.status).toBe(200);
    const other = await api(s.url, "/api/sessions", {
      key,
      headers: { "x-organization-id": "org_other" },
    });
    expect(other.status).toBe(403);
    expect((other.body as { detail: string }).detail).toContain("org_other");
    const personal = await api(s.url, "/api/sessions", {
      key: s.key("personal"),
      headers: { "x-organization-id": org },
    });
    expect(personal.status).toBe(403);
  });
});

describe("reference service: rate limiting", () => {
  it("puts the rate-limit headers on every response and answers 429 with Retry-After", async () => {
    // A window far longer than the test: every count below is exact however slow the run.
    const s = await start({ rateLimit: { limit: 3, windowMs: 60_000 } });
    const key = s.key("member");
    const before = Date.now();
    const r1 = await api(s.url, "/api/sessions", { key });
    expect(r1.headers.get("x-ratelimit-limit")).toBe("3");
    expect(r1.headers.get("x-ratelimit-remaining")).toBe("2");
    // Unix seconds, as documented: one window (60 s) after the moment the request was counted.
    expect(Number(r1.headers.get("x-ratelimit-reset")) - 60).toBeGreaterThanOrEqual(
      Math.ceil(before / 1000),
    );
    expect(Number(r1.headers.get("x-ratelimit-reset")) - 60).toBeLessThanOrEqual(
      Math.ceil(Date.now() / 1000),
    );
    const r2 = await api(s.url, "/api/sessions/ses_missing", { key });
    expect(r2.status).toBe(404);
    expect(r2.headers.get("x-ratelimit-remaining")).toBe("1");
    const r3 = await api(s.url, "/api/nowhere", { key });
    expect(r3.headers.get("x-ratelimit-remaining")).toBe("0");
    const r4 = await api(s.url, "/api/sessions", { key });
    expect(r4.status).toBe(429);
    expect(Number(r4.headers.get("retry-after"))).toBeGreaterThanOrEqual(59);
    expect(Number(r4.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(r4.headers.get("x-ratelimit-remaining")).toBe("0");
    expect((r4.body as { detail: string }).detail).toMatch(/^Rate limit exceeded/);

    // Per key: another key has its own quota.
    const other = await api(s.url, "/api/sessions", { key: s.key("owner") });
    expect(other.status).toBe(200);
    expect(other.headers.get("x-ratelimit-remaining")).toBe("2");
  });

  it("gives capacity back as the window slides, without any other action", async () => {
    const s = await start({ rateLimit: { limit: 1, windowMs: 200 } });
    const key = s.key("member");
    // Spend the allowance until refused (a slow run may see the window slide in between).
    let r = await api(s.url, "/api/sessions", { key });
    for (let i = 0; i < 50 && r.status !== 429; i++) r = await api(s.url, "/api/sessions", { key });
    expect(r.status).toBe(429);
    // Refused requests are not counted: polling does not keep the window closed.
    for (let i = 0; i < 200 && r.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      r = await api(s.url, "/api/sessions", { key });
    }
    expect(r.status).toBe(200);
  });

  it("limits unauthenticated callers per address", async () => {
    const s = await start({ rateLimit: { limit: 2, windowMs: 60_000 } });
    expect((await api(s.url, "/api/v1/me")).status).toBe(401);
    const second = await api(s.url, "/api/cloud/auth/verify", { key: "garbage" });
    expect(second.status).toBe(401);
    expect(second.headers.get("x-ratelimit-remaining")).toBe("0");
    const third = await api(s.url, "/api/v1/me");
    expect(third.status).toBe(429);
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThanOrEqual(59);
  });

  it("sends no rate-limit headers when limiting is off", async () => {
    const s = await start({ rateLimit: false });
    const r = await api(s.url, "/api/sessions", { key: s.key("owner") });
    expect(r.headers.get("x-ratelimit-remaining")).toBeNull();
  });
});

describe("reference service: lifecycle", () => {
  it("close() stops listening, removes its data dir and leaves no handle behind", async () => {
    const handles = () =>
      process
        .getActiveResourcesInfo()
        .filter((h) => h === "Timeout" || h.startsWith("TCP") || h === "ProcessWrap").length;
    const before = handles();
    const s = await startServer({ paceMs: 5, heartbeatMs: 20, sessionCount: 3 });
    await api(s.url, "/api/sessions", { key: s.key("owner") });
    expect(existsSync(s.dataDir)).toBe(true);
    expect(handles()).toBeGreaterThan(before);
    await s.close();
    await s.close();
    expect(existsSync(s.dataDir)).toBe(false);
    await expect(fetch(`${s.url}/api/sessions`)).rejects.toThrow();
    await waitFor(() => handles() <= before, 2_000, "handles to be released");
  });
});
