import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CLI, runCli, serviceEnv, tempConfigHome } from "../helpers/cli.js";
import {
  HOSTILE_KEY,
  type HostileRoutes,
  type HostileServer,
  leakedPiece,
  sendJson,
  sseHead,
  sseItem,
  startHostile,
  TERMINAL_HOSTILE,
  VALID_KEY_INFO,
} from "../helpers/hostileServer.js";
import { stopStarted } from "../helpers/stopAfterTest.js";

/**
 * The built CLI against hostile loopback servers: whatever a server sends, nothing reaches the
 * terminal that could drive it (escapes, C1, bidi), forge a line, show the key, crash the
 * command or make it lie about being complete.
 */

const cfg = tempConfigHome();
afterEach(stopStarted);
afterAll(() => cfg.cleanup());

const env = (s: HostileServer, extra: Record<string, string> = {}) =>
  serviceEnv(cfg.dir, s.url, HOSTILE_KEY, extra);

/** Text a hostile server puts everywhere: clipboard write, clear screen, 8-bit CSI, bidi, lines. */
const EVIL =
  "boom\x1b]52;c;cHduZWQ=\x07\x1b[2J\x9b31m\u202eevil\u2066\nerror: forged line\r\nhint: forged hint\x07";

/** Nothing that drives a terminal, and every line is one the CLI meant to print. */
function expectTerminalSafe(text: string): void {
  expect(text).not.toMatch(TERMINAL_HOSTILE);
  for (const line of text.split("\n")) {
    expect(line).not.toMatch(/^(error: forged|hint: forged)/);
  }
}

describe("escape injection through error text (every server string on stderr is sanitized)", () => {
  it("whoami: detail in both shapes", async () => {
    const s = await startHostile({
      verify: (_q, res) => sendJson(res, 401, { detail: EVIL }),
      me: (_q, res) => sendJson(res, 401, { detail: { error: EVIL } }),
    });
    const r = await runCli(["whoami"], { env: env(s) });
    expect(r.code).toBe(3);
    expectTerminalSafe(r.stderr + r.stdout);
    // The message is still shown, on one line, with the bidi control made visible.
    expect(r.stderr).toMatch(/^error: boom.*<U\+202E>evil<U\+2066> ⏎ error: forged line/m);
  });

  it("sessions: a 403 detail object's message and the required scope it names", async () => {
    const s = await startHostile({
      sessions: (_q, res) =>
        sendJson(res, 403, {
          detail: { message: EVIL, required_scope: "sessions:read\x1b]0;title\x07\nhint: forged" },
        }),
    });
    const r = await runCli(["sessions"], { env: env(s) });
    expect(r.code).toBe(4);
    expectTerminalSafe(r.stderr);
    // A "scope" that is not shaped like one is not quoted: the hint names the scope the call
    // needs, and no forged hint line appears.
    expect(r.stderr).toMatch(/^hint: Use a key whose effective scopes include sessions:read /m);
    expect(r.stderr).not.toMatch(/^hint: forged/m);
    expect(r.stderr.split("\n").filter((l) => l.startsWith("hint:"))).toHaveLength(1);
  });

  it("sessions: a top-level message on a server error", async () => {
    const s = await startHostile({ sessions: (_q, res) => sendJson(res, 500, { message: EVIL }) });
    const r = await runCli(["sessions"], { env: env(s) });
    expect(r.code).toBe(1);
    expectTerminalSafe(r.stderr);
    expect(r.stderr).toContain("evil");
  });

  it("sessions: a content type quoted in a malformed-response error", async () => {
    const s = await startHostile({
      sessions: (_q, res) => {
        res.writeHead(200, { "content-type": "text/html\x9d0;pwned\x9c\x9b2J" });
        res.end("<html>");
      },
    });
    const r = await runCli(["sessions"], { env: env(s) });
    expect(r.code).toBe(1);
    expectTerminalSafe(r.stderr);
    expect(r.stderr).toContain("text/html");
  });

  it("git: a 403 detail and the scope it names", async () => {
    const s = await startHostile({
      git: (_q, res) => sendJson(res, 403, { detail: EVIL, required_scope: "x\x1b[2Jy" }),
    });
    const r = await runCli(["git", "push", "ses_one"], { env: env(s) });
    expect(r.code).toBe(4);
    expectTerminalSafe(r.stderr);
    expect(r.stderr).toMatch(/^hint: Use a key whose effective scopes include sessions:write /m);
    expect(r.stderr).not.toContain("xy");
  });

  it("watch: a stream's content type and stop reasons, plain and as JSON status lines", async () => {
    const s = await startHostile({
      events: (_q, res) => {
        res.writeHead(200, { "content-type": "text/html\x9d52;c;cHduZWQ=\x9c" });
        res.end("<html>");
      },
    });
    for (const json of [false, true]) {
      const r = await runCli(["watch", "ses_one", ...(json ? ["--json"] : [])], { env: env(s) });
      expect(r.code).toBe(1);
      expectTerminalSafe(r.stderr + r.stdout);
      expect(r.stderr).toContain("text/html");
    }
    const refused = await startHostile({
      events: (_q, res) => sendJson(res, 401, { detail: EVIL }),
    });
    const r = await runCli(["watch", "ses_one"], { env: env(refused) });
    expect(r.code).toBe(3);
    expectTerminalSafe(r.stderr);
    // A stream that stops for good says so once.
    expect(r.stderr.match(/stopped/g)).toHaveLength(1);
  });

  it("watch: hostile event text and file paths (bidi shown, not obeyed)", async () => {
    const s = await startHostile({
      events: (_q, res) => {
        sseHead(res);
        res.write(
          sseItem(1, "file_changed", { path: "src/\u202etxt.exe", action: "created\n\x1b[2J" }) +
            sseItem(2, "process_output", { text: EVIL }) +
            sseItem(3, "surprise\x1b]0;t\x07", { nested: EVIL }),
        );
      },
    });
    for (const json of [false, true]) {
      const r = await runCli(
        ["watch", "ses_one", "--max-events", "3", ...(json ? ["--json"] : [])],
        { env: env(s) },
      );
      expect(r.code).toBe(0);
      expectTerminalSafe(r.stdout + r.stderr);
      if (json) {
        // The data is kept exactly; only the JSON escapes differ.
        const lines = r.stdout.trim().split("\n");
        expect(lines).toHaveLength(3);
        const first = JSON.parse(lines[0] as string) as { data: { path: string } };
        expect(first.data.path).toBe("src/\u202etxt.exe");
      } else {
        expect(r.stdout).toContain("src/<U+202E>txt.exe");
        expect(r.stdout.trim().split("\n")).toHaveLength(3);
      }
    }
  });
});

