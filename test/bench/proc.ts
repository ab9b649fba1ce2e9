import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { stripAnsi } from "../../src/text/sanitize.js";

/** The repository root (where package.json names this project), from the compiled file's place. */
export const REPO_ROOT = ((): string => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg) && readFileSync(pkg, "utf8").includes('"name": "agent-sessions-tui"')) {
      return dir;
    }
    dir = dirname(dir);
  }
  throw new Error("bench: repository root not found");
})();

/** Where the bench's compiled and bundled files are (.tmp/bench-build/test/bench). */
export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));

/** The built CLI (npm run build). */
export const CLI = join(REPO_ROOT, "dist", "cli", "main.js");

let ticks: number | null = null;
function clockTicks(): number {
  if (ticks === null) {
    try {
      ticks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
export function cpuSecondsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may hold spaces; the fields after it are space-separated.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return (utime + stime) / clockTicks();
  } catch {
    return null;
  }
}

/** Current and peak resident set size of a process in MB, from /proc (Linux). */
export function rssOf(pid: number): { rssMb: number; peakMb: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
    return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
  } catch {
    return null;
  }
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1
    ? (s[mid] as number)
    : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i] as number;
}

/**
 * Spawns a command and resolves with the ms from spawn until `ready(stdout so far)` holds,
 * then kills it (SIGTERM, then SIGKILL) and waits for its exit. `ready: "exit"` times the
 * whole run of a command that must exit 0. `seen`, if given, gets the output so far and its
 * time at every write (to time earlier milestones of the same run).
 */
export function timeUntilOutput(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  ready: ((stdout: string) => boolean) | "exit",
  timeoutMs: number,
  seen?: (stdout: string, ms: number) => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let at: number | null = null;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(`${command} ${args.join(" ")}: not ready in ${timeoutMs} ms: ${err.slice(-300)}`),
      );
    }, timeoutMs);
    child.stdout.on("data", (b: Buffer) => {
      if (at !== null || ready === "exit") return;
      out += b.toString("utf8");
      seen?.(out, performance.now() - t0);
      if (ready(out)) {
        at = performance.now() - t0;
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 2000).unref();
      }
    });
    child.stderr.on("data", (b: Buffer) => {
      err += b.toString("utf8");
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (at !== null) resolve(at);
      else if (ready === "exit" ? code === 0 : ready(out)) resolve(performance.now() - t0);
      else {
        const said = (err.trim() || stripAnsi(out).trim()).replace(/\s+/g, " ").slice(0, 160);
        reject(new Error(`${command} exited (${code}) before it was ready; it printed: ${said}`));
      }
    });
  });
}
