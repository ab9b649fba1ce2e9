import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { type CliResult, runCliTo } from "../helpers/cli.js";
import { leakedPiece } from "../helpers/hostileServer.js";

/**
 * Every headless command that prints, run as a user runs it: stdout a file, a pipe read
 * whole, a pipe closed after the first line (`| head -1`) and a terminal. Against the seeded
 * reference service on its manual clock (the sessions stand still; the watched one gets
 * events from the test, each carrying the caller's key). Per mode: the documented exit, no
 * escape sequence where there is no terminal (with and without NO_COLOR), never the key,
 * `--json` that parses, and a closed stdout that ends the command quietly.
 */

type Mode = "file" | "pipe" | "head -1" | "terminal";
const MODES: readonly Mode[] = ["file", "pipe", "head -1", "terminal"];

interface Row {
  name: string;
  /** The arguments; `i` numbers the run, so a prompt gets a session of its own each time. */
  args: (i: number) => string[];
  /** Whether stdout is JSON: one document, or one per line (`lines`). */
  json?: "document" | "lines";
  /** What a file or a pipe must hold (the command printed its real output). */
  shows?: RegExp;
  /** The documented exit (default 0); another is an error: one `error:` line, one `hint:`. */
  exit?: number;
  /** The reference service's demo key it runs with (default owner). */
  keyName?: string;
  /** Needs no service (no base URL, no key). */
  offline?: boolean;
}

let ref: ReferenceServer;
let key: string;
let idle: string[] = [];
let watched = "";
const cfg = mkdtempSync(join(tmpdir(), "as-matrix-cfg-"));
const RECORDING = join(import.meta.dirname, "..", "fixtures", "recording.ndjson");

const ROWS: Row[] = [
  { name: "whoami", args: () => ["whoami"], shows: /owner/ },
  {
    name: "whoami --json --verbose",
    args: () => ["whoami", "--json", "--verbose"],
    json: "document",
  },
  { name: "sessions", args: () => ["sessions", "--wide"], shows: /ses_/ },
  { name: "sessions --all --json", args: () => ["sessions", "--all", "--json"], json: "document" },
  { name: "attention", args: () => ["attention"] },
  { name: "attention --json", args: () => ["attention", "--json"], json: "document" },
  { name: "approvals", args: () => ["approvals"], shows: /ap_/ },
  { name: "approvals --json", args: () => ["approvals", "--json"], json: "document" },
  { name: "integrations", args: () => ["integrations"] },
  { name: "integrations --json", args: () => ["integrations", "--json"], json: "document" },
  {
    name: "prompt",
    args: (i) => ["prompt", session(i), "Add input validation"],
    shows: /the tests pass/,
  },
  {
    name: "prompt --json",
    args: (i) => ["prompt", session(i + 4), "Add input validation", "--json"],
    json: "lines",
  },
  { name: "cancel --json", args: () => ["cancel", session(8), "--json"], json: "document" },
  {
    name: "watch",
    args: () => ["watch", watched, "--max-events", "3"],
    shows: /line \d+ \[redacted key\]/,
  },
  {
    name: "watch --json",
    args: () => ["watch", watched, "--max-events", "3", "--json"],
    json: "lines",
    shows: /\[redacted key\]/,
  },
  { name: "snapshot", args: () => ["snapshot", "--width", "90", "--height", "16", "--after", "1"] },
  {
    name: "snapshot --demo",
    args: () => ["snapshot", "--demo", "--width", "90", "--height", "16"],
    offline: true,
  },
  {
    name: "snapshot --replay",
    args: () => ["snapshot", "--replay", RECORDING, "--width", "90", "--height", "16"],
    offline: true,
  },
  {
    name: "demo --headless",
    args: () => ["demo", "--headless", "--max-events", "4", "--seed", "7", "--pace-ms", "20"],
    offline: true,
  },
  { name: "journal path --json", args: () => ["journal", "path", "--json"], json: "document" },
  { name: "profiles --json", args: () => ["profiles", "--json"], json: "document", offline: true },
  // Failing commands say so the same way on every stdout.
  { name: "whoami (expired key)", args: () => ["whoami"], keyName: "expired", exit: 3 },
  {
    name: "watch (no such session)",
    args: () => ["watch", "ses_nosuch00", "--max-events", "1"],
    exit: 1,
  },
  {
    name: "watch --json (key without the stream's scope)",
    args: () => ["watch", watched, "--max-events", "1", "--json"],
    keyName: "listonly",
    exit: 4,
  },
  {
    name: "integrations (key without integrations:read)",
    args: () => ["integrations"],
    keyName: "listonly",
    exit: 4,
  },
  { name: "completion bash", args: () => ["completion", "bash"], offline: true },
  { name: "--version", args: () => ["--version"], offline: true, shows: /^\d+\.\d+\.\d+\n$/ },
];

