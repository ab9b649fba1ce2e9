import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Every test stops what it starts: this checks it for the whole run. Before any test, the run
 * gets a temporary folder of its own (TMPDIR, inherited by the test workers and everything
 * they start) and a marker in the environment. After the last test, anything still in that
 * folder, and any process still alive that carries the marker or names the folder in its
 * environment (a tmux server, a dbus-daemon, a gnome-keyring-daemon, a CLI child), fails the
 * run with its name. The folder is removed either way, and leftover processes are ended, so
 * a failed check leaves nothing behind either. Runs side by side on one machine never see
 * each other's folders or processes.
 */

const MARKER = "AGENT_SESSIONS_TEST_RUN";

export default function setup(): () => Promise<void> {
  const base = realpathSync(tmpdir());
  const runDir = mkdtempSync(join(base, "as-test-run-"));
  const id = runDir.slice(runDir.lastIndexOf("-") + 1);
  process.env.TMPDIR = runDir;
  process.env[MARKER] = id;

  return async () => {
    const problems: string[] = [];
    // A process seen in the middle of exiting (its command line already gone, its parent yet
    // to collect it) is not one left behind: what is still there after a second is.
    let procs = processesOfRun(id, runDir);
    for (let i = 0; i < 20 && procs.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      procs = processesOfRun(id, runDir);
    }
    let left: string[] = [];
    try {
      left = readdirSync(runDir);
    } catch {
      left = [];
    }
    // Node 22+ keeps its compile cache in the temporary folder when a tool turns it on without
    // naming a folder (npm and vitest do on Node 24): the tools', not a test's leftover.
    left = left.filter((f) => f !== "node-compile-cache");
    if (left.length > 0) {
      problems.push(`temporary folders or files left behind in ${runDir}: ${left.join(", ")}`);
    }
    if (procs.length > 0) {
      problems.push(
        `processes still running after the tests:\n${procs.map((p) => `  ${p.pid} ${p.cmdline}`).join("\n")}`,
      );
      for (const p of procs) {
        try {
          process.kill(p.pid, "SIGKILL");
        } catch {
          // gone meanwhile
        }
      }
    }
    rmSync(runDir, { recursive: true, force: true });
    if (problems.length > 0) {
      // vitest reports an error thrown here but still exits 0: the exit code says it too, and
      // CI's verdict at the end of its log repeats it from the file it names.
      const report = process.env.AGENT_SESSIONS_LEFTOVERS_FILE;
      if (report) appendFileSync(report, `${problems.join("\n")}\n`);
      process.exitCode = 1;
      throw new Error(`The test run left things behind:\n${problems.join("\n")}`);
    }
  };
}

/** Live processes (other than this one and its ancestors) that belong to this run. */
function processesOfRun(id: string, runDir: string): { pid: number; cmdline: string }[] {
  if (process.platform !== "linux") return [];
  const mine = new Set<number>([process.pid]);
  for (let pid = process.ppid; pid > 1 && !mine.has(pid); pid = parentOf(pid)) mine.add(pid);
  const found: { pid: number; cmdline: string }[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (mine.has(pid)) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
      if (!environ.includes(`${MARKER}=${id}`) && !environ.includes(runDir)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // A zombie has ended; only its parent has not collected it yet.
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      // vitest's own workers may still be on their way out; vitest itself minds those.
      if (parentOf(pid) === process.pid && cmdline.includes("/vitest/dist/workers/")) continue;
      found.push({ pid, cmdline });
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return 1;
  }
}
