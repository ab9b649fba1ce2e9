import { Agent } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, type ApiClientOptions } from "../../src/client/apiClient.js";
import { MissingScopeError } from "../../src/client/errors.js";
import {
  findRepo,
  type IntegrationsReport,
  installationFor,
  readIntegrations,
} from "../../src/client/integrations.js";
import { ServiceRoutes } from "../../src/client/routes.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { json, type ScriptedServer, startScriptedServer } from "../helpers/scriptedHttpServer.js";

// What the service can reach: the four integrations read against the reference service (each
// demo key sees what its role and scopes allow) and against scripted servers (absent,
// forbidden, failing alone, thousands of repositories, the other mount).

let server: ReferenceServer;
let agent: Agent;

beforeAll(async () => {
  server = await startServer({ paceMs: 0, sessionCount: 2, seed: 7 });
  agent = new Agent({ keepAliveTimeout: 2000 });
});

afterAll(async () => {
  await agent.close();
  await server.close();
});

function client(base: string, key: string, opts: Partial<ApiClientOptions> = {}): ApiClient {
  return new ApiClient({
    baseUrl: base,
    apiKey: key,
    dispatcher: agent,
    backoffBaseMs: 5,
    jitter: 0,
    maxAttempts: 2,
    timeoutMs: 10_000,
    routes: new ServiceRoutes(base, key, null),
    ...opts,
  });
}

const ref = (name: string) => client(server.url, server.key(name));

function ok<T>(p: { state: string; data?: T }): T {
  expect(p.state).toBe("ok");
  return p.data as T;
}

describe("the reference service's integrations", () => {
  it("the owner sees both installations, the repositories each reaches, and every part", async () => {
    const r = await readIntegrations(ref("owner"));
    const app = ok(r.app);
    expect(app.installations.map((g) => g.installation.account_login)).toEqual([
      "demo",
      "demo-owner",
    ]);
    const [org, personal] = app.installations;
    expect(org?.repos.map((x) => [x.full_name, x.default_branch])).toEqual([
      ["demo/app", "main"],
      ["demo/docs", "main"],
    ]);
    expect(org?.cut).toBeNull();
    expect(personal?.installation.is_personal).toBe(true);
    expect(personal?.repos).toEqual([]);
    expect(ok(r.token)).toMatchObject({ connected: true, username: "demo-owner" });
    expect(ok(r.issueTracker)[0]).toMatchObject({ rate_limit_per_hour: 15, enabled: true });
    const chat = ok(r.chat);
    expect(chat.service_account_health?.healthy).toBe(false);
    expect(chat.service_account_health?.issues).toHaveLength(1);
  });

  it("a member's token is disconnected; the member still reads the rest", async () => {
    const r = await readIntegrations(ref("member"));
    expect(ok(r.token)).toMatchObject({ connected: false });
    expect(ok(r.app).installations).toHaveLength(1);
    expect(r.issueTracker.state).toBe("ok");
  });

  it("a key without integrations:read gets every part forbidden, naming the scope", async () => {
    const r = await readIntegrations(ref("personal"));
    for (const p of [r.app, r.token, r.issueTracker, r.chat]) {
      expect(p.state).toBe("forbidden");
      if (p.state === "forbidden") expect(p.scope).toBe("integrations:read");
    }
  });

  it("an owner changes the launch limit and the default repository; a member may not", async () => {
    const owner = ref("owner");
    const answer = await owner.updateLinearIntegration({
      rate_limit_per_hour: 40,
      default_github_repo: "demo/docs",
    });
    expect(answer).toMatchObject({ rate_limit_per_hour: 40, default_github_repo: "demo/docs" });
    const again = await readIntegrations(owner);
    expect(ok(again.issueTracker)[0]).toMatchObject({
      rate_limit_per_hour: 40,
      default_github_repo: "demo/docs",
    });
    const refused = await ref("member")
      .updateLinearIntegration({ rate_limit_per_hour: 10 })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MissingScopeError);
    expect((refused as MissingScopeError).requiredScope).toBe("integrations:write");
    const outOfRange = await owner
      .updateLinearIntegration({ rate_limit_per_hour: 500 })
      .catch((e: unknown) => e);
    expect((outOfRange as Error).message).toMatch(/1 to 100/);
  });

  it("finds the installation to grant a repository it does not reach", async () => {
    const app = ok((await readIntegrations(ref("owner"))).app);
    expect(findRepo(app, "https://github.com/demo/app.git")?.repo.default_branch).toBe("main");
    expect(findRepo(app, "acme/other")).toBeNull();
    expect(installationFor(app, "demo/secret")?.configure_url).toBe(
      "https://github.com/organizations/demo/settings/installations/41000001",
    );
  });
});

describe("the cloud mount", () => {
  let cloud: ReferenceServer;
  beforeAll(async () => {
    cloud = await startServer({ paceMs: 0, sessionCount: 1, seed: 8, mount: "cloud" });
  });
  afterAll(() => cloud.close());

  it("the issue tracker and chat tool are found under /api/cloud/v1 and remembered", async () => {
    const c = client(cloud.url, cloud.key("admin"));
    const r = await readIntegrations(c);
    expect(r.issueTracker.state).toBe("ok");
    expect(r.chat.state).toBe("ok");
    expect(c.transport.routes.mountOf("v1")).toBe("cloud");
    const before = cloud.requestCounts().requests;
    await c.slackIntegration();
    expect(cloud.requestCounts().requests - before).toBe(1);
  });
});

