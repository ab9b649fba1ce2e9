import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stripAnsi } from "../../../src/text/sanitize.js";
import { screenLines } from "../frames.js";
import { BENCH_DIR, CLI, median, REPO_ROOT, timeUntilOutput } from "../proc.js";
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

/**
 * B8-ink: the same starts of Ink and React alone (inkStartChild.ts) drawing the app's first
 * full frame, recorded from the app's own start in the same run; B8-floor the same with
 * undici's entry loaded first.
 */
export interface InkStartupResult {
  medianMs: number;
  firstFrameMedianMs: number;
  coldMs: number;
  /** Its median over the median of `node -e 0` of the same runs. */
  ratio: number;
  /** The app's median (B8) over this median. */
  appRatio: number;
  /** The frame drawn: rows, SGR sequences in it, visible characters. */
  frameLines: number;
  frameSgr: number;
  frameChars: number;
  runs: number;
}

/** The pseudo-terminal's size. */
const COLUMNS = 200;
const ROWS = 50;

/** The floor's compile cache: a folder of its own in the same cache folder as the app's. */
const INK_CACHE = "agent-sessions-ink-floor";

/** The reference children of B8, in the order each run times them. */
const REFERENCES = [
  // B8-ink: Ink and React alone.
  { cache: INK_CACHE, args: "" },
  // B8-floor: undici's package entry too, loaded before Ink as the app's client is.
  { cache: `${INK_CACHE}-undici`, args: "undici" },
] as const;

interface Reference {
  readonly cache: string;
  readonly args: string;
  /** One timed start; null before the first starts, or once it failed. */
  start: (() => Promise<PtyStart>) | null;
  error: Error | null;
  colds: number[];
  times: number[];
  firsts: number[];
}

