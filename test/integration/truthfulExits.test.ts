import { afterAll, describe, expect, it } from "vitest";
import { runCli, tempConfigHome } from "../helpers/cli.js";
import {
  json,
  type Responder,
  type ScriptedServer,
  startScriptedServer,
} from "../helpers/scriptedHttpServer.js";

/**
 * Issue 31, items 4 and 5 and what a new user ran into: every documented exit is given for
 * every legal form of the answer that means it, a cut list says so (exit 7), refusals say
 * which thing refused, and bad arguments are refused before anything is sent. Each case runs
 * against a scripted loopback service, plain and --json.
 */

const cfg = tempConfigHome();
afterAll(() => cfg.cleanup());

const KEY = "sk_test_0123456789abcdef0123456789";
const RL = { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "99", "x-ratelimit-reset": "60" };
const env = (url: string) => ({
  XDG_CONFIG_HOME: cfg.dir,
  AGENT_SESSIONS_BASE_URL: url,
  AGENT_SESSIONS_API_KEY: KEY,
  AGENT_SESSIONS_MAX_ATTEMPTS: "1",
});

async function withServer(
  fallback: Responder,
  run: (s: ScriptedServer) => Promise<void>,
): Promise<void> {
  const s = await startScriptedServer();
  s.fallback(fallback);
  try {
    await run(s);
  } finally {
    await s.close();
  }
}

/** stderr is one `error:` line and at most one `hint:` line. */
function oneErrorOneHint(stderr: string): void {
  const lines = stderr.trimEnd().split("\n");
  expect(
    lines.filter((l) => l.startsWith("error: ")),
    stderr,
  ).toHaveLength(1);
  expect(lines.filter((l) => l.startsWith("hint: ")).length, stderr).toBeLessThanOrEqual(1);
  expect(stderr).not.toContain("run with --help");
}

describe("item 4: every form of 'a prompt already runs' exits 10 with the cancel hint", () => {
  const FORMS: [string, number, unknown][] = [
    ["202 status", 202, { status: "already_running" }],
    ["409 status", 409, { status: "already_running" }],
    ["409 detail token", 409, { detail: "already_running" }],
    [
      "409 structured detail",
      409,
      { detail: { error: "already_running", message: "A prompt is running" } },
    ],
    ["409 detail words", 409, { detail: "A prompt is already running in this session" }],
    ["409 error code", 409, { error: "ALREADY_RUNNING" }],
  ];
  for (const [name, status, body] of FORMS) {
    it(`${name}: plain and --json`, async () => {
      await withServer(json(status, body, RL), async (s) => {
        const plain = await runCli(["prompt", "ses_a1", "go"], { env: env(s.url) });
        expect(plain.code, plain.stderr).toBe(10);
        expect(plain.stdout).toBe("");
        expect(plain.stderr).toMatch(
          /^error: a prompt is already running in ses_a1; this one was not sent to the agent$/m,
        );
        expect(plain.stderr).toMatch(/^hint: .*agent-sessions cancel ses_a1$/m);
        expect(plain.stderr).not.toContain("current state does not allow");
        oneErrorOneHint(plain.stderr);
        const j = await runCli(["prompt", "ses_a1", "go", "--json"], { env: env(s.url) });
        expect(j.code).toBe(10);
        expect(JSON.parse(j.stdout)).toEqual({ session_id: "ses_a1", status: "already_running" });
        // Sent once each: never retried.
        expect(s.seen).toHaveLength(2);
      });
    });
  }

  it("a 409 that says something else stays exit 1 with the service's words", async () => {
    await withServer(json(409, { detail: "Session is being migrated" }, RL), async (s) => {
      const r = await runCli(["prompt", "ses_a1", "go"], { env: env(s.url) });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("Session is being migrated");
    });
  });
});

describe("usage errors: exit 2, nothing sent, one error line and one hint line", () => {
  const ANSWER = json(200, { sessions: [], total: 0, has_more: false }, RL);

  it("every enumerated option is checked before anything is sent (--state, --visibility)", async () => {
    await withServer(ANSWER, async (s) => {
      for (const args of [
        ["sessions", "--state", "bogus"],
        ["sessions", "--state", "bogus", "--json"],
        ["sessions", "--visibility", "public", "--all"],
        ["sessions", "--visibility", "public", "--json"],
      ]) {
        const r = await runCli(args, { env: env(s.url) });
        expect(r.code, args.join(" ")).toBe(2);
        expect(r.stdout, args.join(" ")).toBe("");
        expect(r.stderr).toMatch(
          /^error: option '--(state|visibility) <\w+>' argument '\w+' is invalid\. Allowed choices are /m,
        );
        expect(r.stderr).toMatch(/^hint: See agent-sessions sessions --help for usage\.$/m);
        oneErrorOneHint(r.stderr);
      }
      expect(s.seen).toHaveLength(0);
      // The documented values still go to the service.
      const ok = await runCli(["sessions", "--state", "paused", "--visibility", "team", "--json"], {
        env: env(s.url),
      });
      expect(ok.code).toBe(0);
      expect(s.seen.at(-1)?.url).toMatch(/state=paused/);
      expect(s.seen.at(-1)?.url).toMatch(/visibility=team/);
    });
  });

  it("usage errors end with one hint line, never '(run with --help for usage)'", async () => {
    for (const args of [
      ["sessions", "--bogus"],
      ["sessions", "--limit", "0"],
      ["approve"],
      ["git", "pus"],
      ["whoam"],
    ]) {
      const r = await runCli(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stdout).toBe("");
      oneErrorOneHint(r.stderr);
      expect(r.stderr.trimEnd().split("\n").at(-1), args.join(" ")).toMatch(/^hint: /);
    }
    const typo = await runCli(["git", "pus"]);
    expect(typo.stderr).toBe(
      "error: unknown command 'pus'\nhint: Did you mean push? (agent-sessions git --help lists them)\n",
    );
  });

  it("an unknown command is an error with or without --help, at any depth, with 'did you mean'", async () => {
    for (const [args, suggestion] of [
      [["nosuchcmd", "--help"], null],
      [["nosuchcmd"], null],
      [["whoam", "--help"], "whoami"],
      [["--profile", "x", "sesions", "-h"], "sessions"],
      [["git", "pus", "--help"], "push"],
      [["journal", "prun", "-h"], "prune"],
      [["integrations", "linaer", "--help"], "linear"],
      [["profiles", "nosuch", "--help"], null],
    ] as [string[], string | null][]) {
      const r = await runCli(args);
      const name = args.join(" ");
      expect(r.code, name).toBe(2);
      expect(r.stdout, name).toBe("");
      expect(r.stderr, name).toMatch(/^error: unknown command '\w+'$/m);
      if (suggestion) expect(r.stderr, name).toContain(`hint: Did you mean ${suggestion}?`);
      else expect(r.stderr, name).toMatch(/^hint: See agent-sessions( \w+)? --help for usage\.$/m);
      oneErrorOneHint(r.stderr);
    }
    // Help of a command that exists is still help (exit 0, stdout).
    const help = await runCli(["git", "push", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: agent-sessions git push/);
  });
});