describe("forged rows and Trojan Source in tables", () => {
  it("a newline in a session title cannot print a row of its own; bidi is visible", async () => {
    const s = await startHostile({
      sessions: (_q, res) =>
        sendJson(res, 200, {
          sessions: [
            {
              id: "ses_a",
              state: "active",
              title: "fix\nses_fake  active  FORGED\tROW",
              repo: "org/\u202eexe.txt",
            },
            { id: "ses_b", state: "paused", title: "second" },
          ],
        }),
    });
    const r = await runCli(["sessions"], { env: env(s) });
    expect(r.code).toBe(0);
    expectTerminalSafe(r.stdout);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(
      /^ses_a\s+active\s+fix ⏎ ses_fake {2}active {2}FORGED ROW\s+org\/<U\+202E>exe\.txt/,
    );
    expect(lines[2]).toMatch(/^ses_b\s+paused\s+second/);
  });

  it("a newline in a key name cannot add a line to whoami", async () => {
    const s = await startHostile({
      verify: (_q, res) =>
        sendJson(res, 200, { ...VALID_KEY_INFO, name: "laptop\nprincipal  admin (tenant root)" }),
    });
    const honest = await startHostile({});
    const forged = await runCli(["whoami"], { env: env(s) });
    const plain = await runCli(["whoami"], { env: env(honest) });
    expect(forged.code).toBe(0);
    expectTerminalSafe(forged.stdout);
    expect(forged.stdout.split("\n")).toHaveLength(plain.stdout.split("\n").length);
    expect(forged.stdout).toMatch(/"laptop ⏎ principal {2}admin \(tenant root\)"/);
  });
});