function refFailed(ref: Reference, e: unknown): void {
  ref.error = e instanceof Error ? e : new Error(String(e));
  ref.start = null;
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

interface PtyStart {
  /** ms to the full frame. */
  ms: number;
  /** ms to the first visible character. */
  firstMs: number;
  /** What the process wrote up to then. */
  written: string;
}

/**
 * One start of `command` (a shell command line) through a pseudo-terminal (`script` from
 * util-linux) of 200×50: the ms from spawn until `ready(output so far)` holds, and to the
 * first visible character.
 */
async function ptyStart(
  command: string,
  env: NodeJS.ProcessEnv,
  ready: (out: string) => boolean,
): Promise<PtyStart> {
  let firstAt: number | null = null;
  let written = "";
  // script -q: no banner; -f: flush each write; -e: the child's exit status; -c: command.
  const ms = await timeUntilOutput(
    "script",
    ["-qfec", `stty cols ${COLUMNS} rows ${ROWS}; exec ${command}`, "/dev/null"],
    env,
    ready,
    15_000,
    (out, at) => {
      written = out;
      if (firstAt === null && /\S/.test(stripAnsi(out))) firstAt = at;
    },
  );
  return { ms, firstMs: firstAt ?? ms, written };
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
 *
 * With `inkFloor` (the folder to write the recorded frame to), B8-ink in the same run: one
 * more start of the app, not timed, records its first full frame (the screen, read back
 * through the terminal writer's screen model, once a finished frame shows both ids); then
 * inkStartChild draws that frame, with the same cache rules (its own cache folder beside the
 * app's, emptied for its own three first starts), and every counted run times the app,
 * `node -e 0` and the Ink child one after the other, each to the same two ids. B8-floor is
 * the same child loading undici's package entry first (REFERENCES), timed in the same runs.
 */
export async function measureStartup(
  srv: RemoteServer,
  principal: string,
  sessionId: string,
  runs: number,
  node: string,
  nodeVersion: string,
  inkFloor: string | null = null,
): Promise<{
  app: StartupResult;
  ink: InkStartupResult | Error | null;
  floor: InkStartupResult | Error | null;
}> {
  // A cache folder per Node version: each keeps its own compiled code.
  const cacheHome = join(REPO_ROOT, ".tmp", `bench-cache-${nodeVersion}`);
  const e = env(srv, cacheHome);
  const shows = (text: string) => text.includes(principal) && text.includes(sessionId);
  const appCommand = `'${node}' '${CLI}'`;
  const appStart = () => ptyStart(appCommand, e, (out) => shows(stripAnsi(out)));
  const bare = () => timeUntilOutput(node, ["-e", "0"], e, "exit", 15_000);

  try {
    // Not counted in the median: they also warm the page cache.
    const colds: number[] = [];
    for (let i = 0; i < Math.min(COLD_RUNS, runs); i++) {
      rmSync(cacheHome, { recursive: true, force: true });
      colds.push((await appStart()).ms);
    }
    // The reference children: B8-ink (Ink and React alone) and B8-floor (with undici's entry
    // too). A child's failure is its own row's: B8 and the other go on without it.
    const refs: Reference[] = REFERENCES.map((r) => ({
      ...r,
      start: null,
      error: null,
      colds: [],
      times: [],
      firsts: [],
    }));
    let frame: string[] = [];
    if (inkFloor !== null) {
      try {
        const recorded = await ptyStart(appCommand, e, (out) =>
          shows(stripAnsi(screenLines(out, COLUMNS, ROWS).join("\n"))),
        );
        frame = screenLines(recorded.written, COLUMNS, ROWS);
        const frameFile = join(inkFloor, `b8-frame-${nodeVersion}.txt`);
        writeFileSync(frameFile, frame.join("\n"));
        const child = join(BENCH_DIR, "inkStartChild.js");
        for (const ref of refs) {
          const command = `'${node}' '${child}' '${frameFile}' '${ref.cache}' ${ref.args}`;
          const start = () => ptyStart(command, e, (out) => shows(stripAnsi(out)));
          try {
            for (let i = 0; i < Math.min(COLD_RUNS, runs); i++) {
              rmSync(join(cacheHome, ref.cache), { recursive: true, force: true });
              ref.colds.push((await start()).ms);
            }
            ref.start = start;
          } catch (err) {
            refFailed(ref, err);
          }
        }
      } catch (err) {
        for (const ref of refs) refFailed(ref, err);
      }
    }
    await bare();
    const times: number[] = [];
    const firsts: number[] = [];
    const nodeTimes: number[] = [];
    for (let i = 0; i < runs; i++) {
      const a = await appStart();
      times.push(a.ms);
      firsts.push(a.firstMs);
      nodeTimes.push(await bare());
      for (const ref of refs) {
        if (!ref.start) continue;
        try {
          const f = await ref.start();
          ref.times.push(f.ms);
          ref.firsts.push(f.firstMs);
        } catch (err) {
          refFailed(ref, err);
        }
      }
    }
    const m = median(times);
    const n = median(nodeTimes);
    const app: StartupResult = {
      node,
      nodeVersion,
      medianMs: m,
      firstFrameMedianMs: median(firsts),
      coldMs: median(colds),
      nodeMedianMs: n,
      ratio: m / n,
      runs,
    };
    const text = frame.join("\n");
    const result = (ref: Reference): InkStartupResult | Error | null => {
      if (ref.error !== null) return ref.error;
      if (ref.start === null) return null;
      const refMedian = median(ref.times);
      return {
        medianMs: refMedian,
        firstFrameMedianMs: median(ref.firsts),
        coldMs: median(ref.colds),
        ratio: refMedian / n,
        appRatio: m / refMedian,
        frameLines: frame.length,
        frameSgr: text.match(/\x1b\[[0-9;]*m/g)?.length ?? 0,
        frameChars: stripAnsi(text).replace(/\s/g, "").length,
        runs,
      };
    };
    const [ink, floor] = refs.map(result);
    return { app, ink: ink ?? null, floor: floor ?? null };
  } finally {
    rmSync(cacheHome, { recursive: true, force: true });
  }
}
