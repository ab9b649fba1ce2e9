import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { readIntegrations } from "../../src/client/integrations.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { runCli, tempConfigHome } from "../helpers/cli.js";
import { CONFIGURE_ACME, documentedService, KEY, SESSION } from "../helpers/documentedService.js";
import type { ScriptedServer } from "../helpers/scriptedHttpServer.js";

/**
 * One mount for every route family: a service serving its API under /api/cloud (its /api/…
 * paths the web dashboard's, answering a bearer key 401) and one serving the interface's
 * /api/…. Sessions, history, approvals, the code hosting app, the issue tracker and the chat
 * tool all go where the client learned the API lives; git's route is learned once per base
 * URL; a refused push names where to grant the code hosting app access, on either mount.
 */

/** The real service's documented limits. */
const LIMITS = { limit: 100, windowMs: 60_000, burst: 20 };
const CONFIGURE_DEMO = "https://github.com/organizations/demo/settings/installations/41000001";

const cfg = tempConfigHome();
afterAll(() => cfg.cleanup());

/** "GET /path status" of the log lines since `from`. */
const paths = (log: string[], from: number) =>
  log.slice(from).map((l) => l.split(" ").slice(0, 3).join(" "));

describe.each([
  { mount: "cloud", base: "/api/cloud" },
  { mount: "interface", base: "/api" },
] as const)("the reference service with its API under $base", ({ mount, base }) => {
  let srv: ReferenceServer;
  const log: string[] = [];
  beforeAll(async () => {
    srv = await startServer({
      seed: 31,
      paceMs: 0,
      sessionCount: 3,
      mount,
      rateLimit: LIMITS,
      log: (l) => log.push(l),
    });
  });
  afterAll(() => srv.close());

  it("history, approvals, the code hosting app, the issue tracker and the chat tool go under the mount the sessions found", async () => {
    const c = new ApiClient({ baseUrl: srv.url, apiKey: srv.key("owner") });
    const page = await c.listSessions({ limit: 5 });
    const id = page.sessions[0]?.session_id as string;
    const from = log.length;
    await c.sessionHistory(id);
    await c.listApprovals(id);
    const report = await readIntegrations(c);
    expect(report.app.state).toBe("ok");
    if (report.app.state !== "ok") return;
    const configure = report.app.data.installations.map((g) => g.installation.configure_url);
    expect(configure).toContain(CONFIGURE_DEMO);
    expect(report.token.state).toBe("ok");
    expect(report.issueTracker.state).toBe("ok");
    expect(report.chat.state).toBe("ok");
    const seen = paths(log, from);
    expect(seen).toEqual(
      expect.arrayContaining([
        `GET ${base}/sessions/${id}/history 200`,
        `GET ${base}/sessions/${id}/approvals 200`,
        `GET ${base}/github-app/installations 200`,
        `GET ${base}/github-app/repos 200`,
        `GET ${base}/github-app/user-token-status 200`,
        `GET ${base}/v1/linear/integrations 200`,
        `GET ${base}/v1/slack/integration 200`,
      ]),
    );
    // Nothing was asked anywhere else first: no dashboard 401, no missing route.
    expect(seen).toHaveLength(7);
    expect(c.transport.routes.mount).toBe(mount);
  });

  it("`integrations` reads the code hosting app and names its configure URL", async () => {
    // Another key than the test above's: its own request budget (burst 20) on the service.
    const from = log.length;
    const r = await runCli(["integrations"], {
      env: {
        XDG_CONFIG_HOME: cfg.dir,
        AGENT_SESSIONS_BASE_URL: srv.url,
        AGENT_SESSIONS_API_KEY: srv.key("admin"),
      },
    });
    // What it says on stderr is in the message: a chat tool warning is expected there.
    expect(r.stderr, r.stderr).not.toMatch(/could not be read|Not authenticated|log in/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(CONFIGURE_DEMO);
    expect(r.stdout).toContain("demo/app");
    // The four reads side by side share one verify (their dashboard 401s ask whether the key
    // is good): one request against the burst, not four.
    const verifies = paths(log, from).filter((p) => p.startsWith("GET /api/cloud/auth/verify"));
    expect(verifies.length).toBe(mount === "cloud" ? 1 : 0);
  });
});

describe.each(["cloud", "interface"] as const)("a refused push on the %s mount", (mount) => {
  let s: ScriptedServer;
  const cache = tempConfigHome();
  beforeAll(async () => {
    s = await documentedService(mount);
  });
  afterAll(async () => {
    await s.close();
    cache.cleanup();
  });
  const env = () => ({
    XDG_CONFIG_HOME: cfg.dir,
    XDG_CACHE_HOME: cache.dir,
    AGENT_SESSIONS_BASE_URL: s.url,
    AGENT_SESSIONS_API_KEY: KEY,
    AGENT_SESSIONS_MAX_ATTEMPTS: "1",
  });

  it("names where to grant the code hosting app access; git's route is probed once across commands", async () => {
    const base = mount === "cloud" ? "/api/cloud" : "/api";
    const urls = (from: number, to?: number) =>
      s.seen.slice(from, to).map((x) => `${x.method} ${x.url.split("?")[0]}`);
    const runs: { stderr: string; code: number | null; from: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const from = s.seen.length;
      runs.push({ ...(await runCli(["git", "push", SESSION], { env: env() })), from });
    }
    for (const r of runs) {
      expect(r.code).toBe(1);
      expect(r.stderr.trimEnd().split("\n")).toEqual([
        "error: push failed: Permission to acme/other denied",
        `hint: No installation of the code hosting app reaches acme/other: grant it access at ${CONFIGURE_ACME} (acme; open it in a browser)`,
      ]);
    }
    // The first run finds the mount and git's route: the interface's `/git/operation` is
    // asked once under the API's base (after the dashboard's 401 on the cloud mount).
    const first = urls(0).slice(0, mount === "cloud" ? 4 : 2);
    expect(first).toEqual([
      ...(mount === "cloud"
        ? [`POST /api/sessions/${SESSION}/git/operation`, "GET /api/cloud/auth/verify"]
        : []),
      `POST ${base}/sessions/${SESSION}/git/operation`,
      `POST ${base}/sessions/${SESSION}/git`,
    ]);
    // Later runs remember both: straight to the route that answered, and the record and the
    // code hosting app under the same base, never at the dashboard's path.
    for (const [i, r] of runs.entries()) {
      if (i === 0) continue;
      const seen = urls(r.from, runs[i + 1]?.from);
      expect(seen[0]).toBe(`POST ${base}/sessions/${SESSION}/git`);
      expect([...seen.slice(1)].sort()).toEqual([
        `GET ${base}/github-app/installations`,
        `GET ${base}/github-app/repos`,
        `GET ${base}/sessions/${SESSION}`,
      ]);
    }
  });
});

describe("one client, several git actions", () => {
  it("tries the interface's git path once, then only the route that answered", async () => {
    const s = await documentedService("interface");
    try {
      const c = new ApiClient({ baseUrl: s.url, apiKey: KEY, maxAttempts: 1 });
      for (let i = 0; i < 3; i++) {
        const r = await c.git(SESSION, { kind: "push" });
        expect(r.ok).toBe(false);
      }
      expect(s.seen.map((x) => x.url)).toEqual([
        `/api/sessions/${SESSION}/git/operation`,
        `/api/sessions/${SESSION}/git`,
        `/api/sessions/${SESSION}/git`,
        `/api/sessions/${SESSION}/git`,
      ]);
      expect(c.transport.routes.formOf("git")).toBe(1);
    } finally {
      await s.close();
    }
  });
});
