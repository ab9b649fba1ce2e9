import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { InvalidKeyError } from "../../src/client/errors.js";
import { subscribeToSession } from "../../src/client/eventStream.js";
import { type RememberedService, ServiceRoutes } from "../../src/client/routes.js";
import { Transport } from "../../src/client/transport.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { runCli, tempConfigHome } from "../helpers/cli.js";
import { json, type ScriptedServer, startScriptedServer } from "../helpers/scriptedHttpServer.js";

/** The real service's documented limits. */
const LIMITS = { limit: 100, windowMs: 60_000, burst: 20 };

let cloud: ReferenceServer;
let plain: ReferenceServer;
const cloudLog: string[] = [];
const plainLog: string[] = [];

beforeAll(async () => {
  [cloud, plain] = await Promise.all([
    startServer({
      seed: 7,
      paceMs: 0,
      mount: "cloud",
      rateLimit: LIMITS,
      log: (l) => cloudLog.push(l),
    }),
    startServer({ seed: 8, paceMs: 0, rateLimit: LIMITS, log: (l) => plainLog.push(l) }),
  ]);
});
const temps: { cleanup: () => void }[] = [];
afterAll(async () => {
  await Promise.all([cloud.close(), plain.close()]);
  for (const t of temps) t.cleanup();
});

/** A throwaway folder (a cache home), removed after the file. */
function tempDir(): string {
  const t = tempConfigHome();
  temps.push(t);
  return t.dir;
}

/** A client whose routes know nothing yet, or what `remembered` says (no cache file). */
function client(
  baseUrl: string,
  apiKey: string,
  remembered?: RememberedService,
): { client: ApiClient; routes: ServiceRoutes } {
  const store = remembered ? { load: () => remembered, save: () => {} } : null;
  const routes = new ServiceRoutes(baseUrl, apiKey, store);
  return {
    client: new ApiClient({
      baseUrl,
      apiKey,
      transport: new Transport({ baseUrl, apiKey, routes }),
    }),
    routes,
  };
}

/** "GET /path status" of the log lines since `from`. */
const paths = (log: string[], from: number) =>
  log.slice(from).map((l) => l.split(" ").slice(0, 3).join(" "));

describe("the reference service's cloud mount", () => {
  it("serves session routes only under /api/cloud; /api/sessions answers a good key 401", async () => {
    const key = cloud.key("owner");
    const auth = { authorization: `Bearer ${key}` };
    const dash = await fetch(`${cloud.url}/api/sessions`, { headers: auth });
    expect(dash.status).toBe(401);
    const ok = await fetch(`${cloud.url}/api/cloud/sessions?limit=1`, { headers: auth });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-ratelimit-limit")).toBe("100");
    const id = cloud.sessionIds()[0] as string;
    expect((await fetch(`${cloud.url}/api/cloud/sessions/${id}`, { headers: auth })).status).toBe(
      200,
    );
    // The default mount has no /api/cloud/sessions list.
    const none = await fetch(`${plain.url}/api/cloud/sessions`, {
      headers: { authorization: `Bearer ${plain.key("owner")}` },
    });
    expect(none.status).toBe(404);
  });
});

