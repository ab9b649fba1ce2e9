import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { runCli, serviceEnv, tempConfigHome } from "../helpers/cli.js";
import {
  ANNOUNCED_LIMITS,
  json,
  type Responder,
  type ScriptedServer,
  startScriptedServer,
} from "../helpers/scriptedHttpServer.js";

/**
 * The headless commands that act on a session (prompt, cancel, approvals, approve, reject,
 * pause, resume, start) and their documented exit codes, against the reference service and
 * scripted servers with the other documented shapes.
 */

const cfg = tempConfigHome();
let ref: ReferenceServer;
// A prompt here runs until it is cancelled: its answer steps wait on a clock no test moves.
// The tests of a prompt that is still running say so by the service's state, not by racing
// the answer's steps (two more CLI starts under load can take longer than a whole answer).
let held: ReferenceServer;
beforeAll(async () => {
  const opts = {
    seed: 2424,
    paceMs: 0,
    sessionCount: 14,
    demoApprovals: false,
    rateLimit: { limit: 100, windowMs: 60_000, burst: 20 },
  };
  // The prompts that run to their end here answer in nine steps 20 ms apart: what they
  // print is the test, not how long the agent takes (300 ms steps made each 2.7 s).
  [ref, held] = await Promise.all([
    startServer({ ...opts, promptStepMs: 20 }),
    startServer({ ...opts, promptStepMs: 300, clock: "manual", promptSteps: "clock" }),
  ]);
});
afterAll(async () => {
  await Promise.all([ref?.close(), held?.close()]);
  cfg.cleanup();
});

const KEY = "sk_test_0123456789abcdef0123456789";
const env = (url: string, key = KEY) => serviceEnv(cfg.dir, url, key);
// The reference service limits each key to 100 a minute, burst 20, and this file's commands
// share one key: a command that meets a 429 waits as the service says (Retry-After) and tries
// again, as it would for a user. The scripted servers' tests keep one attempt.
const refEnv = (keyName = "member", server = ref) => ({
  ...env(server.url, server.key(keyName)),
  AGENT_SESSIONS_MAX_ATTEMPTS: "4",
});

function active(n: number, server = ref): string {
  const s = server.sessions().filter((r) => r.state === "active")[n];
  if (!s) throw new Error("no active session");
  return s.id;
}

async function scripted(...responders: Responder[]): Promise<ScriptedServer> {
  const s = await startScriptedServer();
  s.reply(...responders);
  return s;
}

/** An event-stream answer written in pieces; `end: false` drops the connection instead. */
function sse(frames: string[], opts: { end?: boolean } = {}): Responder {
  return (_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream", ...ANNOUNCED_LIMITS });
    for (const f of frames) res.write(f);
    if (opts.end === false) setTimeout(() => res.socket?.destroy(), 30);
    else res.end();
  };
}

