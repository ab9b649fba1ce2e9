import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { runCli, tempConfigHome } from "../helpers/cli.js";
import {
  json,
  raw,
  type ScriptedServer,
  startScriptedServer,
} from "../helpers/scriptedHttpServer.js";

/**
 * The client against the shapes the real service documents (the reference service's
 * default) and against other spec-legal choices (scripted loopback servers), through the
 * built binary as a user runs it.
 */

let ref: ReferenceServer;
const cfg = tempConfigHome();
let srv: ScriptedServer | null = null;

beforeAll(async () => {
  ref = await startServer({ seed: 21, paceMs: 0, sessionCount: 45 });
});
afterAll(async () => {
  await ref.close();
  cfg.cleanup();
});
afterEach(async () => {
  await srv?.close();
  srv = null;
});

function env(baseUrl: string, key: string, extra: Record<string, string> = {}) {
  return {
    XDG_CONFIG_HOME: cfg.dir,
    AGENT_SESSIONS_BASE_URL: baseUrl,
    AGENT_SESSIONS_API_KEY: key,
    AGENT_SESSIONS_MAX_ATTEMPTS: "1",
    ...extra,
  };
}
const refEnv = (name = "member", extra: Record<string, string> = {}) =>
  env(ref.url, ref.key(name), extra);

async function scripted(): Promise<ScriptedServer> {
  srv = await startScriptedServer();
  return srv;
}
const KEY = "sk_test_0123456789abcdef0123456789";
const scriptedEnv = (s: ScriptedServer, extra: Record<string, string> = {}) =>
  env(s.url, KEY, extra);

const VERIFY = {
  valid: true,
  key_id: "k1",
  name: "ci key",
  user_id: "usr_1",
  organization_id: "org_1",
  tenant_id: "org_1",
  role: "member",
  scopes: ["sessions:read"],
  effective_scopes: ["sessions:read"],
  expires_at: null,
};
const ME = { tenant_id: "org_1", principal_id: "usr_1", scopes: ["sessions:read"] };