describe("finding the mount", () => {
  it("a 401 on the dashboard path after the key checks out moves to /api/cloud, once", async () => {
    const { client: c, routes } = client(cloud.url, cloud.key("member"));
    const from = cloudLog.length;
    const page = await c.listSessions({ limit: 5 });
    expect(page.sessions.length).toBeGreaterThan(0);
    // Nothing verified the key yet: the 401 is checked with verify before moving.
    expect(paths(cloudLog, from)).toEqual([
      "GET /api/sessions 401",
      "GET /api/cloud/auth/verify 200",
      "GET /api/cloud/sessions 200",
    ]);
    expect(routes.mountOf("sessions")).toBe("cloud");
    const again = cloudLog.length;
    await c.getSession(page.sessions[0]?.session_id as string);
    await c.listSessions({ limit: 5 });
    expect(paths(cloudLog, again).map((l) => l.split(" ")[1])).toEqual([
      `/api/cloud/sessions/${page.sessions[0]?.session_id}`,
      "/api/cloud/sessions",
    ]);
  });

  it("right after verify, the 401 needs no second check", async () => {
    const { client: c } = client(cloud.url, cloud.key("admin"));
    await c.verify();
    const from = cloudLog.length;
    await c.listSessions({ limit: 1 });
    expect(paths(cloudLog, from)).toEqual(["GET /api/sessions 401", "GET /api/cloud/sessions 200"]);
  });

  it("a bad key still says the key is bad", async () => {
    const { client: c } = client(cloud.url, "sk_not_a_real_key_000000000000");
    await expect(c.listSessions()).rejects.toBeInstanceOf(InvalidKeyError);
  });

  it("a base URL ending in /api/cloud never doubles the prefix and needs no probe", async () => {
    const { client: c } = client(`${cloud.url}/api/cloud`, cloud.key("owner"));
    const from = cloudLog.length;
    await c.listSessions({ limit: 1 });
    await c.verify();
    expect(paths(cloudLog, from)).toEqual([
      "GET /api/cloud/sessions 200",
      "GET /api/cloud/auth/verify 200",
    ]);
  });

  it("a remembered mount that no longer answers goes back to the interface's", async () => {
    const { client: c, routes } = client(plain.url, plain.key("owner"), { mount: "cloud" });
    const from = plainLog.length;
    await c.listSessions({ limit: 1 });
    expect(paths(plainLog, from)).toEqual(["GET /api/cloud/sessions 404", "GET /api/sessions 200"]);
    expect(routes.mountOf("sessions")).toBe("interface");
  });

  it("a stream opens where the client learned, through the client's transport", async () => {
    const { client: c } = client(cloud.url, cloud.key("owner"));
    await c.listSessions({ limit: 1 });
    const id = cloud.sessionIds()[1] as string;
    const seen: string[] = [];
    const sub = subscribeToSession({
      config: { baseUrl: cloud.url, apiKey: cloud.key("owner") },
      transport: c.transport,
      sessionId: id,
      onEvent: (e) => seen.push(e.kind),
    });
    try {
      const deadline = Date.now() + 5000;
      while (sub.status.state !== "live" && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(sub.status.state).toBe("live");
    } finally {
      sub.close();
    }
  });
});

describe("the CLI remembers what it found", () => {
  const cfg = tempConfigHome();
  const cache = tempConfigHome();
  afterAll(() => {
    cfg.cleanup();
    cache.cleanup();
  });
  const env = (key: string, extra: Record<string, string> = {}) => ({
    XDG_CONFIG_HOME: cfg.dir,
    XDG_CACHE_HOME: cache.dir,
    AGENT_SESSIONS_BASE_URL: cloud.url,
    AGENT_SESSIONS_API_KEY: key,
    AGENT_SESSIONS_MAX_ATTEMPTS: "1",
    ...extra,
  });

  it("the second run makes no probing request; whoami --verbose names the routes", async () => {
    const key = cloud.key("member");
    const first = cloudLog.length;
    const r1 = await runCli(["sessions", "--limit", "3"], { env: env(key) });
    expect(r1.stderr).not.toMatch(/^error/m);
    expect(r1.code).toBe(0);
    expect(paths(cloudLog, first)).toContain("GET /api/sessions 401");
    const file = join(cache.dir, "agent-sessions", "services.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(key);
    expect(JSON.parse(text).services[cloud.url].mount).toBe("cloud");

    const second = cloudLog.length;
    const r2 = await runCli(["sessions", "--limit", "3"], { env: env(key) });
    expect(r2.code).toBe(0);
    expect(paths(cloudLog, second)).toEqual(["GET /api/cloud/sessions 200"]);

    const who = await runCli(["whoami", "--verbose"], { env: env(key) });
    expect(who.code).toBe(0);
    expect(who.stdout).toMatch(/sessions at\s+\/api\/cloud\/sessions/);
    expect(who.stdout).toMatch(/events at\s+\/api\/cloud\/sessions\/\{id\}\/events/);
    // The code hosting app goes under the same mount, never to the dashboard's path.
    expect(who.stdout).toMatch(/code hosting at\s+\/api\/cloud\/github-app\/installations/);
  });

  it("a cache file of the earlier version (one entry per family) is read without a probe", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "agent-sessions"), { recursive: true });
    const entry = { sessions: "cloud", events: "cloud", integrations: "cloud" };
    writeFileSync(
      join(dir, "agent-sessions", "services.json"),
      JSON.stringify({ version: 1, services: { [cloud.url]: entry } }),
      { mode: 0o600 },
    );
    const from = cloudLog.length;
    const r = await runCli(["integrations"], {
      env: env(cloud.key("owner"), { XDG_CACHE_HOME: dir }),
    });
    expect(r.code).toBe(0);
    const seen = paths(cloudLog, from);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((l) => / \/api\/cloud\/\S+ 200$/.test(l))).toBe(true);
  });

  it("a bad key on the cloud mount still says the key is bad", async () => {
    const r = await runCli(["sessions"], {
      env: env("sk_bad_000000000000000000000000", { XDG_CACHE_HOME: tempDir() }),
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/key/i);
    expect(r.stderr).not.toMatch(/not found/i);
  });
});