describe("scripted services", () => {
  let s: ScriptedServer;
  afterEach(() => s?.close());

  const RATE = { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "90" };
  const INSTALLATION = {
    id: "inst_1",
    installation_id: 1,
    account_type: "Organization",
    account_login: "acme",
    configure_url: "https://github.com/organizations/acme/settings/installations/1",
    is_personal: false,
    created_at: "2026-01-01T00:00:00Z",
  };

  /** Answers by path; anything else is the framework's bare 404. */
  async function serve(routes: Record<string, (url: URL) => [number, unknown]>) {
    s = await startScriptedServer();
    s.fallback((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      const route = routes[url.pathname];
      const [status, body] = route ? route(url) : [404, { detail: "Not Found" }];
      json(status, body, RATE)(req, res, "", 0);
    });
    return s;
  }

  const full = (over: Partial<Record<string, (url: URL) => [number, unknown]>> = {}) => ({
    "/api/github-app/installations": () =>
      [200, { installations: [INSTALLATION], total: 1 }] as [number, unknown],
    "/api/github-app/repos": () =>
      [
        200,
        {
          installations: [
            {
              installation: INSTALLATION,
              repos: [{ full_name: "acme/api", private: true, default_branch: "trunk" }],
              total_count: 1,
            },
          ],
        },
      ] as [number, unknown],
    "/api/github-app/user-token-status": () =>
      [200, { connected: true, username: "octo", scopes: "repo", has_installation: true }] as [
        number,
        unknown,
      ],
    "/api/v1/linear/integrations": () =>
      [200, { integrations: [{ id: "li", rate_limit_per_hour: 5 }] }] as [number, unknown],
    "/api/v1/slack/integration": () =>
      [
        200,
        {
          connected: true,
          connection_type: "manual",
          team_name: "Acme",
          service_account_health: { healthy: true, issues: [] },
        },
      ] as [number, unknown],
    ...over,
  });

  async function read(routes: Record<string, (url: URL) => [number, unknown]>) {
    await serve(routes);
    return readIntegrations(client(s.url, "ask_scripted_key_0123456789"));
  }

  it("each part absent (404) alone leaves the others whole", async () => {
    const parts: [string, keyof IntegrationsReport][] = [
      ["/api/github-app/installations", "app"],
      ["/api/github-app/user-token-status", "token"],
      ["/api/v1/linear/integrations", "issueTracker"],
      ["/api/v1/slack/integration", "chat"],
    ];
    for (const [path, name] of parts) {
      const routes = full({
        [path]: () => [404, { detail: `${name} not set up` }],
        ...(name === "app"
          ? { "/api/github-app/repos": () => [404, { detail: "no app" }] as [number, unknown] }
          : {}),
      });
      const r = await read(routes as Record<string, (url: URL) => [number, unknown]>);
      for (const [key, p] of Object.entries(r)) {
        expect(p.state, `${key} with ${path} missing`).toBe(key === name ? "absent" : "ok");
      }
      await s.close();
    }
  });

  it("a 403 on one part names its scope; a 500 on another fails it alone", async () => {
    const r = await read(
      full({
        "/api/v1/linear/integrations": () => [
          403,
          { detail: "Insufficient scope: requires integrations:read" },
        ],
        "/api/v1/slack/integration": () => [500, { detail: "slack is down" }],
      }),
    );
    expect(r.issueTracker).toMatchObject({ state: "forbidden", scope: "integrations:read" });
    expect(r.chat.state).toBe("error");
    expect(r.app.state).toBe("ok");
    expect(r.token.state).toBe("ok");
  });

  it("a list of thousands of repositories is paged, bounded, and said to be cut", async () => {
    const TOTAL = 5000;
    const repo = (i: number) => ({
      full_name: `acme/r${i}`,
      private: false,
      default_branch: "main",
    });
    const r = await read(
      full({
        "/api/github-app/repos": (url) => {
          const per = Number(url.searchParams.get("per_page"));
          return [
            200,
            {
              installations: [
                {
                  installation: INSTALLATION,
                  repos: Array.from({ length: per }, (_, i) => repo(i)),
                  total_count: TOTAL,
                },
              ],
            },
          ];
        },
        "/api/github-app/installations/inst_1/repos": (url) => {
          const page = Number(url.searchParams.get("page"));
          const per = Number(url.searchParams.get("per_page"));
          const from = (page - 1) * per;
          return [
            200,
            {
              repos: Array.from({ length: per }, (_, i) => repo(from + i)),
              total_count: TOTAL,
              page,
              per_page: per,
              has_next: from + per < TOTAL,
            },
          ];
        },
      }),
    );
    const g = ok(r.app).installations[0];
    expect(g?.repos).toHaveLength(1000);
    expect(g?.total).toBe(TOTAL);
    expect(g?.cut).toMatch(/limit of 1000/);
    // Ten pages of a hundred, no more.
    expect(s.seen.filter((x) => x.url.includes("/installations/inst_1/repos"))).toHaveLength(9);
  });

  it("an installation without repositories is listed with none", async () => {
    const r = await read(
      full({
        "/api/github-app/repos": () => [
          200,
          { installations: [{ installation: INSTALLATION, repos: [], total_count: 0 }] },
        ],
      }),
    );
    expect(ok(r.app).installations[0]).toMatchObject({ repos: [], total: 0, cut: null });
  });

  it("a service serving only /api/cloud/v1 is found there", async () => {
    const routes = full();
    const cloudRoutes: Record<string, (url: URL) => [number, unknown]> = {};
    for (const [path, fn] of Object.entries(routes)) {
      cloudRoutes[path.replace(/^\/api\/v1\//, "/api/cloud/v1/")] = fn as (
        url: URL,
      ) => [number, unknown];
    }
    const r = await read(cloudRoutes);
    expect(r.issueTracker.state).toBe("ok");
    expect(r.chat.state).toBe("ok");
    expect(s.seen.map((x) => new URL(x.url, "http://x").pathname)).toContain(
      "/api/cloud/v1/slack/integration",
    );
  });
});
