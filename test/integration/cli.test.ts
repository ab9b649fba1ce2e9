import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { type CliResult, ndjson, runCli, tempConfigHome } from "../helpers/cli.js";
import { hang, type ScriptedServer, startScriptedServer } from "../helpers/scriptedHttpServer.js";
import { advanceUntilEvents, onStderr } from "../helpers/simulatedClock.js";
import { api } from "./serverTestUtils.js";

let server: ReferenceServer;
const cfg = tempConfigHome();

/** A command against a service that never answers, started first and awaited last. */
let defaultTimeout: { server: ScriptedServer; run: Promise<CliResult> };

beforeAll(async () => {
  const silent = await startScriptedServer();
  silent.fallback(hang);
  defaultTimeout = {
    server: silent,
    run: runCli(["sessions"], {
      env: {
        XDG_CONFIG_HOME: cfg.dir,
        AGENT_SESSIONS_BASE_URL: silent.url,
        AGENT_SESSIONS_API_KEY: `ask_${"x".repeat(40)}`,
        AGENT_SESSIONS_MAX_ATTEMPTS: "1",
      },
      timeoutMs: 40_000,
    }),
  };
  // The sessions change only when a test advances the clock: never while a command reads.
  server = await startServer({
    seed: 7,
    paceMs: 20,
    heartbeatMs: 200,
    sessionCount: 5,
    clock: "manual",
  });
});
afterAll(async () => {
  await defaultTimeout.run.catch(() => {});
  await defaultTimeout.server.close();
  await server.close();
  cfg.cleanup();
});

function env(keyName: string | null, extra: Record<string, string> = {}) {
  return {
    XDG_CONFIG_HOME: cfg.dir,
    AGENT_SESSIONS_BASE_URL: server.url,
    ...(keyName ? { AGENT_SESSIONS_API_KEY: server.key(keyName) } : {}),
    ...extra,
  };
}