describe("the organization header", () => {
  let s: ScriptedServer | null = null;
  afterEach(async () => {
    await s?.close();
    s = null;
  });
  const cfg = tempConfigHome();
  afterAll(() => cfg.cleanup());

  /** A service whose verify answers with this organization; every request is kept. */
  async function service(org: string | null): Promise<ScriptedServer> {
    s = await startScriptedServer();
    const srv = s;
    srv.fallback((req, res, body, n) => {
      const limits = { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "99" };
      if (req.url === "/api/cloud/auth/verify") {
        return json(
          200,
          {
            valid: true,
            key_id: "k1",
            name: "ci",
            user_id: "usr_1",
            organization_id: org,
            tenant_id: org ?? "usr_1",
            role: org ? "member" : null,
            scopes: ["sessions:read"],
            effective_scopes: ["sessions:read"],
            expires_at: null,
          },
          limits,
        )(req, res, body, n);
      }
      if (req.url === "/api/v1/me") {
        return json(200, { tenant_id: "t", principal_id: "usr_1", scopes: [] }, limits)(
          req,
          res,
          body,
          n,
        );
      }
      const sent = req.headers["x-organization-id"];
      if (sent !== undefined && sent !== org) {
        return json(403, { detail: `Organization mismatch: not ${sent}` }, limits)(
          req,
          res,
          body,
          n,
        );
      }
      json(200, { sessions: [], total: 0, has_more: false }, limits)(req, res, body, n);
    });
    return srv;
  }

  const env = (url: string, extra: Record<string, string> = {}) => ({
    XDG_CONFIG_HOME: cfg.dir,
    XDG_CACHE_HOME: tempDir(),
    AGENT_SESSIONS_BASE_URL: url,
    AGENT_SESSIONS_API_KEY: "sk_test_org_0123456789abcdef0123",
    AGENT_SESSIONS_MAX_ATTEMPTS: "1",
    ...extra,
  });
  const listHeaders = (srv: ScriptedServer) =>
    srv.seen
      .filter((x) => x.url.startsWith("/api/sessions"))
      .map((x) => x.headers["x-organization-id"]);

  it("an organization key sends its organization, remembered from verify; --org overrides", async () => {
    const srv = await service("org_key");
    const e = env(srv.url);
    const who = await runCli(["whoami"], { env: e });
    expect(who.code).toBe(0);
    expect(who.stdout).toMatch(/acting in\s+org_key \(X-Organization-Id, the key's own\)/);
    expect((await runCli(["sessions"], { env: e })).code).toBe(0);
    // A later run: no verify, and the header is the key's organization.
    const before = srv.seen.length;
    expect((await runCli(["sessions"], { env: e })).code).toBe(0);
    expect(srv.seen.slice(before).map((x) => x.url.split("?")[0])).toEqual(["/api/sessions"]);
    expect(listHeaders(srv)).toEqual(["org_key", "org_key"]);

    const other = await runCli(["--org", "org_flag", "sessions"], { env: e });
    expect(other.code).toBe(4);
    expect(other.stderr).toMatch(/sent X-Organization-Id org_flag, --org/);
    expect(srv.seen.at(-1)?.headers["x-organization-id"]).toBe("org_flag");
  });

  it("a personal key sends none", async () => {
    const srv = await service(null);
    const e = env(srv.url);
    expect((await runCli(["whoami"], { env: e })).code).toBe(0);
    expect((await runCli(["sessions"], { env: e })).code).toBe(0);
    expect(srv.seen.every((x) => x.headers["x-organization-id"] === undefined)).toBe(true);
  });

  it("a 403 about the organization says what was sent and from where", async () => {
    const srv = await service("org_key");
    const e = env(srv.url, { AGENT_SESSIONS_ORG: "org_env" });
    const r = await runCli(["sessions"], { env: e });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      /error: Organization mismatch: not org_env \(sent X-Organization-Id org_env, AGENT_SESSIONS_ORG\)/,
    );
  });

  it("against the reference service: org keys act in their organization, personal keys in none", async () => {
    const e = (name: string) => ({
      XDG_CONFIG_HOME: cfg.dir,
      XDG_CACHE_HOME: tempDir(),
      AGENT_SESSIONS_BASE_URL: plain.url,
      AGENT_SESSIONS_API_KEY: plain.key(name),
    });
    for (const name of ["owner", "member", "personal"]) {
      const env1 = e(name);
      const who = await runCli(["whoami"], { env: env1 });
      expect(who.code, name).toBe(0);
      if (name === "personal") expect(who.stdout).not.toMatch(/acting in/);
      else expect(who.stdout).toMatch(/acting in\s+\S+ \(X-Organization-Id, the key's own\)/);
      const list = await runCli(["sessions", "--limit", "2"], { env: env1 });
      expect(list.code, `${name}: ${list.stderr}`).toBe(0);
    }
    const mismatch = await runCli(["--org", "org_elsewhere", "sessions"], {
      env: e("member"),
    });
    expect(mismatch.code).toBe(4);
    expect(mismatch.stderr).toMatch(/sent X-Organization-Id org_elsewhere, --org/);
  });
});
