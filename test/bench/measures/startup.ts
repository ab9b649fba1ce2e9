import { rmSync } from "node:fs";
import { join } from "node:path";
import { stripAnsi } from "../../../src/text/sanitize.js";
import { CLI, median, REPO_ROOT, timeUntilOutput } from "../proc.js";
import type { RemoteServer } from "../serverProcess.js";

export interface StartupResult {
  /** Median ms to the first frame with the identity and the session list. */
  medianMs: number;
  /** Median ms to the first frame of any kind (header, list skeleton). */
  firstFrameMedianMs: number;
  /** Median of the starts that found no code cache (not in medianMs). */
  coldMs: number;
  nodeMedianMs: number;
  ratio: number;
  runs: number;
}

/** Starts timed without a code cache. */
const COLD_RUNS = 3;

/** The runs' cache folder: emptied before each start that is timed without a code cache. */
const CACHE_HOME = join(REPO_ROOT, ".tmp", "bench-cache");

function env(srv: RemoteServer): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = {
    ...process.env,
    AGENT_SESSIONS_BASE_URL: srv.url,
    AGENT_SESSIONS_API_KEY: srv.ownerKey,
    // Keep the run away from the user's real profiles, keychain and caches.
    XDG_CONFIG_HOME: join(REPO_ROOT, ".tmp", "bench-config"),
    XDG_CACHE_HOME: CACHE_HOME,
    TERM: "xterm-256color",
  };
  delete e.CI;
  delete e.NO_COLOR;
  return e;
}

/**
 * B8: spawn to the first frame that shows the identity and the session list, through a
 * pseudo-terminal (`script` from util-linux) of 200×50, median of `runs`, with the median of
 * `node -e 0` for the ratio (after three starts without the UI's code cache, reported on
 * their own, the last of which keeps it); and, in the same runs, to the first frame of any
 * kind (the
 * first visible character the binary writes). Every run must show that frame: a run that does not throws, and
 * the row reports the error instead of timing something else.
 */
export async function measureStartup(
  srv: RemoteServer,
  principal: string,
  sessionId: string,
  runs: number,
): Promise<StartupResult> {
  const e = env(srv);
  let firstAt: number | null = null;
  const firsts: number[] = [];
  const uiOnce = async () => {
    firstAt = null;
    // script -q: no banner; -f: flush each write; -e: the child's exit status; -c: command.
    const ms = await timeUntilOutput(
      "script",
      ["-qfec", `stty cols 200 rows 50; exec ${process.execPath} ${CLI}`, "/dev/null"],
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
  const node = () => timeUntilOutput(process.execPath, ["-e", "0"], e, "exit", 15_000);

  // Not counted in the median: starts that find no code cache and keep one
  // (src/cli/scriptCache.ts), as a user's first start after an install or an update does;
  // their median is reported on its own. They also warm the page cache. The last one keeps
  // the cache the counted runs use.
  const colds: number[] = [];
  for (let i = 0; i < Math.min(COLD_RUNS, runs); i++) {
    rmSync(CACHE_HOME, { recursive: true, force: true });
    colds.push(await uiOnce());
  }
  await node();
  firsts.length = 0;
  const times: number[] = [];
  const nodeTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    times.push(await uiOnce());
    nodeTimes.push(await node());
  }
  const m = median(times);
  const n = median(nodeTimes);
  return {
    medianMs: m,
    firstFrameMedianMs: median(firsts),
    coldMs: median(colds),
    nodeMedianMs: n,
    ratio: m / n,
    runs,
  };
}
