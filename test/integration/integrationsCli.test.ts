import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { runCli, tempConfigHome } from "../helpers/cli.js";
import { json, type ScriptedServer, startScriptedServer } from "../helpers/scriptedHttpServer.js";

// `agent-sessions integrations` and `integrations linear set`, as a script would run them.

let server: ReferenceServer;
const cfg = tempConfigHome();

beforeAll(async () => {
  server = await startServer({ seed: 11, paceMs: 0, sessionCount: 1 });
});
afterAll(async () => {
  await server.close();
  cfg.cleanup();
});

function env(keyName: string, base = server.url, key = server.key(keyName)) {
  return { XDG_CONFIG_HOME: cfg.dir, AGENT_SESSIONS_BASE_URL: base, AGENT_SESSIONS_API_KEY: key };
}

describe("integrations", () => {
  it("--json gives each part with its state and data", async () => {
    const r = await runCli(["integrations", "--json"], { env: env("owner") });
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as Record<string, Record<string, unknown>>;
    const app = j.code_hosting_app as { state: string; installations: Record<string, unknown>[] };
    expect(app.state).toBe("ok");
    expect(app.installations.map((i) => i.account_login)).toEqual(["demo", "demo-owner"]);
    expect(
      ((app.installations[0]?.repos ?? []) as { full_name: string }[]).map((x) => x.full_name),
    ).toEqual(["demo/app", "demo/docs"]);
    expect(j.user_token).toMatchObject({ state: "ok", connected: true });
    expect(j.issue_tracker).toMatchObject({ state: "ok" });
    expect(j.chat_tool).toMatchObject({ state: "ok", connected: true });
    expect(j.warnings).toEqual([expect.stringMatching(/chat tool's service account is unhealthy/)]);
    // The warning is said on stderr as well, for a reader of the terminal.
    expect(r.stderr).toMatch(/warning: the chat tool's service account is unhealthy/);
  });

  it("the text view names the launch limit, the configure URL and a disconnected token", async () => {
    const r = await runCli(["integrations"], { env: env("member") });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /issue tracker: Demo Bot \(Demo, oauth\): enabled, 15 launches per hour/,
    );
    expect(r.stdout).toMatch(
      /configure: https:\/\/github\.com\/organizations\/demo\/settings\/installations\/41000001/,
    );
    expect(r.stdout).toMatch(/demo\/app {2}private {2}default branch main/);
    expect(r.stdout).toMatch(/your code hosting token: disconnected/);
    expect(r.stderr).toMatch(/warning: your code hosting token is disconnected/);
  });

  it("a key without integrations:read: every part names the scope, exit 4", async () => {
    const r = await runCli(["integrations"], { env: env("personal") });
    expect(r.code).toBe(4);
    expect(r.stdout.match(/not allowed for this key: .*integrations:read/g)).toHaveLength(4);
  });

  it("one part failing, one absent, escape sequences in names: the rest is shown, sanitized", async () => {
    const s: ScriptedServer = await startScriptedServer();
    try {
      s.fallback((req, res) => {
        const path = new URL(req.url ?? "/", "http://x").pathname;
        const answers: Record<string, [number, unknown]> = {
          "/api/github-app/installations": [
            200,
            {
              installations: [
                {
                  id: "i1",
                  installation_id: 1,
                  account_type: "Organization",
                  account_login: "evil\u001b[2J\u001b]8;;http://x\u0007co",
                  configure_url: "https://github.com/x\u001b[31m/settings",
                  is_personal: false,
                },
              ],
              total: 1,
            },
          ],
          "/api/github-app/repos": [200, { installations: [] }],
          "/api/github-app/user-token-status": [200, { connected: true, username: "octo" }],
          "/api/v1/linear/integrations": [404, { detail: "Linear integration not found" }],
          "/api/v1/slack/integration": [500, { detail: "chat tool backend down" }],
        };
        const [status, body] = answers[path] ?? [404, { detail: "Not Found" }];
        json(status, body, { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "99" })(
          req,
          res,
          "",
          0,
        );
      });
      const r = await runCli(["integrations"], {
        env: {
          ...env("owner", s.url, "ask_scripted_0123456789abcdef"),
          AGENT_SESSIONS_MAX_ATTEMPTS: "1",
        },
      });
      expect(r.code).toBe(1);
      expect(r.stdout).not.toMatch(/\u001b/);
      expect(r.stdout).not.toMatch(/\u0007/);
      expect(r.stdout).toMatch(/evil.*co \(Organization\)/);
      expect(r.stdout).toMatch(/your code hosting token: connected as octo/);
      expect(r.stdout).toMatch(/issue tracker: not set up on this service/);
      expect(r.stdout).toMatch(/chat tool: could not be read: .*chat tool backend down/);
    } finally {
      await s.close();
    }
  });
});

describe("integrations linear set", () => {
  it("an admin changes the limit and the default repository", async () => {
    const r = await runCli(
      ["integrations", "linear", "set", "--rate-limit", "25", "--default-repo", "demo/docs"],
      { env: env("admin") },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /issue tracker updated: 25 launches per hour, default repository demo\/docs/,
    );
    const after = await runCli(["integrations", "--json"], { env: env("admin") });
    const j = JSON.parse(after.stdout) as { issue_tracker: { integrations: unknown[] } };
    expect(j.issue_tracker.integrations[0]).toMatchObject({
      rate_limit_per_hour: 25,
      default_github_repo: "demo/docs",
    });
  });

  it("a limit outside 1–100 is refused before anything is sent (exit 2)", async () => {
    for (const bad of ["0", "101", "ten", "2.5"]) {
      const r = await runCli(["integrations", "linear", "set", "--rate-limit", bad], {
        env: env("admin"),
      });
      expect(r.code, bad).toBe(2);
      expect(r.stderr, bad).toMatch(/1 to 100/);
    }
  });

  it("a member and a personal key are refused by role before anything is sent; exit 4 names it", async () => {
    const member = await runCli(["integrations", "linear", "set", "--rate-limit", "5"], {
      env: env("member"),
    });
    expect(member.code).toBe(4);
    expect(member.stderr).toMatch(
      /error: .*needs the role owner or admin; this key's owner is member/,
    );
    const personal = await runCli(["integrations", "linear", "set", "--rate-limit", "5"], {
      env: env("personal"),
    });
    expect(personal.code).toBe(4);
    expect(personal.stderr).toMatch(/personal key/);
  });

  it("a service refusing by role is shown whole", async () => {
    const s = await startScriptedServer();
    try {
      s.fallback((req, res) => {
        const path = new URL(req.url ?? "/", "http://x").pathname;
        if (path === "/api/cloud/auth/verify") {
          return json(200, {
            valid: true,
            key_id: "k",
            name: "n",
            user_id: "u",
            organization_id: "org_1",
            tenant_id: "org_1",
            role: "admin",
            scopes: ["integrations:write"],
            effective_scopes: ["integrations:write"],
            expires_at: null,
          })(req, res, "", 0);
        }
        json(403, { detail: "Requires org admin role" })(req, res, "", 0);
      });
      const r = await runCli(["integrations", "linear", "set", "--rate-limit", "5"], {
        env: env("owner", s.url, "ask_scripted_0123456789abcdef"),
      });
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/error: Requires org admin role/);
    } finally {
      await s.close();
    }
  });
});

describe("where git needs the integrations", () => {
  it("a clone of a repository no installation reaches names where to grant it", async () => {
    const id = server.sessionIds()[0] as string;
    const r = await runCli(["git", "clone", id, "https://github.com/acme/other.git"], {
      env: env("owner"),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: Unknown repository/);
    expect(r.stderr).toMatch(
      /hint: No installation of the code hosting app reaches acme\/other: grant it access at https:\/\/github\.com\/organizations\/demo\/settings\/installations\/41000001/,
    );
    // One hint, the one that says what to do: not the 404's own as well.
    expect(r.stderr.match(/^hint: /gm)).toHaveLength(1);
  });

  it("a repository the app reaches gets no such hint", async () => {
    const id = server.sessionIds()[0] as string;
    const r = await runCli(["git", "clone", id, "demo/app", "--branch", "nope"], {
      env: env("owner"),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/No installation/);
  });
});

describe("thousands of repositories", () => {
  it("are read a page at a time up to the bound, said on stderr, exit 7", async () => {
    const s = await startScriptedServer();
    try {
      const inst = { id: "i1", account_login: "big", configure_url: "https://x/i1" };
      const repo = (i: number) => ({ full_name: `big/r${i}`, default_branch: "main" });
      s.fallback((req, res) => {
        const url = new URL(req.url ?? "/", "http://x");
        const page = Number(url.searchParams.get("page") ?? "1");
        const per = Number(url.searchParams.get("per_page") ?? "100");
        const answers: Record<string, [number, unknown]> = {
          "/api/github-app/installations": [200, { installations: [inst], total: 1 }],
          "/api/github-app/repos": [
            200,
            {
              installations: [
                {
                  installation: inst,
                  repos: Array.from({ length: 100 }, (_, i) => repo(i)),
                  total_count: 4000,
                },
              ],
            },
          ],
          "/api/github-app/installations/i1/repos": [
            200,
            {
              repos: Array.from({ length: per }, (_, i) => repo((page - 1) * per + i)),
              total_count: 4000,
              has_next: true,
            },
          ],
          "/api/github-app/user-token-status": [200, { connected: true }],
          "/api/v1/linear/integrations": [200, { integrations: [] }],
          "/api/v1/slack/integration": [200, { connected: false }],
        };
        const [status, body] = answers[url.pathname] ?? [404, { detail: "Not Found" }];
        json(status, body, { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "99" })(
          req,
          res,
          "",
          0,
        );
      });
      const r = await runCli(["integrations"], {
        env: env("owner", s.url, "ask_scripted_0123456789abcdef"),
      });
      expect(r.code).toBe(7);
      expect(r.stdout).toMatch(/big \(Organization|big \(installation/);
      expect(r.stdout).toMatch(
        /1000 of 4000 repositories \(list cut: stopped at this client's limit/,
      );
      expect(r.stderr).toMatch(/warning: the repositories of big are incomplete/);
    } finally {
      await s.close();
    }
  });
});
