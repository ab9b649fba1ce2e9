import { afterAll, describe, expect, it } from "vitest";
import { runCli, tempConfigHome } from "../helpers/cli.js";
import {
  ANNOUNCED_LIMITS,
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

/** Answers by method and path; anything else is a 404 the test would notice. */
function routes(table: Record<string, Responder>): Responder {
  return (req, res, body, n) => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    const r = table[`${req.method} ${path}`];
    if (r) r(req, res, body, n);
    else
      json(404, { detail: `no route ${req.method} ${path} in this test` }, ANNOUNCED_LIMITS)(
        req,
        res,
        body,
        n,
      );
  };
}

const MEMBER_KEY_INFO = {
  valid: true,
  key_id: "key_1",
  name: "ci",
  user_id: "usr_1",
  organization_id: "org_1",
  tenant_id: "org_1",
  role: "member",
  scopes: ["sessions:read", "sessions:write", "sessions:prompt"],
  effective_scopes: ["sessions:read", "sessions:write", "sessions:prompt"],
  expires_at: null,
};

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
      await withServer(json(status, body, ANNOUNCED_LIMITS), async (s) => {
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
    await withServer(
      json(409, { detail: "Session is being migrated" }, ANNOUNCED_LIMITS),
      async (s) => {
        const r = await runCli(["prompt", "ses_a1", "go"], { env: env(s.url) });
        expect(r.code).toBe(1);
        expect(r.stderr).toContain("Session is being migrated");
      },
    );
  });
});