describe("prompt against the reference service", () => {
  it("streams the answer's text to stdout, tools one line each on stderr, and exits 0 on done", async () => {
    const id = active(0);
    const r = await runCli(["prompt", id, "Add input validation"], { env: refEnv() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('I\'ll look into "Add input validation".');
    expect(r.stdout).toContain("the tests pass.");
    expect(r.stderr).toMatch(/^\[tool\] read_file src\/index\.ts$/m);
    expect(r.stderr).toMatch(/^\[result\] export function main\(\) \{ \(\+2 lines\)$/m);
  });

  it("--json prints one object per item, ending with done; the prompt can come on stdin", async () => {
    const id = active(1);
    const r = await runCli(["prompt", id, "--json"], { env: refEnv(), input: "from stdin\n" });
    expect(r.code).toBe(0);
    const items = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; content: string });
    expect(items.at(-1)).toEqual({ type: "done", content: "" });
    expect(items[1]?.content).toContain("from stdin");
  });

  it("a prompt while one runs exits 10 and offers cancel; cancel says what it did; the first exits 9", async () => {
    const id = active(2, held);
    const e = refEnv("member", held);
    // It lives until the cancel below: through its own start and two more CLI runs.
    const first = runCli(["prompt", id, "long"], { env: e, timeoutMs: 45_000 });
    await expect.poll(() => held.promptRunning(id), { timeout: 10_000 }).toBe(true);
    const busy = await runCli(["prompt", id, "again"], { env: e });
    expect(busy.code).toBe(10);
    expect(busy.stderr).toMatch(/already running/);
    expect(busy.stderr).toContain(`agent-sessions cancel ${id}`);
    const cancel = await runCli(["cancel", id], { env: e });
    expect(cancel.code).toBe(0);
    expect(cancel.stdout).toContain(`cancelled the prompt running in ${id}`);
    const r = await first;
    expect(r.code).toBe(9);
    expect(r.stderr).toMatch(/cancelled/);
    const none = await runCli(["cancel", id, "--json"], { env: e });
    expect(JSON.parse(none.stdout)).toEqual({ session_id: id, cancelled: false });
  });

  it("Ctrl-C while the answer streams cancels the prompt on the service and exits 9", async () => {
    const id = active(6, held);
    let child: import("node:child_process").ChildProcess | null = null;
    const run = runCli(["prompt", id, "long work"], {
      env: refEnv("member", held),
      onSpawn: (c) => {
        child = c;
      },
    });
    await expect.poll(() => held.promptRunning(id), { timeout: 10_000 }).toBe(true);
    (child as import("node:child_process").ChildProcess | null)?.kill("SIGINT");
    const r = await run;
    expect(r.code, r.stderr).toBe(9);
    expect(r.stderr).toContain(`cancelled: the prompt in ${id} was cancelled`);
    expect(held.promptRunning(id)).toBe(false);
  });

  it("--no-wait returns once the prompt is accepted", async () => {
    const id = active(3);
    const r = await runCli(["prompt", id, "quick", "--no-wait"], { env: refEnv() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`prompt accepted by ${id}`);
    await expect.poll(() => ref.promptRunning(id), { timeout: 5000 }).toBe(false);
  });

  it("a key without sessions:prompt exits 4 naming the scope", async () => {
    const r = await runCli(["prompt", active(0), "hi"], { env: refEnv("listonly") });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("sessions:prompt");
  });
});

describe("bad input sends nothing (exit 2)", () => {
  it("an empty or oversized prompt, an unsafe approval id, a note over 512 characters", async () => {
    const s = await startScriptedServer();
    try {
      const e = env(s.url);
      const empty = await runCli(["prompt", "ses_a1", "   "], { env: e });
      expect(empty.code).toBe(2);
      expect(empty.stderr).toMatch(/error: Cannot send the prompt: the prompt is empty/);
      const long = await runCli(["prompt", "ses_a1"], { env: e, input: "x".repeat(100_001) });
      expect(long.code).toBe(2);
      expect(long.stderr).toMatch(/100,001 characters, more than the 100,000/);
      const unsafe = await runCli(["approve", "ses_a1", "../../verify"], { env: e });
      expect(unsafe.code).toBe(2);
      const note = await runCli(["reject", "ses_a1", "ap_1", "--note", "n".repeat(513)], {
        env: e,
      });
      expect(note.code).toBe(2);
      expect(note.stderr).toMatch(/513 characters, more than the 512/);
      const badSession = await runCli(["pause", "not-a-session"], { env: e });
      expect(badSession.code).toBe(2);
      expect(s.seen).toHaveLength(0);
    } finally {
      await s.close();
    }
  });
});

describe("prompt answers of other documented shapes", () => {
  const TEXT = (t: string) => `data: ${JSON.stringify({ type: "text", content: t })}\n\n`;

  it("reads items with event names, and sanitizes escape sequences in the answer", async () => {
    const s = await scripted(
      sse([
        `event: text\ndata: ${JSON.stringify({ type: "text", content: "Hello \u001b]52;c;cGF3bmVk\u0007world\u001b[2J" })}\n\n`,
        `event: tool_use\ndata: ${JSON.stringify({ content: "ls -la" })}\n\n`,
        `event: done\ndata: {}\n\n`,
      ]),
    );
    try {
      const r = await runCli(["prompt", "ses_a1", "hi"], { env: env(s.url) });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("Hello world\n");
      expect(r.stderr).toContain("[tool] ls -la");
      expect(s.seen[0]?.method).toBe("POST");
      expect(JSON.parse(s.seen[0]?.body ?? "{}")).toEqual({ prompt: "hi" });
    } finally {
      await s.close();
    }
  });

  it("an answer that drops halfway is said and exits 7, never silently cut", async () => {
    const s = await scripted(sse([TEXT("Working on it"), TEXT("...")], { end: false }));
    try {
      const r = await runCli(["prompt", "ses_a1", "hi"], { env: env(s.url) });
      expect(r.code).toBe(7);
      expect(r.stdout).toContain("Working on it...");
      expect(r.stderr).toMatch(/error: the answer was cut before it ended: .*\(2 items received\)/);
      expect(s.seen).toHaveLength(1);
      const j = await runCli(["prompt", "ses_a1", "hi", "--json"], {
        env: env((await scripted(sse([TEXT("a")]))).url),
      });
      expect(j.code).toBe(7);
      expect(j.stdout.trim().split("\n").at(-1)).toMatch(/"incomplete":true/);
    } finally {
      await s.close();
    }
  });

  it("an error item exits 8 with its words; a cancelled one exits 9; already_running exits 10", async () => {
    const s = await scripted(
      sse([TEXT("Trying"), `data: {"type":"error","content":"Sandbox crashed"}\n\n`]),
      sse([`data: {"type":"error","content":"Prompt cancelled by user"}\n\n`]),
      json(202, { status: "already_running" }, ANNOUNCED_LIMITS),
    );
    try {
      const a = await runCli(["prompt", "ses_a1", "x"], { env: env(s.url) });
      expect(a.code).toBe(8);
      expect(a.stderr).toContain("error: the agent's answer ended in an error: Sandbox crashed");
      const b = await runCli(["prompt", "ses_a1", "x"], { env: env(s.url) });
      expect(b.code).toBe(9);
      const c = await runCli(["prompt", "ses_a1", "x", "--json"], { env: env(s.url) });
      expect(c.code).toBe(10);
      expect(JSON.parse(c.stdout)).toEqual({ session_id: "ses_a1", status: "already_running" });
      // None of them was sent twice.
      expect(s.seen).toHaveLength(3);
    } finally {
      await s.close();
    }
  });

  it("a 500 on the prompt is not retried: the prompt may have reached the agent", async () => {
    const s = await scripted(json(500, { detail: "boom" }, ANNOUNCED_LIMITS));
    try {
      const r = await runCli(["prompt", "ses_a1", "x"], {
        env: { ...env(s.url), AGENT_SESSIONS_MAX_ATTEMPTS: "5" },
      });
      expect(r.code).toBe(1);
      expect(s.seen).toHaveLength(1);
    } finally {
      await s.close();
    }
  });
});

describe("approvals", () => {
  it("lists pending ones; approve says who decided; again is 409 with who and when; unknown is gone", async () => {
    const id = active(4);
    const a = ref.addApproval(id, { kind: "deploy", message: "Deploy to production?" });
    const list = await runCli(["approvals", id], { env: refEnv() });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^SESSION\s+APPROVAL\s+KIND\s+STATUS\s+NEEDS\s+SINCE\s+MESSAGE/);
    expect(list.stdout).toContain(a.id);
    expect(list.stdout).toContain("Deploy to production?");

    const ok = await runCli(["approve", id, a.id, "--note", "ship it"], { env: refEnv() });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      new RegExp(`${a.id}: approved by usr_\\w+ at \\S+ \\(note: ship it\\)`),
    );

    const again = await runCli(["reject", id, a.id], { env: refEnv("owner") });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /error: .* was already approved by usr_\w+ at \S+.*nothing was rejected/,
    );

    const gone = await runCli(["approve", id, "ap_missing"], { env: refEnv() });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/ap_missing is gone/);

    const all = await runCli(["approvals", "--json", "--all"], { env: refEnv() });
    expect(all.code).toBe(0);
    const rows = JSON.parse(all.stdout) as { id: string; status: string }[];
    expect(rows.find((r) => r.id === a.id)?.status).toBe("approved");
  });

  it("the role gate: a member is refused an admin's approval, in the UI's words (exit 4)", async () => {
    const id = active(4);
    const a = ref.addApproval(id, { required_role: "admin" });
    const r = await runCli(["approve", id, a.id], { env: refEnv() });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`error: ${a.id} needs the admin role (yours is member)`);
    expect(r.stderr).not.toContain("sessions:write");
    const w = await runCli(["approve", id, a.id], { env: refEnv("readonly") });
    expect(w.code).toBe(4);
    expect(w.stderr).toContain("sessions:write");
  });
});