function keyOf(row: Row): string {
  return row.keyName === undefined ? key : ref.key(row.keyName);
}

function session(i: number): string {
  const id = idle[i];
  if (id === undefined) throw new Error(`no idle session ${i}`);
  return id;
}

let emitter: ReturnType<typeof setInterval> | undefined;
beforeAll(async () => {
  // Many commands at once under one key: the limit is the service's, raised so the matrix
  // measures output and not the budget (rateLimitedCommands.test.ts holds the 100/min one).
  ref = await startServer({
    seed: 3131,
    clock: "manual",
    paceMs: 800,
    sessionCount: 30,
    promptStepMs: 20,
    demoApprovals: true,
    rateLimit: { limit: 100_000, windowMs: 60_000 },
  });
  key = ref.key("owner");
  const ready = ref.sessions().filter((r) => r.state === "active" && !ref.promptRunning(r.id));
  watched = ready[0]?.id ?? "";
  idle = ready.slice(1).map((r) => r.id);
  if (idle.length < 9) throw new Error(`only ${idle.length} idle active sessions`);
  // The watched session says something every 40 ms, its key among it, coloured.
  let n = 0;
  emitter = setInterval(() => {
    n++;
    ref.emit(watched, "process_output", { text: `\x1b[31mline ${n} ${key}\x1b[0m\n` });
  }, 40);
});
afterAll(async () => {
  if (emitter) clearInterval(emitter);
  await ref?.close();
  rmSync(cfg, { recursive: true, force: true });
});

function envFor(row: Row, cache: string, extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    TMPDIR: tmpdir(),
    XDG_CONFIG_HOME: cfg,
    XDG_CACHE_HOME: cache,
    XDG_STATE_HOME: cache,
    AGENT_SESSIONS_MAX_ATTEMPTS: "1",
    AGENT_SESSIONS_RETRY_BASE_MS: "20",
    ...extra,
  };
  const marker = process.env.AGENT_SESSIONS_TEST_RUN;
  if (marker !== undefined) env.AGENT_SESSIONS_TEST_RUN = marker;
  if (!row.offline) {
    env.AGENT_SESSIONS_BASE_URL = ref.url;
    env.AGENT_SESSIONS_API_KEY = keyOf(row);
  }
  return env;
}

/** One command in one mode; its cache folder removed when it ends. */
function run(row: Row, mode: Mode, i: number, extra: Record<string, string>): Promise<CliResult> {
  const cache = mkdtempSync(join(tmpdir(), "as-matrix-"));
  const env = envFor(row, cache, extra);
  // `| head -1`: the reader goes away once it has a line.
  const closeWhen = mode === "head -1" ? (o: string) => o.includes("\n") : undefined;
  return runCliTo(row.args(i), env, mode === "head -1" ? "pipe" : mode, { closeWhen }).finally(() =>
    rmSync(cache, { recursive: true, force: true }),
  );
}

const ESC = /\x1b/;

