import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { type ReferenceServer, type ServerOptions, startServer } from "../../src/server/index.js";
import { createAttentionStore } from "../../src/store/attention/attentionStore.js";
import { createSessionsStore, selectVisibleSessions } from "../../src/store/sessionsStore.js";
import { runCli, tempConfigHome } from "../helpers/cli.js";
import { json, type ScriptedServer, startScriptedServer } from "../helpers/scriptedHttpServer.js";
import { advanceUntil } from "../helpers/simulatedClock.js";
import { api } from "./serverTestUtils.js";

/**
 * The record the real service documents (github_repo, last_prompt, last_activity_at,
 * error_message, paused_at, prompt_count, total_cost_usd, preview_url, template,
 * agent_status) and its list filter (destroyed and error sessions only with
 * include_destroyed=true): the reference service sends and applies them; the client asks for
 * them and reads them whatever a server sends.
 */

const servers: ReferenceServer[] = [];
const scripted: ScriptedServer[] = [];
const cfg = tempConfigHome();

afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const s of scripted.splice(0)) await s.close();
});
afterAll(() => cfg.cleanup());

async function reference(opts: ServerOptions = {}): Promise<ReferenceServer> {
  const s = await startServer({ paceMs: 0, seed: 31, ...opts });
  servers.push(s);
  return s;
}

async function scriptedServer(): Promise<ScriptedServer> {
  const s = await startScriptedServer();
  scripted.push(s);
  return s;
}

const KEY = "sk_test_0123456789abcdef0123456789";

function env(baseUrl: string, key: string) {
  return {
    XDG_CONFIG_HOME: cfg.dir,
    XDG_CACHE_HOME: cfg.dir,
    AGENT_SESSIONS_BASE_URL: baseUrl,
    AGENT_SESSIONS_API_KEY: key,
    AGENT_SESSIONS_MAX_ATTEMPTS: "1",
  };
}

type Rec = Record<string, unknown>;

async function list(s: ReferenceServer, query = ""): Promise<{ sessions: Rec[]; total: number }> {
  const r = await api(s.url, `/api/sessions?limit=100${query}`, { key: s.key("member") });
  expect(r.status).toBe(200);
  return r.body as { sessions: Rec[]; total: number };
}

describe("reference service: the documented record", () => {
  it("sends every documented field with values a service would have", async () => {
    const s = await reference({ sessionCount: 15 });
    const { sessions } = await list(s, "&include_destroyed=true");
    expect(sessions).toHaveLength(15);
    for (const r of sessions) {
      for (const k of [
        "github_repo",
        "last_prompt",
        "last_activity_at",
        "error_message",
        "paused_at",
        "prompt_count",
        "total_cost_usd",
        "preview_url",
        "template",
        "agent_status",
      ]) {
        expect(r, `${r.id} ${k}`).toHaveProperty(k);
      }
      expect(typeof r.last_activity_at).toBe("string");
      expect(typeof r.prompt_count).toBe("number");
      expect(typeof r.total_cost_usd).toBe("number");
      // No clone yet: no github_repo (the repo it works on is `repo`).
      expect(r.github_repo).toBeNull();
      expect(r.paused_at !== null).toBe(r.state === "paused");
      expect(r.error_message !== null).toBe(r.state === "error");
      const prompt = r.last_prompt as Rec | null;
      if (prompt !== null) {
        expect(prompt.status).toBe(r.state === "error" ? "error" : "completed");
        expect(Date.parse(String(prompt.completed_at))).toBeGreaterThanOrEqual(
          Date.parse(String(prompt.started_at)),
        );
      }
      expect(["working", "idle", "awaiting_approval", null]).toContain(r.agent_status);
      if (r.state !== "active") expect(r.agent_status).toBeNull();
    }
    const web = sessions.find((r) => r.template_id === "tpl_node");
    expect(web?.template).toBe("Node.js 20");
    expect(String(web?.preview_url)).toMatch(/^https:\/\/.+\.preview\.invalid$/);
  });

  it("follows the session: pause, error, events, a clone", async () => {
    const s = await reference({ sessionCount: 2 });
    const id = s.sessionIds()[0] as string;
    const before = s.sessions()[0] as unknown as Rec;
    s.setState(id, "paused");
    let r = s.sessions()[0] as unknown as Rec;
    expect(Date.parse(String(r.paused_at))).toBeGreaterThan(0);
    expect(r.agent_status).toBeNull();
    s.setState(id, "active");
    expect((s.sessions()[0] as unknown as Rec).paused_at).toBeNull();
    s.setState(id, "error");
    r = s.sessions()[0] as unknown as Rec;
    expect(String(r.error_message)).not.toBe("");
    s.setState(id, "active");
    expect((s.sessions()[0] as unknown as Rec).error_message).toBeNull();
    // Any event is activity.
    await new Promise((done) => setTimeout(done, 5));
    s.emit(id, "process_output", { text: "hello\n" });
    r = s.sessions()[0] as unknown as Rec;
    expect(Date.parse(String(r.last_activity_at))).toBeGreaterThan(
      Date.parse(String(before.last_activity_at)),
    );
    // A clone names the repository as owner/repo.
    const client = new ApiClient({ baseUrl: s.url, apiKey: s.key("owner"), maxAttempts: 1 });
    await client.git(id, { kind: "clone", repoUrl: "https://github.com/demo/docs.git" });
    expect((s.sessions()[0] as unknown as Rec).github_repo).toBe("demo/docs");
    const read = await client.getSession(id);
    expect(read.github_repo).toBe("demo/docs");
  });

  it("the simulator runs prompts: counted, running then completed, costing as it goes", async () => {
    const s = await reference({ sessionCount: 3, paceMs: 5, seed: 7, clock: "manual" });
    const id = s.sessionIds()[0] as string;
    const first = s.sessions()[0] as unknown as Rec;
    const seen = new Set<string>();
    await advanceUntil(
      s,
      () => {
        const r = s.sessions().find((x) => x.id === id) as unknown as Rec;
        const p = r.last_prompt as Rec | null;
        if (p && r.state === "active") seen.add(`${p.status}/${r.agent_status}`);
        return seen.has("running/working") && [...seen].some((x) => x.startsWith("completed/"));
      },
      "a prompt that runs and completes",
      { stepMs: 5 },
    );
    const now = s.sessions().find((x) => x.id === id) as unknown as Rec;
    expect(Number(now.prompt_count)).toBeGreaterThan(Number(first.prompt_count));
    expect(Number(now.total_cost_usd)).toBeGreaterThan(Number(first.total_cost_usd));
  });
});