describe("sessions on the documented offset paging", () => {
  it("--all --include-destroyed returns every one of 45 sessions, with their names in the table", async () => {
    const r = await runCli(["sessions", "--all", "--include-destroyed", "--wide"], {
      env: refEnv(),
    });
    // The count is a note for the person (stderr); stdout is the table alone.
    expect(r.stderr).toBe("45 sessions\n");
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^SESSION\s+STATE\s+NAME\s+AGENT\s+TEMPLATE\s+VISIBILITY\s+REPO\s+LAST ACTIVITY\s+UPDATED/,
    );
    for (const s of ref.sessions()) {
      const row = lines.find((l) => l.startsWith(s.id));
      expect(row, s.id).toBeDefined();
      expect(row).toContain(s.name);
      expect(row).toContain(s.agent);
      expect(row).toContain(s.last_activity_at);
    }
    expect(lines).toHaveLength(1 + 45);

    const json = await runCli(
      ["sessions", "--all", "--json", "--limit", "7", "--include-destroyed"],
      { env: refEnv() },
    );
    const ids = (JSON.parse(json.stdout) as { id: string; session_id: string }[]).map(
      (s) => s.session_id,
    );
    expect(ids).toEqual(ref.sessionIds());
    // Without it, the service leaves out its 3 destroyed and 3 error sessions.
    const shown = await runCli(["sessions", "--all", "--json", "--limit", "7"], { env: refEnv() });
    const visible = ref
      .sessions()
      .filter((s) => s.state !== "destroyed" && s.state !== "error")
      .map((s) => s.id);
    expect(visible).toHaveLength(39);
    expect((JSON.parse(shown.stdout) as { id: string }[]).map((s) => s.id)).toEqual(visible);
  });

  it("one page says how many there are in all, and what the service hides", async () => {
    const r = await runCli(["sessions", "--wide"], { env: refEnv() });
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split("\n")).toHaveLength(1 + 20);
    expect(r.stderr).toBe(
      "39 sessions, 20 listed (use --all, or --limit up to 100) · destroyed and error sessions hidden (--include-destroyed lists them)\n",
    );
  });

  it("filters by state, agent, template and visibility on the service", async () => {
    const want = ref
      .sessions()
      .filter(
        (s) =>
          s.agent === "codex" &&
          s.visibility === "private" &&
          s.state !== "destroyed" &&
          s.state !== "error",
      )
      .map((s) => s.id);
    expect(want.length).toBeGreaterThan(0);
    const r = await runCli(
      ["sessions", "--all", "--json", "--agent", "codex", "--visibility", "private"],
      { env: refEnv() },
    );
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { id: string }[]).map((s) => s.id)).toEqual(want);
    const errored = await runCli(["sessions", "--state", "error"], { env: refEnv() });
    expect(errored.code).toBe(0);
    expect(errored.stdout).toMatch(/✗|error/);
    for (const line of errored.stdout.trimEnd().split("\n").slice(1)) {
      expect(line).toMatch(/^ses_\w+\s+error\s/);
    }
  });

  it("--limit outside 1-100 and a malformed filter are usage errors (exit 2), nothing sent", async () => {
    const s = await scripted();
    for (const args of [
      ["--limit", "500"],
      ["--limit", "0"],
      ["--limit", "2.5"],
      ["--state", "not a state"],
      ["--agent", "$(x)"],
    ]) {
      const r = await runCli(["sessions", ...args], { env: scriptedEnv(s) });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(/error: option/);
    }
    const limit = await runCli(["sessions", "--limit", "500"], { env: scriptedEnv(s) });
    expect(limit.stderr).toContain("expected an integer from 1 to 100");
    expect(s.seen).toHaveLength(0);
  });

  it("a cursor page with more behind it and no total says so on stderr, not in the table", async () => {
    const s = await scripted();
    s.reply(
      json(200, {
        items: [{ session_id: "ses_a", title: "First page", state: "running" }],
        next_cursor: "c2",
      }),
    );
    const r = await runCli(["sessions"], { env: scriptedEnv(s) });
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split("\n")).toHaveLength(2);
    expect(r.stdout).toMatch(/ses_a\s+running\s+First page/);
    expect(r.stderr).toBe(
      "(more sessions: use --all, or --limit up to 100) · destroyed and error sessions hidden (--include-destroyed lists them)\n",
    );
    expect(s.seen).toHaveLength(1);
  });

  it("follows cursor pages of title records, and stops after a bare array", async () => {
    const s = await scripted();
    s.reply(
      json(200, {
        items: [{ session_id: "ses_a", title: "Old title field", state: "running" }],
        next_cursor: "c2",
      }),
      json(200, {
        items: [{ session_id: "ses_b", title: "Second page", state: "mystery-state" }],
        next_cursor: null,
      }),
      json(200, [{ id: "ses_c", name: "Bare", state: "paused" }]),
    );
    const r = await runCli(["sessions", "--all"], { env: scriptedEnv(s) });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ses_a\s+running\s+Old title field/);
    // An unknown state is shown as it was sent.
    expect(r.stdout).toMatch(/ses_b\s+mystery-state\s+Second page/);
    // Columns no record fills are not shown.
    expect(r.stdout.split("\n")[0]).not.toMatch(/AGENT|TEMPLATE|SANDBOX/);
    const queries = s.seen.map((x) => new URL(x.url, s.url).searchParams);
    expect(queries.map((q) => q.get("cursor"))).toEqual([null, "c2"]);
    expect(queries.every((q) => q.get("offset") === null)).toBe(true);
    const bare = await runCli(["sessions", "--all"], { env: scriptedEnv(s) });
    expect(bare.stdout).toMatch(/ses_c\s+paused\s+Bare/);
    expect(s.seen).toHaveLength(3);
  });

  it("asks the next offset of an offset-paged server until has_more is false", async () => {
    const s = await scripted();
    const rec = (n: number) => ({ id: `ses_${n}`, name: `n${n}`, state: "active" });
    s.reply(
      json(200, { sessions: [rec(1), rec(2)], total: 3, has_more: true }),
      json(200, { sessions: [rec(3)], total: 3, has_more: false }),
    );
    const r = await runCli(["sessions", "--all", "--limit", "2", "--json"], {
      env: scriptedEnv(s),
    });
    expect((JSON.parse(r.stdout) as { id: string }[]).map((x) => x.id)).toEqual([
      "ses_1",
      "ses_2",
      "ses_3",
    ]);
    const offsets = s.seen.map((x) => new URL(x.url, s.url).searchParams.get("offset"));
    expect(offsets).toEqual([null, "2"]);
  });
});

