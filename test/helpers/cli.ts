import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const CLI = join(import.meta.dirname, "..", "..", "dist", "cli", "main.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  timeoutMs?: number;
  /** Working folder of the child (default the test's own). */
  cwd?: string;
  /** Called with the child once spawned (e.g. to send SIGINT). */
  onSpawn?: (child: import("node:child_process").ChildProcess) => void;
}

/**
 * A throwaway config home so no test reads or writes the real user's profiles. The folder is
 * made when `dir` is first read: a suite that is skipped (no tmux, no keychain) still runs its
 * describe body, where most of these are made, but never its afterAll that removes them.
 */
export function tempConfigHome(): { readonly dir: string; cleanup: () => void } {
  let dir: string | null = null;
  return {
    get dir() {
      dir ??= mkdtempSync(join(tmpdir(), "as-cfg-"));
      return dir;
    },
    cleanup: () => {
      if (dir !== null) rmSync(dir, { recursive: true, force: true });
      dir = null;
    },
  };
}

/**
 * Runs the built CLI as a user would, with a clean environment: only PATH/HOME, a cache folder
 * of its own, and what the test passes. Bounded by a timeout (the child is
 * killed and the test fails).
 */
export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    AGENT_SESSIONS_RETRY_BASE_MS: "20",
  };
  // Unless the test names one (to see what a run remembers for the next), the child gets a
  // cache folder of its own, removed when it ends: never the real user's, never left behind.
  let ownCache: string | null = null;
  if (opts.env?.XDG_CACHE_HOME === undefined) {
    ownCache = mkdtempSync(join(tmpdir(), "as-cache-"));
    env.XDG_CACHE_HOME = ownCache;
  }
  const dropCache = () => {
    if (ownCache !== null) rmSync(ownCache, { recursive: true, force: true });
    ownCache = null;
  };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return new Promise<CliResult>((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env,
      stdio: "pipe",
      ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`CLI timed out: ${args.join(" ")}\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 15_000);
    child.on("error", (e) => {
      dropCache();
      reject(e);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      dropCache();
      resolve({ code, stdout, stderr });
    });
    opts.onSpawn?.(child);
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}

/** Parses NDJSON output, failing loudly on a bad line. */
export function ndjson(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