describe("usage errors: exit 2, nothing sent, one error line and one hint line", () => {
  const ANSWER = json(200, { sessions: [], total: 0, has_more: false }, ANNOUNCED_LIMITS);

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

describe("approve: which refusal it was, said once", () => {
  const RESOLVE = "POST /api/sessions/ses_a1/approvals/ap_0001/resolve";

  it("a member on an approval needing admin: the role, from the role gate, exit 4 (not a scope)", async () => {
    await withServer(
      routes({
        // The service's own words may name nothing at all.
        [RESOLVE]: json(403, { detail: "Forbidden" }, ANNOUNCED_LIMITS),
        "GET /api/cloud/auth/verify": json(200, MEMBER_KEY_INFO, ANNOUNCED_LIMITS),
        "GET /api/sessions/ses_a1/approvals": json(
          200,
          [{ id: "ap_0001", kind: "deploy", required_role: "admin", status: "pending" }],
          ANNOUNCED_LIMITS,
        ),
      }),
      async (s) => {
        for (const extra of [[], ["--json"]]) {
          const r = await runCli(["approve", "ses_a1", "ap_0001", ...extra], { env: env(s.url) });
          expect(r.code, r.stderr).toBe(4);
          expect(r.stdout).toBe("");
          expect(r.stderr).toMatch(
            /^error: ap_0001 needs the admin role \(yours is member\); nothing was approved$/m,
          );
          expect(r.stderr).toMatch(/^hint: Ask someone with that role, or an organization admin/m);
          expect(r.stderr).not.toMatch(/scope|sessions:write/);
          oneErrorOneHint(r.stderr);
        }
        // Sent once per run: the refusal is not retried.
        expect(s.seen.filter((q) => q.method === "POST")).toHaveLength(2);
      },
    );
  });

  it("a key that lacks sessions:write is still told the scope", async () => {
    await withServer(
      routes({
        [RESOLVE]: json(
          403,
          { detail: "Insufficient scope: requires sessions:write" },
          ANNOUNCED_LIMITS,
        ),
        "GET /api/cloud/auth/verify": json(
          200,
          { ...MEMBER_KEY_INFO, effective_scopes: ["sessions:read"] },
          ANNOUNCED_LIMITS,
        ),
        "GET /api/sessions/ses_a1/approvals": json(
          200,
          [{ id: "ap_0001", required_role: "admin" }],
          ANNOUNCED_LIMITS,
        ),
      }),
      async (s) => {
        const r = await runCli(["approve", "ses_a1", "ap_0001"], { env: env(s.url) });
        expect(r.code).toBe(4);
        expect(r.stderr).toMatch(/^hint: .*sessions:write/m);
        expect(r.stderr).not.toContain("role");
        oneErrorOneHint(r.stderr);
      },
    );
  });

  it("a 403 that says 'requires the admin role' is about the role, not a scope called admin", async () => {
    await withServer(
      routes({
        "POST /api/sessions/ses_a1/pause": json(
          403,
          { detail: "Pausing requires the admin role" },
          ANNOUNCED_LIMITS,
        ),
      }),
      async (s) => {
        const r = await runCli(["pause", "ses_a1"], { env: env(s.url) });
        expect(r.code).toBe(4);
        expect(r.stderr).toMatch(/^error: Pausing requires the admin role$/m);
        expect(r.stderr).toMatch(/^hint: Your role in the organization does not allow this/m);
        expect(r.stderr).not.toMatch(/scopes include/);
      },
    );
  });

  it("approve ses_nosuch ap_0001: the session does not exist, not 'the approval is gone'", async () => {
    await withServer(
      routes({
        "POST /api/sessions/ses_nosuch/approvals/ap_0001/resolve": json(
          404,
          { detail: "Session ses_nosuch not found" },
          ANNOUNCED_LIMITS,
        ),
        "GET /api/sessions/ses_nosuch": json(
          404,
          { detail: "Session ses_nosuch not found" },
          ANNOUNCED_LIMITS,
        ),
        [RESOLVE]: json(404, { detail: "Approval ap_0001 not found" }, ANNOUNCED_LIMITS),
        "GET /api/sessions/ses_a1": json(200, { id: "ses_a1", state: "active" }, ANNOUNCED_LIMITS),
      }),
      async (s) => {
        for (const extra of [[], ["--json"]]) {
          const r = await runCli(["approve", "ses_nosuch", "ap_0001", ...extra], {
            env: env(s.url),
          });
          expect(r.code).toBe(1);
          expect(r.stdout).toBe("");
          expect(r.stderr).toMatch(
            /^error: session ses_nosuch does not exist \(or this key cannot see it\); nothing was approved$/m,
          );
          expect(r.stderr).toMatch(
            /^hint: Check the session id: agent-sessions sessions lists them\.$/m,
          );
          expect(r.stderr).not.toContain("is gone");
          oneErrorOneHint(r.stderr);
          const gone = await runCli(["reject", "ses_a1", "ap_0001", ...extra], { env: env(s.url) });
          expect(gone.code).toBe(1);
          expect(gone.stderr).toMatch(/^error: ap_0001 is gone: the session has no such approval/m);
          oneErrorOneHint(gone.stderr);
        }
      },
    );
  });
});

describe("item 5: a cut list says so, with the real count, and exits 7", () => {
  const pendingApprovals = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      id: `ap_${i + 1}`,
      session_id: "ses_a1",
      kind: "command",
      message: `Run step ${i + 1}?`,
      status: "pending",
      created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 60)).toISOString(),
    }));
  const SESSION = {
    id: "ses_a1",
    name: "Busy",
    state: "running",
    agent_status: "awaiting_approval",
    updated_at: "2026-01-01T00:00:00Z",
  };
  const oneSession = json(
    200,
    { sessions: [SESSION], total: 1, has_more: false },
    ANNOUNCED_LIMITS,
  );

  for (const [n, more] of [
    [25, "(+24 more)"],
    // Only the first 500 are read (the book's bound): the count says how many were not.
    [20_000, "(+19,999 more, 19,500 of them not read)"],
  ] as const) {
    it(`attention with ${n} pending approvals says ${more}, plain and --json`, async () => {
      await withServer(
        routes({
          "GET /api/sessions": oneSession,
          "GET /api/sessions/ses_a1/approvals": json(200, pendingApprovals(n), ANNOUNCED_LIMITS),
        }),
        async (s) => {
          const plain = await runCli(["attention"], { env: env(s.url) });
          expect(plain.code, plain.stderr).toBe(0);
          const row = plain.stdout.split("\n").find((l) => l.startsWith("ses_a1 "));
          expect(row).toMatch(/awaiting approval/);
          // The first to decide (the oldest read), then the real count of the others.
          expect(row?.endsWith(`? ${more}`), row).toBe(true);
          expect(row).toMatch(/Run step \d+\? \(\+/);
          const j = await runCli(["attention", "--json"], { env: env(s.url) });
          expect(j.code).toBe(0);
          const doc = JSON.parse(j.stdout) as { items: { message: string }[] };
          expect(doc.items[0]?.message).toMatch(/^awaiting approval: Run step \d+\? \(\+/);
          expect(doc.items[0]?.message.endsWith(`? ${more}`)).toBe(true);
        },
      );
    });
  }

  it("approvals of a session listing 20,000: 500 rows, a warning with the real count, exit 7; --json ends with a marker", async () => {
    await withServer(
      routes({
        "GET /api/sessions/ses_a1/approvals": json(200, pendingApprovals(20_000), ANNOUNCED_LIMITS),
      }),
      async (s) => {
        const plain = await runCli(["approvals", "ses_a1"], { env: env(s.url) });
        expect(plain.code, plain.stderr).toBe(7);
        const rows = plain.stdout.trimEnd().split("\n");
        expect(rows[0]).toMatch(/^SESSION\s+APPROVAL/);
        expect(rows).toHaveLength(501);
        expect(plain.stderr).toBe(
          "warning: the list is incomplete: ses_a1 has 20,000 pending, only the first 500 were read (500 approvals listed)\n",
        );
        const j = await runCli(["approvals", "ses_a1", "--json"], { env: env(s.url) });
        expect(j.code).toBe(7);
        const arr = JSON.parse(j.stdout) as Record<string, unknown>[];
        expect(arr).toHaveLength(501);
        expect(arr.at(-1)).toEqual({
          incomplete: true,
          reason: "ses_a1 has 20,000 pending, only the first 500 were read",
          listed: 500,
        });
        // The 500 read, each once, all pending.
        const ids = new Set(arr.slice(0, -1).map((a) => a.id));
        expect(ids.size).toBe(500);
        expect(arr.slice(0, -1).every((a) => a.status === "pending")).toBe(true);
      },
    );
  });

  it("approvals over a session list that stops early (the same page again): exit 7, said", async () => {
    await withServer(
      routes({
        // Promises more on every page, and sends the same page each time.
        "GET /api/sessions": json(
          200,
          { sessions: [SESSION], total: 50, has_more: true },
          ANNOUNCED_LIMITS,
        ),
        "GET /api/sessions/ses_a1/approvals": json(200, pendingApprovals(2), ANNOUNCED_LIMITS),
      }),
      async (s) => {
        const plain = await runCli(["approvals"], { env: env(s.url) });
        expect(plain.code, plain.stderr).toBe(7);
        expect(plain.stdout).toContain("Run step 2?");
        expect(plain.stderr).toMatch(
          /^warning: the list is incomplete: the session list stopped \(.+\) after \d+ pages?.* \(2 approvals listed\)$/m,
        );
        const j = await runCli(["approvals", "--json"], { env: env(s.url) });
        expect(j.code).toBe(7);
        const arr = JSON.parse(j.stdout) as Record<string, unknown>[];
        expect(arr.at(-1)).toMatchObject({ incomplete: true, listed: 2 });
      },
    );
  });

  it("attention over more items than the queue keeps: the real count, exit 7, plain and --json", async () => {
    const paused = Array.from({ length: 520 }, (_, i) => ({
      id: `ses_${String(i).padStart(4, "0")}`,
      state: "paused",
      agent_status: "idle",
      paused_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    }));
    const pages: Responder = (req, res, body, n) => {
      const url = new URL(req.url ?? "/", "http://x");
      const limit = Math.min(100, Number(url.searchParams.get("limit") ?? 20));
      const offset = Number(url.searchParams.get("offset") ?? 0);
      json(
        200,
        {
          sessions: paused.slice(offset, offset + limit),
          total: paused.length,
          has_more: offset + limit < paused.length,
        },
        ANNOUNCED_LIMITS,
      )(req, res, body, n);
    };
    await withServer(routes({ "GET /api/sessions": pages }), async (s) => {
      const plain = await runCli(["attention"], { env: env(s.url) });
      expect(plain.code, plain.stderr).toBe(7);
      expect(plain.stdout.trimEnd().split("\n")).toHaveLength(501);
      expect(plain.stderr).toBe(
        "warning: the queue is partial: 520 items, only the 500 most pressing are kept\n",
      );
      const j = await runCli(["attention", "--json"], { env: env(s.url) });
      expect(j.code).toBe(7);
      const doc = JSON.parse(j.stdout) as { items: unknown[]; partial: string };
      expect(doc.items).toHaveLength(500);
      expect(doc.partial).toBe("520 items, only the 500 most pressing are kept");
    });
  });

  it("a whole list is not said to be cut: exit 0, no warning", async () => {
    await withServer(
      routes({
        "GET /api/sessions": oneSession,
        "GET /api/sessions/ses_a1/approvals": json(200, pendingApprovals(500), ANNOUNCED_LIMITS),
      }),
      async (s) => {
        const r = await runCli(["approvals", "--json"], { env: env(s.url) });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toBe("");
        expect(JSON.parse(r.stdout)).toHaveLength(500);
      },
    );
  });
});