describe("identity, organization and rate limits", () => {
  it("whoami shows email, org name, key name and the rate-limit allowance", async () => {
    const r = await runCli(["whoami"], { env: refEnv("owner") });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/email\s+owner@demo\.example/);
    expect(r.stdout).toMatch(/organization\s+org_\w+ "Demo Org" · role owner/);
    expect(r.stdout).toMatch(/key\s+"demo-owner" ask_…/);
    expect(r.stdout).toMatch(/rate limit\s+\d+\/600 left, resets in (59|60|61) s/);
    const j = JSON.parse((await runCli(["whoami", "--json"], { env: refEnv("owner") })).stdout);
    expect(j).toMatchObject({ email: "owner@demo.example", org_name: "Demo Org" });
  });

  it("reads X-RateLimit-Reset as seconds left or as unix seconds", async () => {
    const s = await scripted();
    const rl = (reset: string) => ({
      "x-ratelimit-limit": "100",
      "x-ratelimit-remaining": "97",
      "x-ratelimit-reset": reset,
    });
    s.reply(json(200, VERIFY, rl("41")), json(200, ME, rl("41")));
    const delta = await runCli(["whoami"], { env: scriptedEnv(s) });
    expect(delta.stdout).toMatch(/rate limit\s+97\/100 left, resets in 41 s/);
    const at = String(Math.floor(Date.now() / 1000) + 41);
    s.reply(json(200, VERIFY, rl(at)), json(200, ME, rl(at)));
    const epoch = await runCli(["whoami"], { env: scriptedEnv(s) });
    expect(epoch.stdout).toMatch(/rate limit\s+97\/100 left, resets in (39|40|41|42) s/);
  });

  it("--org and AGENT_SESSIONS_ORG go out as X-Organization-Id on every request and stream", async () => {
    const s = await scripted();
    s.fallback((req: IncomingMessage, res: ServerResponse, body: string, n: number) => {
      // Routed by path: `watch` asks for no history (`?history=0`), which a server may ignore.
      if (new URL(req.url ?? "/", s.url).pathname.endsWith("/events")) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end('event: prompt_progress\ndata: {"type":"text","content":"hi"}\n\n');
        return;
      }
      if (req.url === "/api/cloud/auth/verify") return json(200, VERIFY)(req, res, body, n);
      if (req.url === "/api/v1/me") return json(200, ME)(req, res, body, n);
      if (req.url?.includes("/git/")) {
        return json(200, { operation: "push", success: true })(req, res, body, n);
      }
      json(200, { sessions: [], total: 0, has_more: false })(req, res, body, n);
    });
    const flag = ["--org", "org_flag"];
    expect((await runCli([...flag, "whoami"], { env: scriptedEnv(s) })).code).toBe(0);
    expect((await runCli([...flag, "sessions"], { env: scriptedEnv(s) })).code).toBe(0);
    expect((await runCli([...flag, "git", "push", "ses_a1"], { env: scriptedEnv(s) })).code).toBe(
      0,
    );
    const w = await runCli([...flag, "watch", "ses_a1", "--max-events", "1"], {
      env: scriptedEnv(s),
    });
    expect(w.code).toBe(0);
    expect(s.seen.map((x) => x.headers["x-organization-id"])).toEqual(s.seen.map(() => "org_flag"));
    expect(s.seen.map((x) => new URL(x.url, s.url).pathname)).toContain(
      "/api/cloud/sessions/ses_a1/events",
    );
    const who = await runCli(["whoami"], {
      env: scriptedEnv(s, { AGENT_SESSIONS_ORG: "org_env" }),
    });
    expect(who.stdout).toMatch(/acting in\s+org_env \(X-Organization-Id\)/);
    expect(s.seen.at(-1)?.headers["x-organization-id"]).toBe("org_env");
    // The flag wins over the environment.
    await runCli(["--org", "org_flag2", "sessions"], {
      env: scriptedEnv(s, { AGENT_SESSIONS_ORG: "org_env" }),
    });
    expect(s.seen.at(-1)?.headers["x-organization-id"]).toBe("org_flag2");
    const bad = await runCli(["--org", "org with space", "sessions"], { env: scriptedEnv(s) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/organization id from --org is not usable/);
  });

  it("login --org stores the organization for the profile; the service refuses another one", async () => {
    const home = tempConfigHome();
    try {
      const org = ref.sessions()[0]?.organization_id as string;
      const base = { XDG_CONFIG_HOME: home.dir };
      const login = await runCli(
        ["login", "--base-url", ref.url, "--org", org, "--insecure-storage", "--profile", "w"],
        { env: base, input: `${ref.key("member")}\n` },
      );
      expect(login.code).toBe(0);
      expect(login.stdout).toMatch(new RegExp(`acting in\\s+${org} \\(X-Organization-Id, stored`));
      const who = await runCli(["--profile", "w", "whoami"], { env: base });
      expect(who.code).toBe(0);
      expect(who.stdout).toMatch(new RegExp(`acting in\\s+${org}`));
      const other = await runCli(["--profile", "w", "--org", "org_elsewhere", "sessions"], {
        env: base,
      });
      expect(other.code).toBe(4);
      expect(other.stderr).toMatch(/error: Organization mismatch: .*org_elsewhere/);
      expect(other.stderr).toMatch(/hint: Check the organization \(--org/);
    } finally {
      home.cleanup();
    }
  });
});

