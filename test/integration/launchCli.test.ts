import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { PROVISION_MS } from "../../src/server/launches.js";
import { ndjson, runCli, tempConfigHome } from "../helpers/cli.js";
import {
  ANNOUNCED_LIMITS,
  type ScriptedServer,
  startScriptedServer,
} from "../helpers/scriptedHttpServer.js";
import { onStderr } from "../helpers/simulatedClock.js";

/**
 * `new`, `rename`, `destroy` and the bulk forms of `pause`/`resume`, as the built binary runs
 * them: each launch option sent as documented, bad values refused with exit 2 and nothing
 * sent, --follow to the first prompt's completion and to its failure (the reference service
 * in its seeded manual-clock mode), and one failure among five not stopping the rest.
 */

const cfg = tempConfigHome();
let ref: ReferenceServer;
let scripted: ScriptedServer;

const KEY = "sk_test_0123456789abcdef0123456789";

beforeAll(async () => {
  ref = await startServer({
    seed: 3303,
    paceMs: 0,
    sessionCount: 12,
    clock: "manual",
    promptStepMs: 20,
    rateLimit: { limit: 100, windowMs: 60_000, burst: 20 },
  });
  scripted = await startScriptedServer();
  // A service of the documented shapes: verify, launch (201), rename (200).
  scripted.fallback((req: IncomingMessage, res: ServerResponse, body: string) => {
    const send = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json", ...ANNOUNCED_LIMITS });
      res.end(JSON.stringify(value));
    };
    if (req.url?.startsWith("/api/cloud/auth/verify")) {
      return send(200, {
        valid: true,
        key_id: "k1",
        name: "test",
        user_id: "usr_1",
        organization_id: null,
        tenant_id: "usr_1",
        role: null,
        scopes: ["sessions:read", "sessions:write", "sessions:prompt"],
        effective_scopes: ["sessions:read", "sessions:write", "sessions:prompt"],
        expires_at: null,
      });
    }
    if (req.method === "POST" && req.url === "/api/v0/sessions/launch") {
      return send(201, { id: "ses_launched1", state: "creating", message: "Agent launched." });
    }
    if (req.method === "PATCH" && req.url === "/api/sessions/ses_launched1/name") {
      return send(200, { id: "ses_launched1", ...(JSON.parse(body) as object) });
    }
    send(404, { detail: "Not Found" });
  });
});

afterAll(async () => {
  await scripted.close();
  await ref.close();
  cfg.cleanup();
});

const scriptedEnv = () => ({
  XDG_CONFIG_HOME: cfg.dir,
  AGENT_SESSIONS_BASE_URL: scripted.url,
  AGENT_SESSIONS_API_KEY: KEY,
  AGENT_SESSIONS_MAX_ATTEMPTS: "1",
});
const refEnv = (keyName = "owner") => ({
  XDG_CONFIG_HOME: cfg.dir,
  AGENT_SESSIONS_BASE_URL: ref.url,
  AGENT_SESSIONS_API_KEY: ref.key(keyName),
  AGENT_SESSIONS_MAX_ATTEMPTS: "4",
});

const launches = () =>
  scripted.seen.filter((s) => s.method === "POST" && s.url === "/api/v0/sessions/launch");