describe("valid data that is just big", () => {
  const COUNT = 150_000;
  let body = "";
  const bigPage: HostileRoutes = {
    sessions: (_q, res) => {
      if (body === "") {
        const parts: string[] = [];
        for (let i = 0; i < COUNT; i++)
          parts.push(`{"id":"ses_${i}","state":"active","title":"t${i}"}`);
        body = `{"sessions":[${parts.join(",")}],"has_more":false}`;
      }
      sendJson(res, 200, body);
    },
  };

  it("a page of 150,000 records prints as a table and as JSON", async () => {
    const s = await startHostile(bigPage);
    // Two processes, side by side: each is one core's work for seconds.
    const [table, json] = await Promise.all([
      runCli(["sessions"], { env: env(s), timeoutMs: 60_000 }),
      runCli(["sessions", "--json"], { env: env(s), timeoutMs: 60_000 }),
    ]);
    expect(table.stderr).toBe("");
    expect(table.code).toBe(0);
    expect(table.stdout.trimEnd().split("\n")).toHaveLength(COUNT + 1);
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.stdout) as { id: string }[];
    expect(rows).toHaveLength(COUNT);
    expect(rows[COUNT - 1]?.id).toBe(`ses_${COUNT - 1}`);
  });
});

describe("sessions --all never passes a cut list off as complete", () => {
  it("a repeated cursor: warning on stderr, exit 7, and --json ends with an incomplete marker", async () => {
    const s = await startHostile({
      sessions: (req, res) => {
        const cursor = new URL(req.url ?? "", "http://x").searchParams.get("cursor") ?? "start";
        sendJson(res, 200, {
          sessions: [{ id: `ses_${cursor}`, state: "active" }],
          next_cursor: "again",
        });
      },
    });
    const r = await runCli(["sessions", "--all"], { env: env(s) });
    expect(r.code).toBe(7);
    expect(r.stdout).toMatch(/ses_start/);
    expect(r.stdout).toMatch(/ses_again/);
    expect(r.stderr).toMatch(/^warning: the list is incomplete: .*repeated a page cursor/m);

    const j = await runCli(["sessions", "--all", "--json"], { env: env(s) });
    expect(j.code).toBe(7);
    const rows = JSON.parse(j.stdout) as Record<string, unknown>[];
    expect(rows.map((x) => x.id)).toEqual(["ses_start", "ses_again", undefined]);
    expect(rows[2]).toMatchObject({ incomplete: true, listed: 2, pages: 2 });
  });

  it("the page cap: stops at 1000 pages with the same warning and exit code", async () => {
    const s = await startHostile({
      sessions: (req, res) => {
        const n = Number(new URL(req.url ?? "", "http://x").searchParams.get("cursor") ?? "0");
        // A thousand pages at the documented 100 a minute would take ten minutes: this test
        // is about the page cap, so this service announces a limit the pages never reach.
        res.setHeader("x-ratelimit-limit", "1000000");
        sendJson(res, 200, { sessions: [{ id: `ses_${n}` }], next_cursor: String(n + 1) });
      },
    });
    const r = await runCli(["sessions", "--all", "--json"], { env: env(s), timeoutMs: 60_000 });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/limit of 1000 pages/);
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rows).toHaveLength(1001);
    expect(rows[1000]).toMatchObject({ incomplete: true, pages: 1000 });
    expect(s.requestsTo("/api/sessions")).toHaveLength(1000);
  });

  /** An offset-paging server (the documented shape): `page(offset)` says what it answers. */
  function offsetServer(page: (offset: number) => Record<string, unknown>) {
    return startHostile({
      sessions: (req, res) => {
        const offset = Number(new URL(req.url ?? "", "http://x").searchParams.get("offset") ?? "0");
        sendJson(res, 200, page(offset));
      },
    });
  }

  it("offset paging that ignores the offset: the same page again stops it, exit 7", async () => {
    const s = await offsetServer(() => ({
      sessions: [{ id: "ses_a" }, { id: "ses_b" }],
      total: 40,
      has_more: true,
    }));
    const r = await runCli(["sessions", "--all", "--json"], { env: env(s) });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/^warning: the list is incomplete: .*same page again/m);
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rows.at(-1)).toMatchObject({ incomplete: true, pages: 2 });
    expect(s.requestsTo("/api/sessions")).toHaveLength(2);
  });

  it("offset paging whose has_more never ends: past its own total, or with nothing left to fetch", async () => {
    // New records on every page, has_more always true, total 3: the total says it is over.
    const past = await offsetServer((offset) => ({
      sessions: [{ id: `ses_${offset}` }],
      total: 3,
      has_more: true,
    }));
    const r = await runCli(["sessions", "--all"], { env: env(past) });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/^warning: the list is incomplete: .*past its own total of 3/m);
    expect(r.stdout).toMatch(/ses_0[\s\S]*ses_1[\s\S]*ses_2/);
    expect(past.requestsTo("/api/sessions")).toHaveLength(3);

    // has_more true on an empty page: more promised, no way to fetch it.
    const empty = await offsetServer((offset) => ({
      sessions: offset === 0 ? [{ id: "ses_only" }] : [],
      has_more: true,
    }));
    const e = await runCli(["sessions", "--all", "--json"], { env: env(empty) });
    expect(e.code).toBe(7);
    expect(e.stderr).toMatch(/no way to fetch them/);
    const rows = JSON.parse(e.stdout) as Record<string, unknown>[];
    expect(rows.map((x) => x.id)).toEqual(["ses_only", undefined]);
    expect(rows[1]).toMatchObject({ incomplete: true, listed: 1 });
  });

  it("a complete offset listing streams its table, then the service's total on stderr", async () => {
    const s = await offsetServer((offset) => ({
      sessions: [{ id: `ses_${offset}`, name: `run ${offset}`, state: "active" }],
      total: 3,
      has_more: offset < 2,
    }));
    const r = await runCli(["sessions", "--all", "--limit", "1"], { env: env(s) });
    expect(r.code).toBe(0);
    // Stdout is only the table; the count is a note for the person, on stderr, after it.
    expect(r.stderr).toBe(
      "3 sessions · destroyed and error sessions hidden (--include-destroyed lists them)\n",
    );
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^SESSION\s+STATE\s+NAME$/);
    expect(lines.slice(1, 4).map((l) => l.split(/\s+/)[0])).toEqual(["ses_0", "ses_1", "ses_2"]);
  });

  it("a complete listing exits 0 with a plain array", async () => {
    const s = await startHostile({
      sessions: (req, res) => {
        const c = new URL(req.url ?? "", "http://x").searchParams.get("cursor");
        if (c === null) sendJson(res, 200, { sessions: [{ id: "ses_1" }], next_cursor: "b" });
        else sendJson(res, 200, { sessions: [{ id: "ses_2" }], has_more: false });
      },
    });
    const r = await runCli(["sessions", "--all", "--json"], { env: env(s) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect((JSON.parse(r.stdout) as { id: string }[]).map((x) => x.id)).toEqual(["ses_1", "ses_2"]);
  });
});