/** What went wrong with this run, or null: the checks every mode shares and its own. */
function problems(row: Row, mode: Mode, r: CliResult, noColor: boolean): string[] {
  const out: string[] = [];
  // On a terminal, `script` gives stdout and stderr as one: its lines are looked for in both.
  const said = mode === "terminal" ? r.stdout + r.stderr : r.stderr;
  const errors = said.match(/^error:/gm)?.length ?? 0;
  const hints = said.match(/^hint:/gm)?.length ?? 0;
  const exit = row.exit ?? 0;
  // A reader that went away ends a command quietly, before or after it found its error.
  const quietEnd = mode === "head -1" && r.code === 0 && errors === 0;
  if (exit === 0 || quietEnd) {
    if (r.code !== 0) out.push(`exit ${r.code}`);
    if (errors > 0) out.push("an error line");
  } else {
    if (r.code !== exit) out.push(`exit ${r.code}, not ${exit}`);
    if (errors !== 1 || hints > 1) out.push(`${errors} error and ${hints} hint lines, not 1 and 1`);
  }
  if (/\n\s+at .+\(.*:\d+:\d+\)/.test(r.stderr)) out.push("a stack trace on stderr");
  const secret = keyOf(row);
  const leak = leakedPiece(r.stdout, secret) ?? leakedPiece(r.stderr, secret);
  if (leak !== null) out.push(`the key printed (${leak})`);
  if (mode !== "terminal") {
    if (ESC.test(r.stdout)) out.push("an escape sequence on stdout");
    if (ESC.test(r.stderr)) out.push("an escape sequence on stderr");
  } else if (noColor && /\x1b\[[0-9;]*m/.test(r.stdout)) out.push("colour under NO_COLOR");
  if (exit !== 0) {
    // an error row: what it says is checked above
  } else if (r.stdout.trim() === "") out.push("no output");
  else if (mode === "head -1" || mode === "terminal") {
    // the first line, or a terminal's own line ends: the content is checked in a file and a pipe
  } else if (row.shows && !row.shows.test(r.stdout)) out.push(`stdout lacks ${row.shows}`);
  else if (row.json === "document") {
    try {
      JSON.parse(r.stdout);
    } catch (e) {
      out.push(`stdout is not JSON: ${(e as Error).message}`);
    }
  } else if (row.json === "lines") {
    for (const line of r.stdout.split("\n").filter((l) => l !== "")) {
      try {
        JSON.parse(line);
      } catch {
        out.push(`a line is not JSON: ${line.slice(0, 80)}`);
        break;
      }
    }
  }
  return out;
}

/** Runs `jobs` at most `width` at a time. */
async function inBatches<T>(jobs: (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const at = next++;
      results[at] = await (jobs[at] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

describe("every headless command with stdout a file, a pipe, | head -1 and a terminal", () => {
  it("exits as documented, prints no escape where there is no terminal, never the key, parseable JSON, and ends quietly on a closed pipe", async () => {
    const cases: { row: Row; mode: Mode; noColor: boolean; i: number }[] = [];
    for (const row of ROWS) {
      MODES.forEach((mode, i) => {
        // The file gets NO_COLOR, the pipe does not: both must be plain. The terminal gets
        // it too, which must take the colour away there as well.
        cases.push({ row, mode, noColor: mode === "file" || mode === "terminal", i });
      });
    }
    const results = await inBatches(
      cases.map((c) => async () => {
        const r = await run(c.row, c.mode, c.i, c.noColor ? { NO_COLOR: "1" } : {});
        return { ...c, r, found: problems(c.row, c.mode, r, c.noColor) };
      }),
      6,
    );
    const failures = results
      .filter((x) => x.found.length > 0)
      .map(
        (x) =>
          `${x.row.name} [${x.mode}]: ${x.found.join(", ")}\n  stderr: ${x.r.stderr.slice(0, 300)}`,
      );
    expect(failures).toEqual([]);
    // Every row in four modes, a CLI start each, six at a time: 42 s in a loaded full run,
    // 80 s with three busy loops beside it, which 90 s left too little room for.
  }, 180_000);
});