describe("new", () => {
  it("sends each option as documented, names the session, and prints the answer as JSON", async () => {
    scripted.seen.length = 0;
    const r = await runCli(
      [
        "new",
        "Build a REST API",
        "--repo",
        "demo/app",
        "--agent",
        "codex",
        "--model",
        "opus",
        "--template",
        "backend-service",
        "--plan",
        "--mode",
        "interactive",
        "--on-complete",
        "keep_alive",
        "--ttl",
        "90",
        "--prompt-timeout",
        "30",
        "--name",
        "API work",
        "--json",
      ],
      { env: scriptedEnv() },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      id: "ses_launched1",
      state: "creating",
      message: "Agent launched.",
      name: "API work",
    });
    const [launch] = launches();
    expect(JSON.parse(launch?.body ?? "")).toEqual({
      prompt: "Build a REST API",
      agent: "codex",
      model: "opus",
      template: "backend-service",
      mode: "interactive",
      plan_mode: true,
      on_complete: "keep_alive",
      ttl_minutes: 90,
      prompt_timeout_minutes: 30,
      github_repo: { full_name: "demo/app" },
    });
    expect(launch?.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
    const rename = scripted.seen.find((s) => s.method === "PATCH");
    expect(JSON.parse(rename?.body ?? "")).toEqual({ name: "API work" });
  });

  it("reads the prompt from stdin with -, and prints only the id", async () => {
    scripted.seen.length = 0;
    const r = await runCli(["new", "-"], { env: scriptedEnv(), input: "Fix the flaky test\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("ses_launched1\n");
    expect(JSON.parse(launches()[0]?.body ?? "")).toEqual({ prompt: "Fix the flaky test" });
  });

  it.each([
    [["go", "--ttl", "0"], "ttl_minutes must be from 1 to 1440"],
    [["go", "--ttl", "1441"], "ttl_minutes must be from 1 to 1440"],
    [["go", "--ttl", "ten"], "whole number"],
    [["go", "--prompt-timeout", "121"], "prompt_timeout_minutes must be from 1 to 120"],
    [
      ["go", "--agent", "cursor"],
      "agent must be one of claude-code, codex, github-copilot, opencode",
    ],
    [["go", "--model", "gpt-5"], "model must be one of"],
    [["go", "--template", "mobile"], "template must be one of"],
    [["go", "--mode", "auto"], "mode must be one of autopilot, interactive"],
    [["go", "--on-complete", "stop"], "on_complete must be one of pause, destroy, keep_alive"],
    [["go", "--repo", "just-a-name"], "OWNER/REPO"],
    [["go", "--name", "  "], "the name is empty"],
    [["   "], "the prompt is empty"],
  ])("new %j exits 2 with nothing sent", async (args, said) => {
    scripted.seen.length = 0;
    const r = await runCli(["new", ...args], { env: scriptedEnv() });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(said);
    expect(r.stderr).toMatch(/^error: Cannot launch: /m);
    expect(scripted.seen).toHaveLength(0);
  });

  it("--follow streams the session from creating to its first prompt's completion, exit 0", async () => {
    const r = await runCli(["new", "Write the release notes", "--follow", "--agent", "opencode"], {
      env: refEnv(),
      timeoutMs: 30_000,
      // Once the stream is live, the session provisions (the manual clock moves past it).
      onSpawn: onStderr(": live", 1, () => ref.clock.advance(PROVISION_MS)),
    });
    const id = r.stdout.split("\n")[0] as string;
    expect(id).toMatch(/^ses_/);
    expect(r.stderr).toContain(`${id}: the first prompt completed (session paused)`);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/running/);
    expect(r.stdout).toContain("the tests pass.");
    expect(ref.sessions().find((s) => s.id === id)?.state).toBe("paused");
  });

  it("--follow --json to a failure: the first prompt's error, exit 8 as prompt's", async () => {
    let id = "";
    const r = await runCli(["new", "Migrate the database", "--follow", "--json"], {
      env: refEnv(),
      timeoutMs: 30_000,
      onSpawn: (child) => {
        child.stdout?.on("data", (d: Buffer) => {
          if (id === "")
            id = (JSON.parse(d.toString().split("\n")[0] as string) as { id: string }).id;
        });
        onStderr('"status":"live"', 1, () => {
          ref.clock.advance(PROVISION_MS);
          // The sandbox fails while the agent works: the prompt ends in an error.
          ref.setState(id, "error");
        })(child);
      },
    });
    const lines = ndjson(r.stdout);
    expect(lines[0]).toMatchObject({ id, state: "creating" });
    expect(lines.at(-1)).toEqual({ session_id: id, first_prompt: "error", state: "error" });
    expect(r.stderr).toMatch(
      new RegExp(`^error: the first prompt of ${id} ended in an error`, "m"),
    );
    expect(r.code).toBe(8);
  });
});

describe("rename, destroy, and several sessions at once", () => {
  const active = () =>
    ref
      .sessions()
      .filter((s) => s.state === "active")
      .map((s) => s.id);

  it("rename prints the new name; an empty one exits 2", async () => {
    const [id] = active();
    const r = await runCli(["rename", id as string, "Auth rewrite"], { env: refEnv() });
    expect(r.stdout).toBe(`renamed ${id} to Auth rewrite\n`);
    expect(ref.sessions().find((s) => s.id === id)?.name).toBe("Auth rewrite");
    const bad = await runCli(["rename", id as string, ""], { env: refEnv() });
    expect(bad.code).toBe(2);
  });

  it("pause of five sessions, one of them gone: four paused, the failure named, exit 1", async () => {
    const ids = active().slice(0, 4);
    expect(ids).toHaveLength(4);
    const all = [ids[0], ids[1], "ses_gone0001", ids[2], ids[3]] as string[];
    const r = await runCli(["pause", ...all], { env: refEnv() });
    for (const id of ids) expect(r.stdout).toContain(`paused ${id}`);
    expect(r.stderr).toMatch(/^ses_gone0001: failed: .*not found/im);
    expect(r.stderr).toMatch(/^error: 1 of 5 sessions could not pause: ses_gone0001$/m);
    expect(r.code).toBe(1);
    for (const id of ids) expect(ref.sessions().find((s) => s.id === id)?.state).toBe("paused");
    const back = await runCli(["resume", ...ids, "--json"], { env: refEnv() });
    expect(back.code).toBe(0);
    const results = JSON.parse(back.stdout) as { session_id: string; ok: boolean }[];
    expect(results.map((x) => [x.session_id, x.ok])).toEqual(ids.map((id) => [id, true]));
  });

  it("destroy asks for --yes off a terminal (nothing sent), then destroys each", async () => {
    const ids = active().slice(0, 2) as string[];
    const before = ref.requestCounts().requests;
    const refused = await runCli(["destroy", ...ids], { env: refEnv() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("irreversible");
    expect(refused.stderr).toMatch(/^hint: Add --yes/m);
    expect(ref.requestCounts().requests).toBe(before);
    const member = await runCli(["destroy", ids[0] as string, "--yes"], { env: refEnv("member") });
    expect(member.code).toBe(4);
    expect(member.stderr).toContain("sessions:delete");
    const r = await runCli(["destroy", ...ids, "--yes"], { env: refEnv() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(ids.map((id) => `destroyed ${id}\n`).join(""));
    for (const id of ids) expect(ref.sessions().find((s) => s.id === id)?.state).toBe("destroyed");
  });
});