describe("reference service: destroyed and error sessions only when asked", () => {
  it("hides them unless include_destroyed=true; total counts what is listed", async () => {
    const s = await reference({ sessionCount: 15 });
    const hidden = s.sessions().filter((r) => r.state === "destroyed" || r.state === "error");
    expect(hidden).toHaveLength(2);
    const plain = await list(s);
    expect(plain.total).toBe(13);
    expect(plain.sessions.map((r) => r.state)).not.toContain("error");
    expect(plain.sessions.map((r) => r.state)).not.toContain("destroyed");
    for (const v of ["true", "1", "True"]) {
      expect((await list(s, `&include_destroyed=${v}`)).total).toBe(15);
    }
    expect((await list(s, "&include_destroyed=false")).total).toBe(13);
    // A state filter naming a hidden state finds nothing without it, as the service does.
    expect((await list(s, "&state=error")).total).toBe(0);
    expect((await list(s, "&state=error&include_destroyed=true")).total).toBe(1);
    // limit stays 1–100.
    const bad = await api(s.url, "/api/sessions?include_destroyed=maybe", { key: s.key("member") });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("include_destroyed");
    expect((await api(s.url, "/api/sessions?limit=101", { key: s.key("member") })).status).toBe(
      400,
    );
  });
});

describe("client: include_destroyed", () => {
  it("is sent only when asked, on every page of a walk", async () => {
    const srv = await scriptedServer();
    srv.fallback((req, res, _b, n) => {
      const offset = Number(new URL(req.url ?? "", "http://x").searchParams.get("offset") ?? 0);
      json(200, {
        sessions: [{ id: `ses_${offset}` }],
        total: 2,
        has_more: offset === 0,
      })(req, res, "", n);
    });
    const client = new ApiClient({ baseUrl: srv.url, apiKey: KEY, maxAttempts: 1 });
    await client.listSessions({ limit: 5 });
    await client.listSessions({ limit: 5, includeDestroyed: false });
    const pages = client.sessionPages({ limit: 1, includeDestroyed: true });
    for await (const _ of pages) {
      // every page
    }
    const queries = srv.seen.map((r) => new URL(r.url, "http://x").searchParams);
    expect(queries.map((q) => q.get("include_destroyed"))).toEqual([null, null, "true", "true"]);
    expect(queries[3]?.get("offset")).toBe("1");
  });

  it("the catalogue asks for them on every page, once; hiding them is a view, not a read", async () => {
    const srv = await scriptedServer();
    srv.fallback(
      json(200, {
        sessions: [
          { id: "ses_a", state: "active" },
          { id: "ses_d", state: "destroyed" },
        ],
        total: 2,
      }),
    );
    const client = new ApiClient({ baseUrl: srv.url, apiKey: KEY, maxAttempts: 1 });
    const store = createSessionsStore(client);
    await store.getState().load();
    expect(store.getState().includeDestroyed).toBe(false);
    const shown = () => selectVisibleSessions(store.getState()).map((x) => x.session_id);
    expect(shown()).toEqual(["ses_a"]);
    store.getState().setIncludeDestroyed(true);
    expect(shown().sort()).toEqual(["ses_a", "ses_d"]);
    await store.getState().refreshLive();
    const flags = srv.seen.map((r) =>
      new URL(r.url, "http://x").searchParams.get("include_destroyed"),
    );
    // One read for the load, one for the refresh; the toggle read nothing.
    expect(flags).toEqual(["true", "true"]);
  });

  it("a session that fails stays in the catalogue, hidden from the list's view: its error needs attention", async () => {
    const s = await reference({ sessionCount: 3 });
    const id = s.sessionIds()[1] as string;
    const client = new ApiClient({ baseUrl: s.url, apiKey: s.key("member"), maxAttempts: 1 });
    const sessions = createSessionsStore(client);
    await sessions.getState().load();
    const attention = createAttentionStore({ sessions });
    expect(sessions.getState().items.map((x) => x.session_id)).toContain(id);
    s.setState(id, "error");
    await sessions.getState().refreshLive();
    expect(selectVisibleSessions(sessions.getState()).map((x) => x.session_id)).not.toContain(id);
    expect(sessions.getState().byId[id]?.state).toBe("error");
    expect(attention.getState().items.map((i) => [i.sessionId, i.reason])).toContainEqual([
      id,
      "failed",
    ]);
    attention.dispose();
  });
});