describe("pause, resume, start", () => {
  it("answer with the documented lines and errors", async () => {
    const id = active(5);
    const p = await runCli(["pause", id], { env: refEnv() });
    expect(p.code).toBe(0);
    expect(p.stdout).toBe(`paused ${id} (Session paused successfully)\n`);
    // What the state does not allow is refused before anything is sent, with its own code.
    const again = await runCli(["pause", id], { env: refEnv() });
    expect(again.code).toBe(12);
    expect(again.stdout).toBe("");
    expect(again.stderr).toContain(
      `error: pause ${id}: the session is paused; pause applies to running or active sessions; nothing was sent`,
    );
    expect(again.stderr).toMatch(/^hint: .*sessions shows each session's state/m);
    const r = await runCli(["resume", id, "--json"], { env: refEnv() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id, message: "Session resumed successfully" });
    const resumed = ref.sessions().find((x) => x.id === id)?.state;
    const twice = await runCli(["resume", id], { env: refEnv() });
    expect(twice.code).toBe(12);
    expect(twice.stderr).toContain(
      `error: resume ${id}: the session is ${resumed}; resume applies to paused sessions; nothing was sent`,
    );
    expect(ref.sessions().find((x) => x.id === id)?.state).toBe(resumed);
    const s = await runCli(["start", id], { env: refEnv() });
    expect(s.stdout).toMatch(new RegExp(`^started ${id} preview https://`));

    const noScope = await runCli(["pause", id], { env: refEnv("readonly") });
    expect(noScope.code).toBe(4);
  });

  it("pause while a prompt runs is refused with the service's words; the prompt still ends 0", async () => {
    const id = active(4, held);
    const running = runCli(["prompt", id, "busy"], { env: refEnv("member", held) });
    await expect.poll(() => held.promptRunning(id), { timeout: 10_000 }).toBe(true);
    const busy = await runCli(["pause", id], { env: refEnv("member", held) });
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain("Cannot pause while a prompt is running");
    expect(busy.stderr).toMatch(/hint: A prompt is running in the session/);
    // The rest of the answer: its nine steps, 300 ms apart on the held service's clock.
    held.clock.advance(10 * 300);
    expect((await running).code).toBe(0);
  });

  it("503 still provisioning says try again, once (no retry loop); 410 says the session is gone", async () => {
    const s = await scripted(
      json(
        503,
        { detail: "Session is taking longer than expected to provision. Please try again." },
        ANNOUNCED_LIMITS,
      ),
      json(410, { detail: "Session is no longer available" }, ANNOUNCED_LIMITS),
    );
    try {
      const a = await runCli(["start", "ses_a1"], {
        env: { ...env(s.url), AGENT_SESSIONS_MAX_ATTEMPTS: "5" },
      });
      expect(a.code).toBe(1);
      expect(a.stderr).toMatch(/hint: The session is still being provisioned: try again/);
      expect(s.seen).toHaveLength(1);
      const b = await runCli(["start", "ses_a1"], { env: env(s.url) });
      expect(b.stderr).toMatch(/hint: The session is gone/);
    } finally {
      await s.close();
    }
  });
});