describe("no error prints two errors or two hints", () => {
  it("Ctrl-C when the cancel then fails: exit 9, one error line (why) and one hint (what it leaves)", async () => {
    await withServer(
      routes({
        "POST /api/sessions/ses_a1/prompt": (_req, res) => {
          res.writeHead(200, { "content-type": "text/event-stream", ...ANNOUNCED_LIMITS });
          res.write(`data: ${JSON.stringify({ type: "text", content: "Working" })}\n\n`);
          // Never ends: the answer is interrupted.
        },
        "POST /api/sessions/ses_a1/prompt/cancel": json(
          500,
          { detail: "cancel broke" },
          ANNOUNCED_LIMITS,
        ),
      }),
      async (s) => {
        let child: import("node:child_process").ChildProcess | null = null;
        const run = runCli(["prompt", "ses_a1", "go"], {
          env: env(s.url),
          onSpawn: (c) => {
            child = c;
          },
        });
        await expect.poll(() => s.seen.length, { timeout: 10_000 }).toBe(1);
        (child as import("node:child_process").ChildProcess | null)?.kill("SIGINT");
        const r = await run;
        expect(r.code, r.stderr).toBe(9);
        expect(r.stderr).toMatch(/^error: .*cancel broke/m);
        expect(r.stderr).toMatch(
          /^hint: Stopped reading, but the prompt could not be cancelled on the service and may still run: agent-sessions cancel ses_a1$/m,
        );
        oneErrorOneHint(r.stderr);
      },
    );
  });
});