describe("sessions: the documented record and filter on the command line", () => {
  let ref: ReferenceServer;
  beforeAll(async () => {
    ref = await startServer({ paceMs: 0, seed: 33, sessionCount: 15 });
  });
  afterAll(async () => {
    await ref.close();
  });
  const refEnv = () => env(ref.url, ref.key("member"));

  it("lists what the service shows, says what it hides, and --include-destroyed lists all", async () => {
    const r = await runCli(["sessions", "--wide"], { env: refEnv() });
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split("\n")).toHaveLength(1 + 13);
    expect(r.stderr).toBe(
      "13 sessions · destroyed and error sessions hidden (--include-destroyed lists them)\n",
    );
    const header = r.stdout.split("\n")[0] ?? "";
    expect(header).toMatch(/\bREPO\s+LAST ACTIVITY\s+UPDATED\b/);
    const all = await runCli(
      ["sessions", "--include-destroyed", "--all", "--limit", "4", "--wide"],
      {
        env: refEnv(),
      },
    );
    expect(all.code).toBe(0);
    expect(all.stdout.trimEnd().split("\n")).toHaveLength(1 + 15);
    expect(all.stdout).toMatch(/\terror\t/);
    expect(all.stdout).toMatch(/\tdestroyed\t/);
    expect(all.stderr).toBe("15 sessions\n");
    // Asking for a hidden state asks for hidden sessions.
    const errored = await runCli(["sessions", "--state", "error", "--json"], { env: refEnv() });
    expect((JSON.parse(errored.stdout) as Rec[]).map((x) => x.state)).toEqual(["error"]);
  });

  it("--json passes records through as sent, fields of any type; the table reads what it can", async () => {
    const srv = await scriptedServer();
    const records = [
      {
        id: "ses_full",
        name: "Full",
        state: "active",
        github_repo: "acme/web",
        repo: "demo/app",
        last_activity_at: "2030-01-01T11:57:00Z",
        prompt_count: "12",
        total_cost_usd: 0.42,
        last_prompt: { status: "completed" },
      },
      { id: "ses_bare", state: "paused" },
      {
        id: "ses_odd",
        state: "active",
        github_repo: 5,
        last_activity_at: 1_893_499_020,
        prompt_count: { n: 1 },
        last_prompt: "done",
      },
    ];
    srv.fallback(json(200, { sessions: records, total: 3, has_more: false }));
    const j = await runCli(["sessions", "--json"], { env: env(srv.url, KEY) });
    expect(j.code).toBe(0);
    const back = JSON.parse(j.stdout) as Rec[];
    expect(back.map(({ session_id: _, ...rest }) => rest)).toEqual(records);
    const t = await runCli(["sessions", "--include-destroyed", "--wide"], {
      env: env(srv.url, KEY),
    });
    expect(t.code).toBe(0);
    const lines = t.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^SESSION\s+STATE\s+NAME\s+REPO\s+LAST ACTIVITY\s*$/);
    expect(lines.find((l) => l.startsWith("ses_full"))).toMatch(/acme\/web\s+2030-01-01T11:57:00Z/);
    // An epoch number is written as a time; a repository of the wrong type is left out.
    expect(lines.find((l) => l.startsWith("ses_odd"))).toMatch(
      /ses_odd\s+active\s+2030-01-01T11:57:00\.000Z/,
    );
    expect(
      new URL(srv.seen.at(-1)?.url ?? "", "http://x").searchParams.get("include_destroyed"),
    ).toBe("true");
    expect(t.stderr).toBe("3 sessions\n");
  });
});