describe("errors in the documented shapes", () => {
  it("a 403 names the scope it requires and exits 4", async () => {
    const id = ref.sessionIds()[0] as string;
    const r = await runCli(["git", "push", id], { env: refEnv("readonly") });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("error: Insufficient scope: requires sessions:write");
    expect(r.stderr).toMatch(/hint: .*sessions:write/);
    const s = await scripted();
    s.reply(json(403, { detail: { error: "forbidden", message: "Nope", field: "sessions:read" } }));
    const f = await runCli(["sessions"], { env: scriptedEnv(s) });
    expect(f.code).toBe(4);
    expect(f.stderr).toContain("error: Nope (forbidden, requires sessions:read)");
  });

  it("{detail: {error, message, field}} becomes one readable line with a hint for the field", async () => {
    const s = await scripted();
    s.reply(
      json(400, {
        detail: { error: "validation_error", message: "Field 'agent' is unknown", field: "agent" },
      }),
    );
    const r = await runCli(["sessions", "--agent", "x"], { env: scriptedEnv(s) });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "error: GET /api/sessions failed (HTTP 400): Field 'agent' is unknown (validation_error)\n" +
        "hint: Check the value given for agent.\n",
    );
  });

  it("409 and 410 show the server's words whole with a hint that fits the cause", async () => {
    const s = await scripted();
    s.reply(
      json(409, { detail: "Cannot push while a prompt is running in this session" }),
      json(410, { detail: "Sandbox has expired. Please create a new session." }),
    );
    const busy = await runCli(["git", "push", "ses_a1"], { env: scriptedEnv(s) });
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain("Cannot push while a prompt is running in this session");
    // The cause is named: a running prompt, which can be waited for or cancelled.
    expect(busy.stderr).toMatch(
      /hint: A prompt is running in the session: wait for it to finish, or cancel it first/,
    );
    const gone = await runCli(["git", "push", "ses_a1"], { env: scriptedEnv(s) });
    expect(gone.stderr).toContain("Sandbox has expired. Please create a new session.");
    expect(gone.stderr).toMatch(/hint: The session is gone/);
    const ref409 = await runCli(["git", "push", ref.sessionIds()[1] as string], {
      env: refEnv("owner"),
    });
    expect(ref409.stderr).toMatch(/hint: Clone a repository into the session first/);
  });
});

