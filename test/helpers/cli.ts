import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { type ReferenceServer, type ServerOptions, startServer } from "../../src/server/index.js";

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
 *
 * After `cleanup`, reading `dir` throws: made lazily, it would otherwise make the folder again
 * (a callback or a test body outliving its hooks) and leave it behind for globalSetup to find.
 * Whatever a test started that writes there (a CLI child, the UI in a tmux pane flushing its
 * journal on SIGHUP) must have exited before cleanup: TmuxPane.kill and TmuxServer.kill wait
 * for their processes, runCli resolves when its child has closed.
 */
export function tempConfigHome(): { readonly dir: string; cleanup: () => void } {
  let dir: string | null = null;
  let cleaned = false;
  return {
    get dir() {
      if (cleaned) {
        throw new Error(
          "tempConfigHome: dir read after cleanup(): it would make the folder again and leave it behind",
        );
      }
      dir ??= mkdtempSync(join(tmpdir(), "as-cfg-"));
      return dir;
    },
    cleanup: () => {
      cleaned = true;
      if (dir !== null) rmSync(dir, { recursive: true, force: true });
      dir = null;
    },
  };
}

/**
 * In a file or describe body whose tests run the CLI against the reference service: the
 * service (startServer with `opts`) from before the first test to after the last, and a fresh
 * config home (tempConfigHome) for each test, removed after it. Read both in hooks and tests.
 */
export function cliOnReference(opts: ServerOptions): {
  readonly server: ReferenceServer;
  readonly home: { readonly dir: string };
  /** The environment of a run with the test's config home, then `extra`. */
  env(extra?: Record<string, string>): Record<string, string>;
} {
  let server: ReferenceServer | null = null;
  let home: ReturnType<typeof tempConfigHome> | null = null;
  beforeAll(async () => {
    server = await startServer(opts);
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    home = tempConfigHome();
  });
  afterEach(() => home?.cleanup());
  const started = <T>(thing: T | null, what: string): T => {
    if (thing === null) throw new Error(`${what} is made by the suite's hooks: read it in a test`);
    return thing;
  };
  return {
    get server() {
      return started(server, "the reference service");
    },
    get home() {
      return started(home, "the config home");
    },
    env: (extra = {}) => ({ XDG_CONFIG_HOME: started(home, "the config home").dir, ...extra }),
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
    // Node's compile cache (Node 22 and later; Node 20 has none) is the run's, shared by its
    // CLI children: in a cache folder of its own each child compiled the whole bundle and wrote
    // a cache no one read again, a third of a start on Node 24 (1.4 s against 1.0 s, loaded).
    // globalSetup knows this folder as the tools' own.
    env.NODE_COMPILE_CACHE = join(tmpdir(), "node-compile-cache");
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

/**
 * The environment of a CLI run against the service at `baseUrl` with `apiKey`, its profiles in
 * `configHome`: one attempt a request, short retry waits, PATH and HOME, then `extra`. Whole
 * as runCliTo and a test's own spawn want it; runCli sets the same PATH, HOME and waits.
 */
export function serviceEnv(
  configHome: string,
  baseUrl: string,
  apiKey: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    XDG_CONFIG_HOME: configHome,
    AGENT_SESSIONS_BASE_URL: baseUrl,
    AGENT_SESSIONS_API_KEY: apiKey,
    AGENT_SESSIONS_MAX_ATTEMPTS: "1",
    AGENT_SESSIONS_RETRY_BASE_MS: "20",
    ...extra,
  };
}

/** Parses NDJSON output, failing loudly on a bad line. */
export function ndjson(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Where a command's stdout goes: a pipe read whole, a file, or a terminal (`script`'s). */
export type StdoutKind = "pipe" | "file" | "terminal";

export interface StdoutOptions {
  /**
   * A pipe whose reader goes away once what it read says enough (`| head -1`, `| head -c 20`):
   * stdout is then what was read until then.
   */
  closeWhen?: (soFar: string) => boolean;
}

/**
 * The built CLI with its stdout a pipe, a file or a terminal, with exactly the environment
 * given (the output tests decide every variable). Its temporary folder (the file stdout goes
 * to) is removed when it ends; bounded by 30 s (the child is killed and the test fails).
 */
export function runCliTo(
  args: string[],
  env: Record<string, string>,
  kind: StdoutKind,
  opts: StdoutOptions = {},
): Promise<CliResult> {
  const dir = mkdtempSync(join(tmpdir(), "as-out-"));
  const file = join(dir, "out");
  const fd = kind === "file" ? openSync(file, "w") : null;
  const child =
    kind === "terminal"
      ? spawn(
          "script",
          ["-q", "-e", "-c", [process.execPath, CLI, ...args].map(quote).join(" "), "/dev/null"],
          { env: { ...env, TERM: "xterm-256color" }, stdio: ["ignore", "pipe", "pipe"] },
        )
      : spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", fd ?? "pipe", "pipe"] });
  if (fd !== null) closeSync(fd);
  return collect(child, opts.closeWhen)
    .then((r) => (kind === "file" ? { ...r, stdout: readFileSync(file, "utf8") } : r))
    .finally(() => rmSync(dir, { recursive: true, force: true }));
}

/** Arguments are the test's own (no remote text); quoted for script's shell all the same. */
function quote(a: string): string {
  return `'${a.replace(/'/g, "'\\''")}'`;
}

function collect(child: ChildProcess, closeWhen?: (soFar: string) => boolean): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (d: string) => {
      if (child.stdout?.destroyed) return;
      stdout += d;
      if (closeWhen?.(stdout)) child.stdout?.destroy();
    });
    child.stderr?.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`timed out\nstdout: ${stdout.slice(0, 500)}\nstderr: ${stderr}`));
    }, 30_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