describe("headless commands", () => {
  it("whoami --json gives exactly what the service says about the key and the caller", async () => {
    // The service's own answers, read without the client, are the expected values.
    for (const name of ["owner", "demoted", "personal"]) {
      const key = server.key(name);
      const verify = (await api(server.url, "/api/cloud/auth/verify", { key })).body as Record<
        string,
        unknown
      >;
      const meAnswer = await api(server.url, "/api/v1/me", { key });
      const me = meAnswer.body as Record<string, unknown>;
      const limit = Number(meAnswer.headers.get("x-ratelimit-limit"));
      const remaining = Number(meAnswer.headers.get("x-ratelimit-remaining"));
      const stored = verify.scopes as string[];
      const effective = verify.effective_scopes as string[];
      const r = await runCli(["whoami", "--json"], { env: env(name) });
      expect(r.stderr, name).toBe("");
      expect(r.code, name).toBe(0);
      const who = JSON.parse(r.stdout) as Record<string, unknown>;
      expect(who, name).toEqual({
        key_id: verify.key_id,
        name: verify.name,
        user_id: verify.user_id,
        organization_id: verify.organization_id,
        tenant_id: verify.tenant_id,
        role: verify.role,
        scopes: stored,
        effective_scopes: effective,
        narrowed_scopes: stored.filter((sc) => !effective.includes(sc)),
        expires_at: verify.expires_at,
        principal_id: me.principal_id,
        email: me.email ?? null,
        org_name: me.org_name ?? null,
        api_key_name: me.api_key_name ?? null,
        identity: me,
        // An organization key acts in its own organization (none for a personal key).
        organization_header: verify.organization_id ?? null,
        organization_header_from: verify.organization_id ? "the key's own" : null,
        rate_limit: {
          limit,
          remaining: expect.any(Number),
          // snake_case, as every JSON this client writes; the time in ISO 8601.
          reset_seconds: expect.any(Number),
          observed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        },
        key_masked: `${key.slice(0, 4)}…${key.slice(-4)}`,
        key_source: "env",
        profile: "default",
        base_url: server.url,
      });
      if (name === "demoted") expect(who.narrowed_scopes).not.toEqual([]);
      // The CLI's verify and me come after ours, inside the key's 60 s window: the figures it
      // reports are the ones its last answer carried.
      const rate = who.rate_limit as { remaining: number; reset_seconds: number };
      expect([remaining - 1, remaining - 2], name).toContain(rate.remaining);
      expect(rate.reset_seconds, name).toBeGreaterThanOrEqual(0);
      expect(rate.reset_seconds, name).toBeLessThanOrEqual(61);
      // The expected values are real ones, not nulls that would match nulls.
      for (const field of ["key_id", "name", "user_id", "tenant_id", "principal_id"]) {
        expect(typeof who[field], `${name}: ${field}`).toBe("string");
      }
      expect(r.stdout).not.toContain(key);
    }
  });

  it("whoami --json says where the key came from, and which profile and base URL it belongs to", async () => {
    const home = tempConfigHome();
    try {
      const key = server.key("member");
      const login = await runCli(
        ["login", "--profile", "ci", "--base-url", server.url, "--insecure-storage"],
        { env: { XDG_CONFIG_HOME: home.dir }, input: `${key}\n` },
      );
      expect(login.code).toBe(0);
      const r = await runCli(["--profile", "ci", "whoami", "--json"], {
        env: { XDG_CONFIG_HOME: home.dir },
      });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        key_source: "insecure-file",
        profile: "ci",
        base_url: server.url,
        role: "member",
      });
    } finally {
      home.cleanup();
    }
  });

  it("whoami marks the scopes a demotion took away, and masks the key", async () => {
    const r = await runCli(["whoami"], { env: env("demoted") });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/narrowed by role\s+.*integrations:write/);
    const key = server.key("demoted");
    expect(r.stdout).not.toContain(key);
    expect(r.stdout).toContain(key.slice(-4));
  });

  it("whoami warns when the key expires within 7 days", async () => {
    const r = await runCli(["whoami"], { env: env("expiring") });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: this key expires in/);
  });

  it("an expired key exits 3 with the server's message and a hint", async () => {
    const r = await runCli(["whoami"], { env: env("expired") });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/error: .*expired/i);
    expect(r.stderr).toMatch(/hint: /);
    expect(r.stderr + r.stdout).not.toContain(server.key("expired"));
  });

  it("an unknown key exits 3", async () => {
    const r = await runCli(["sessions"], {
      env: { ...env(null), AGENT_SESSIONS_API_KEY: "ask_not_a_real_key_000000000000" },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/invalid/i);
    // Not "see whoami", which asks with the same key and fails the same way.
    expect(r.stderr).not.toContain("whoami");
    expect(r.stderr).toMatch(/hint: Log in again with a valid key/);
  });

  it("a base URL ending in /api is named as the cause, not the session id", async () => {
    for (const cmd of [["sessions"], ["whoami"]]) {
      const r = await runCli(cmd, {
        env: env("owner", { AGENT_SESSIONS_BASE_URL: `${server.url}/api` }),
      });
      expect(r.code, cmd[0]).toBe(1);
      expect(r.stderr, cmd[0]).toContain(
        `hint: The base URL ends in /api, which the client adds itself: use ${server.url}`,
      );
      expect(r.stderr, cmd[0]).not.toContain("session id");
    }
  });

  it("sessions lists a table, --json an array, --state filters, --all pages through", async () => {
    const table = await runCli(["sessions", "--wide"], { env: env("member") });
    expect(table.code).toBe(0);
    expect(table.stdout.split("\n")[0]).toMatch(/^SESSION\s+STATE\s+NAME\s+AGENT/);
    for (const id of server.sessionIds()) expect(table.stdout).toContain(id);

    server.setState(server.sessionIds()[0] as string, "paused");
    const paused = await runCli(["sessions", "--json", "--state", "paused"], {
      env: env("member"),
    });
    expect(paused.code).toBe(0);
    const rows = JSON.parse(paused.stdout) as { session_id: string; state: string }[];
    expect(rows.map((r) => r.session_id).sort()).toEqual(
      server
        .sessions()
        .filter((r) => r.state === "paused")
        .map((r) => r.id)
        .sort(),
    );
    expect(rows.every((s) => s.state === "paused")).toBe(true);

    // Every session once, in the service's order, read two at a time.
    const all = await runCli(
      ["sessions", "--json", "--all", "--limit", "2", "--include-destroyed"],
      {
        env: env("member"),
      },
    );
    expect(all.code).toBe(0);
    const ids = (JSON.parse(all.stdout) as { session_id: string }[]).map((s) => s.session_id);
    expect(ids).toEqual(server.sessionIds());

    const onePage = await runCli(["sessions", "--limit", "2"], { env: env("member") });
    // The note is for the person; stdout stays the table a script reads.
    expect(onePage.stderr).toMatch(
      /^\d+ sessions, 2 listed \(use --all, or --limit up to 100\) · destroyed and error sessions hidden \(--include-destroyed lists them\)$/m,
    );
    expect(onePage.stdout).not.toMatch(/listed|more sessions/);
    expect(onePage.stdout.trim().split("\n")).toHaveLength(3);
  });

  it("watch --json prints one object per event with session_id, event, id and data", async () => {
    const [a, b] = server.sessionIds() as [string, string];
    server.setState(a, "active");
    server.setState(b, "active");
    const r = await runCli(["watch", a, b, "--json", "--max-events", "12"], {
      env: env("member"),
      onSpawn: onStderr('"status":"live"', 2, () => advanceUntilEvents(server, [a, b], 12)),
    });
    expect(r.code).toBe(0);
    const events = ndjson(r.stdout);
    expect(events).toHaveLength(12);
    for (const e of events) {
      expect([a, b]).toContain(e.session_id);
      expect(typeof e.event).toBe("string");
      expect(e).toHaveProperty("id");
      expect(e).toHaveProperty("data");
    }
    expect(r.stderr).toMatch(/"status":"live"/);
  });

  it("watch survives the service dropping the stream: ids contiguous, none lost or repeated", async () => {
    const id = server.sessionIds()[2] as string;
    server.setState(id, "active");
    server.faults.set({ dropAfter: 5 });
    try {
      // The events are made at once; the stream is dropped every 5 and resumed from its id.
      const r = await runCli(["watch", id, "--json", "--max-events", "40"], {
        env: env("member"),
        timeoutMs: 20_000,
        onSpawn: onStderr('"status":"live"', 1, () => advanceUntilEvents(server, [id], 60)),
      });
      expect(r.code).toBe(0);
      const ids = ndjson(r.stdout)
        .filter((e) => e.event !== "heartbeat")
        .map((e) => Number(e.id));
      expect(ids.length).toBeGreaterThan(10);
      for (let i = 1; i < ids.length; i++) expect(ids[i]).toBe((ids[i - 1] as number) + 1);
      expect(r.stderr).toMatch(/"status":"reconnecting"/);
    } finally {
      server.faults.reset();
    }
  });

  it("watch prints sanitized human lines (no escape sequences from agent output)", async () => {
    const id = server.sessionIds()[3] as string;
    // The clock stands still: ours is the next event.
    const r = await runCli(["watch", id, "--max-events", "1"], {
      env: env("member"),
      onSpawn: (child) => {
        child.stderr?.on("data", (d: Buffer) => {
          if (d.toString().includes(`${id}: live`)) {
            server.emit(id, "process_output", {
              stream: "stdout",
              text: "ok \u001b]52;c;ZXZpbA==\u0007\u001b[2Jdone\u0007\n",
            });
          }
        });
      },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/[\u001b\u0007\u009b]/);
    expect(r.stdout).toMatch(/output +\[stdout\] ok done/);
  });

  it("watch of an unknown session stops with not found and exits non-zero", async () => {
    const r = await runCli(["watch", "ses_doesnotexist", "--json"], { env: env("member") });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/"status":"stopped"/);
  });

  it("watch without sessions:prompt stops at once with exit 4 naming the scope", async () => {
    const r = await runCli(["watch", server.sessionIds()[0] as string], { env: env("listonly") });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/stopped: .*sessions:prompt/);
    expect(r.stderr).not.toMatch(/reconnecting/);
  });

  it("git clone, branch, push and pr work end to end with --json", async () => {
    const id = server.sessionIds()[4] as string;
    const clone = await runCli(["git", "clone", id, "demo/app", "--json"], { env: env("owner") });
    expect(clone.stderr).toBe("");
    expect(clone.code).toBe(0);
    // --json prints the service's answer as sent: the documented clone answer.
    expect(JSON.parse(clone.stdout)).toMatchObject({
      session_id: id,
      repo_url: "demo/app",
      branch: "main",
    });

    const branch = await runCli(["git", "branch", id, "feature/cli-test"], { env: env("owner") });
    expect(branch.code).toBe(0);
    expect(branch.stdout).toMatch(/created branch feature\/cli-test/);

    const push = await runCli(["git", "push", id, "--json"], { env: env("owner") });
    expect(push.code).toBe(0);
    expect(JSON.parse(push.stdout)).toMatchObject({ operation: "push", success: true });

    const pr = await runCli(["git", "pr", id, "--title", "Add things", "--json"], {
      env: env("owner"),
    });
    expect(pr.code).toBe(0);
    expect(JSON.parse(pr.stdout).result).toMatchObject({
      title: "Add things",
      head: "feature/cli-test",
      base: "main",
      pr_number: 1,
    });

    // The same pull request again: it is open, so the hint does not ask for another name.
    const again = await runCli(["git", "pr", id, "--title", "Add things"], { env: env("owner") });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/error: .*already open/);
    expect(again.stderr).toContain("hint: That pull request is open already");
    expect(again.stderr).not.toContain("choose another name");
  });

  it("git with a key lacking sessions:write exits 4 naming the scope", async () => {
    const id = server.sessionIds()[4] as string;
    const r = await runCli(["git", "push", id], { env: env("readonly") });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/sessions:write/);
  });

  it("git clone of an unknown repository explains what is known", async () => {
    const id = server.sessionIds()[1] as string;
    const r = await runCli(["git", "clone", id, "nope/missing"], { env: env("owner") });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/demo\/app/);
  });

  it("demo --headless --max-events 5 prints five lines, none of them cut", async () => {
    const r = await runCli(["demo", "--headless", "--max-events", "5", "--pace-ms", "20"], {
      env: { XDG_CONFIG_HOME: cfg.dir },
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split("\n").filter((l) => l !== "");
    expect(lines).toHaveLength(5);
    for (const l of lines) expect(l).toMatch(/^\d\d:\d\d:\d\d ses_\S+ (prompt|file|output|state) /);
  });

  it("demo's default pace is calm (1.5 s between a session's events), and --pace-ms changes it", async () => {
    const r = await runCli(["demo", "--help"], { env: { XDG_CONFIG_HOME: cfg.dir } });
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/\s+/g, " ")).toMatch(
      /--pace-ms <ms> mean milliseconds between one session's simulated events .*\(default: 1500\)/,
    );
  });

  it("rate limited after retries exits 5", async () => {
    server.faults.set({
      failStatus: 429,
      failCount: Number.POSITIVE_INFINITY,
      failRetryAfter: "0",
    });
    try {
      const r = await runCli(["sessions"], {
        env: env("member", { AGENT_SESSIONS_MAX_ATTEMPTS: "3" }),
      });
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(/rate/i);
    } finally {
      server.faults.reset();
    }
  });

  it("an unreachable service exits 6", async () => {
    const r = await runCli(["sessions"], {
      env: {
        ...env("member"),
        AGENT_SESSIONS_BASE_URL: "http://127.0.0.1:9",
        AGENT_SESSIONS_MAX_ATTEMPTS: "2",
      },
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/hint: .*base URL/);
  });

  describe("a service that accepts the request and never answers", () => {
    let silent: ScriptedServer;
    beforeAll(async () => {
      silent = await startScriptedServer();
      silent.fallback(hang);
    });
    afterAll(async () => {
      await silent.close();
    });
    const silentEnv = (extra: Record<string, string> = {}) => ({
      ...env("member"),
      AGENT_SESSIONS_BASE_URL: silent.url,
      AGENT_SESSIONS_MAX_ATTEMPTS: "1",
      ...extra,
    });

    it("AGENT_SESSIONS_TIMEOUT_MS sets the per-request timeout", async () => {
      const r = await runCli(["sessions"], {
        env: silentEnv({ AGENT_SESSIONS_TIMEOUT_MS: "300" }),
      });
      expect(r.code).toBe(6);
      expect(r.stderr).toMatch(/no complete answer from .* within 300 ms$/m);
    });
  });

  it("usage errors exit 2; --version and --help exit 0; no key as an argument", async () => {
    expect((await runCli(["frobnicate"], { env: env("member") })).code).toBe(2);
    expect((await runCli(["watch", "not-a-session"], { env: env("member") })).code).toBe(2);
    expect((await runCli(["sessions", "--limit", "zero"], { env: env("member") })).code).toBe(2);
    expect((await runCli(["whoami", "--api-key", "x"], { env: env("member") })).code).toBe(2);
    const v = await runCli(["--version"]);
    expect(v.code).toBe(0);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const h = await runCli(["watch", "--help"]);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/--max-events/);
  });

  it("without a terminal, the bare command points to the headless commands and exits 2", async () => {
    const r = await runCli([], { env: env("member") });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/headless/);
  });

  // The documented default, with no AGENT_SESSIONS_TIMEOUT_MS: 15 s per request. The command
  // was started with the file, so its 15 s pass while the tests above run.
  it("a service that never answers: times out after 15 s by default and exits 6", async () => {
    const r = await defaultTimeout.run;
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(
      /^error: .*no complete answer from http:\/\/127\.0\.0\.1:\d+ within 15 s$/m,
    );
    expect(r.stderr).toMatch(/^hint: /m);
    expect(defaultTimeout.server.seen).toHaveLength(1);
  }, 45_000);
});