describe("git answers", () => {
  it("documented answers succeed on the reference service, with what they carry", async () => {
    const id = ref.sessionIds()[2] as string;
    const clone = await runCli(["git", "clone", id, "demo/app"], { env: refEnv("owner") });
    expect(clone.code).toBe(0);
    expect(clone.stdout).toMatch(/^cloned demo\/app \(branch main\) at [0-9a-f]{12}\n/);
    const branch = await runCli(["git", "branch", id, "feature/doc"], { env: refEnv("owner") });
    expect(branch.stdout).toMatch(/^created branch feature\/doc/);
    const push = await runCli(["git", "push", id], { env: refEnv("owner") });
    expect(push.stdout).toMatch(/^pushed feature\/doc at [0-9a-f]{12}/);
    const pr = await runCli(["git", "pr", id, "--title", "Docs"], { env: refEnv("owner") });
    expect(pr.stdout).toMatch(/^opened pull request #1: Docs https:\/\/\S+\/pull\/1/);
  });

  it("success: false fails with its message (exit 1); --json keeps the answer as sent", async () => {
    const s = await scripted();
    const answer = {
      operation: "push",
      success: false,
      error: "remote: permission denied to demo/app",
      result: { output: "To origin\n ! [remote rejected] main" },
      trace_id: "t-1",
    };
    // The git route answers; the session's record is not served (so no repository is named).
    s.fallback((req, res, body, n) =>
      (req.url?.endsWith("/git/operation")
        ? json(200, answer)
        : json(404, { detail: "Not Found" }))(req, res, body, n),
    );
    const r = await runCli(["git", "push", "ses_a1"], { env: scriptedEnv(s) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: push failed: remote: permission denied to demo/app");
    expect(r.stdout).toContain("[remote rejected] main");
    const j = await runCli(["git", "push", "ses_a1", "--json"], { env: scriptedEnv(s) });
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout)).toEqual(answer);
  });

  it("a 202 {accepted: true} and an ok-style answer are successes", async () => {
    const s = await scripted();
    s.reply(
      json(202, { accepted: true, job: "j-9" }),
      json(200, { ok: true, pr_url: "https://git.example/pull/4", pr_number: 4 }),
    );
    const acc = await runCli(["git", "push", "ses_a1"], { env: scriptedEnv(s) });
    expect(acc.code).toBe(0);
    expect(acc.stdout).toContain("push accepted by the service");
    const pr = await runCli(["git", "pr", "ses_a1", "--title", "T"], { env: scriptedEnv(s) });
    expect(pr.code).toBe(0);
    expect(pr.stdout).toContain("opened pull request #4: T https://git.example/pull/4");
  });

  it("when the interface's path answers 404 or 405, the documented route is tried once", async () => {
    const s = await scripted();
    s.reply(
      json(404, { detail: "Not Found" }),
      json(200, { operation: "push", success: true, result: { sha: "abcdef1234567890" } }),
      raw(405, "", { allow: "GET" }),
      json(200, { session_id: "ses_a1", repo_url: "o/r", branch: "dev", path: "/home/r" }),
      json(404, { detail: "Session ses_zz not found" }),
      json(404, { detail: "Not Found" }),
    );
    const push = await runCli(["git", "push", "ses_a1"], { env: scriptedEnv(s) });
    expect(push.stdout).toContain("pushed at abcdef123456");
    const clone = await runCli(["git", "clone", "ses_a1", "o/r"], { env: scriptedEnv(s) });
    expect(clone.stdout).toContain("cloned o/r (branch dev)");
    const missing = await runCli(["git", "push", "ses_zz"], { env: scriptedEnv(s) });
    expect(missing.code).toBe(1);
    // Both paths missing: the interface path's answer is the one shown.
    expect(missing.stderr).toContain("error: Session ses_zz not found");
    expect(s.seen.map((x) => x.url)).toEqual([
      "/api/sessions/ses_a1/git/operation",
      "/api/sessions/ses_a1/git",
      "/api/sessions/ses_a1/git/clone",
      "/api/sessions/ses_a1/clone-repo",
      "/api/sessions/ses_zz/git/operation",
      "/api/sessions/ses_zz/git",
    ]);
    // The documented `/git` gets its flat body.
    expect(JSON.parse(s.seen[1]?.body ?? "")).toEqual({ operation: "push" });
  });
});