describe("headless waits say so on stderr", () => {
  it("a 429 wait is announced with its length and the attempt", async () => {
    const s = await startHostile({
      verify: (_q, res, n) =>
        n === 0
          ? sendJson(res, 429, { detail: "slow down" }, { "retry-after": "1" })
          : sendJson(res, 200, VALID_KEY_INFO),
    });
    const r = await runCli(["whoami"], { env: env(s, { AGENT_SESSIONS_MAX_ATTEMPTS: "3" }) });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^rate limited \(HTTP 429\): retrying in 1(\.\d)? s \(attempt 2\/3\)$/m,
    );
  });
});

/**
 * Runs the CLI with its stdout read until `enough` says so, then closed, as `| head` does.
 * Resolves with the exit code, what was read and stderr.
 */
function runClosingStdout(
  args: string[],
  envVars: Record<string, string>,
  enough: (stdoutSoFar: string) => boolean,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: process.env.HOME ?? "/tmp",
        AGENT_SESSIONS_RETRY_BASE_MS: "20",
        ...envVars,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let closed = false;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`timed out: ${args.join(" ")}\n${stderr}`));
    }, 30_000);
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      if (closed) return;
      stdout += d;
      if (enough(stdout)) {
        closed = true;
        child.stdout.destroy();
      }
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe("a closed stdout (| head) ends the command quietly with exit 0", () => {
  const manyRows: HostileRoutes = {
    sessions: (_q, res) => {
      const parts: string[] = [];
      for (let i = 0; i < 20_000; i++) parts.push(`{"id":"ses_${i}","state":"active"}`);
      sendJson(res, 200, `{"sessions":[${parts.join(",")}]}`);
    },
  };

  it("sessions | head -1 and sessions --json | head -c 100", async () => {
    const s = await startHostile(manyRows);
    const table = await runClosingStdout(["sessions"], env(s), (o) => o.includes("\n"));
    expect(table.stderr).toBe("");
    expect(table.code).toBe(0);
    const json = await runClosingStdout(["sessions", "--json"], env(s), (o) => o.length >= 100);
    expect(json.stderr).toBe("");
    expect(json.code).toBe(0);
    const all = await runClosingStdout(
      ["sessions", "--all", "--json"],
      env(s),
      (o) => o.length > 0,
    );
    expect(all.stderr).toBe("");
    expect(all.code).toBe(0);
  });

  it("watch --json | head -1", async () => {
    const s = await startHostile({
      events: (_q, res) => {
        sseHead(res);
        let n = 0;
        const t = setInterval(() => {
          n++;
          if (!res.writable) clearInterval(t);
          else res.write(sseItem(n, "prompt_progress", { type: "text", content: `step ${n}` }));
        }, 5);
        res.on("close", () => clearInterval(t));
      },
    });
    const r = await runClosingStdout(["watch", "ses_one", "--json"], env(s), (o) =>
      o.includes("\n"),
    );
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/EPIPE|Error:|at /);
  });

  it("demo --headless | head: exit 0, no stack trace, no temp folder left behind", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "as-head-"));
    try {
      const r = await runClosingStdout(
        ["demo", "--headless", "--pace-ms", "5"],
        { TMPDIR: tmp, XDG_CONFIG_HOME: cfg.dir },
        (o) => o.split("\n").length > 2,
      );
      expect(r.code).toBe(0);
      expect(r.stderr).not.toMatch(/EPIPE|Error:|\n\s+at /);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe("the key is never printed, whole or in pieces", () => {
  it("snapshot: a title, a pane's output and an error that echo the key show no piece of it", async () => {
    const half = Math.ceil(HOSTILE_KEY.length / 2);
    const s = await startHostile({
      sessions: (_q, res) =>
        sendJson(res, 200, {
          sessions: [
            { id: "ses_one", state: "active", title: `title ${HOSTILE_KEY} end` },
            { id: "ses_two", state: "active", title: `tail ${HOSTILE_KEY.slice(-half - 2)}` },
          ],
        }),
      events: (_q, res) => {
        sseHead(res);
        // The key whole, with colour codes between its characters, and long enough lines
        // that the pane cuts them somewhere inside the key.
        const striped = [...HOSTILE_KEY].map((c) => `\x1b[3${c.charCodeAt(0) % 8}m${c}`).join("");
        res.write(
          sseItem(1, "process_output", {
            text: `${"x".repeat(37)}${HOSTILE_KEY}${"y".repeat(50)}\n`,
          }) +
            sseItem(2, "process_output", { text: `${striped}\x1b[0m\n` }) +
            sseItem(3, "prompt_progress", { type: "text", content: HOSTILE_KEY.slice(0, 10) }) +
            sseItem(4, "prompt_progress", { type: "text", content: HOSTILE_KEY.slice(10) }) +
            sseItem(5, "file_changed", {
              path: `${"d/".repeat(30)}${HOSTILE_KEY}`,
              action: "created",
            }),
        );
      },
    });
    for (const width of [60, 90, 140]) {
      const r = await runCli(
        ["snapshot", "--width", String(width), "--height", "30", "--open", "ses_one"],
        { env: env(s), timeoutMs: 30_000 },
      );
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("ses_one");
      // The frame waits for the pane's stream (no fixed wait): its output is drawn, so the
      // key had every chance to show.
      expect(r.stdout).toContain("x".repeat(20));
      expect(leakedPiece(r.stdout + r.stderr)).toBeNull();
    }
  });
});
