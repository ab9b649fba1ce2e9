import { rmSync } from "node:fs";
import { join } from "node:path";
import { stripAnsi } from "../../../src/text/sanitize.js";
import { CLI, median, REPO_ROOT, timeUntilOutput } from "../proc.js";
import type { RemoteServer } from "../serverProcess.js";

export interface StartupResult {
  /** The Node binary that ran the starts, and its version. */
  node: string;
  nodeVersion: string;
  /** Median ms to the first frame with the identity and the session list. */
  medianMs: number;
  /** Median ms to the first frame of any kind (header, list skeleton). */
  firstFrameMedianMs: number;
  /** Median of the starts with an empty cache folder (not in medianMs). */
  coldMs: number;
  nodeMedianMs: number;
  ratio: number;
  runs: number;
}

/** Starts timed with an empty cache folder (a first start after an install or an update). */
const COLD_RUNS = 3;

function env(srv: RemoteServer, cacheHome: string): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = {
    ...process.env,
    AGENT_SESSIONS_BASE_URL: srv.url,
    AGENT_SESSIONS_API_KEY: srv.ownerKey,
    // Keep the run away from the user's real profiles, keychain, journal and caches.
    XDG_CONFIG_HOME: join(REPO_ROOT, ".tmp", "bench-config"),
    XDG_STATE_HOME: join(REPO_ROOT, ".tmp", "bench-state"),
    XDG_CACHE_HOME: cacheHome,
    TERM: "xterm-256color",
  };
  delete e.CI;
  delete e.NO_COLOR;
  delete e.NODE_COMPILE_CACHE;
  delete e.NODE_DISABLE_COMPILE_CACHE;
  return e;
}

/**
 * B8: spawn to the first frame that shows the identity and the session list, through a
 * pseudo-terminal (`script` from util-linux) of 200×50, on the Node binary `node`, median of
 * `runs`, with the median of `node -e 0` on the same binary for the ratio; and, in the same
 * runs, to the first frame of any kind (the first visible character the binary writes).
 *
 * The binary turns on Node's compile cache (Node 22.1+; Node 20 has none) in the user's cache
 * folder: three starts first, each with that folder emptied, are timed as a first start
 * after an install or an update is (reported on their own, not in the median), and the last
 * of them leaves the cache the counted runs use. Every run must show the full frame: a run
 * that does not throws, and the row reports the error instead of timing something else.
 */
export async function measureStartup(
  srv: RemoteServer,
  principal: string,
  sessionId: string,
  runs: number,
  node: string,
  nodeVersion: string,
): Promise<StartupResult> {
  // A cache folder per Node version: each keeps its own compiled code.
  const cacheHome = join(REPO_ROOT, ".tmp", `bench-cache-${nodeVersion}`);
  const e = env(srv, cacheHome);
  let firstAt: number | null = null;
  const firsts: number[] = [];
  const uiOnce = async () => {
    firstAt = null;
    // script -q: no banner; -f: flush each write; -e: the child's exit status; -c: command.
    const ms = await timeUntilOutput(
      "script",
      ["-qfec", `stty cols 200 rows 50; exec '${node}' '${CLI}'`, "/dev/null"],
      e,
      (out) => {
        const text = stripAnsi(out);
        return text.includes(principal) && text.includes(sessionId);
      },
      15_000,
      (out, at) => {
        if (firstAt === null && /\S/.test(stripAnsi(out))) firstAt = at;
      },
    );
    firsts.push(firstAt ?? ms);
    return ms;
  };
  const bare = () => timeUntilOutput(node, ["-e", "0"], e, "exit", 15_000);

  // Not counted in the median: they also warm the page cache.
  const colds: number[] = [];
  for (let i = 0; i < Math.min(COLD_RUNS, runs); i++) {
    rmSync(cacheHome, { recursive: true, force: true });
    colds.push(await uiOnce());
  }
  await bare();
  firsts.length = 0;
  const times: number[] = [];
  const nodeTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    times.push(await uiOnce());
    nodeTimes.push(await bare());
  }
  rmSync(cacheHome, { recursive: true, force: true });
  const m = median(times);
  const n = median(nodeTimes);
  return {
    node,
    nodeVersion,
    medianMs: m,
    firstFrameMedianMs: median(firsts),
    coldMs: median(colds),
    nodeMedianMs: n,
    ratio: m / n,
    runs,
  };
}
