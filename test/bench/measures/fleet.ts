import { appEnv, forkChild } from "../childIpc.js";
import type { RemoteServer } from "../serverProcess.js";

export interface FleetResult {
  listed: number;
  liveStreams: number;
  /** Events each streamed session got per second. */
  perSecondPerSession: number;
  fps: number;
  frames: number;
  /** Ink's renders in the window (a frame that changed nothing is one too), and ms each. */
  inkRenders: number;
  inkRenderMsPerFrame: number;
  keyPresses: number;
  keyP50Ms: number;
  keyP99Ms: number;
  /** The five slowest presses, ms, slowest first. */
  keySlowestMs: string;
  /** With `sortFilter`: sorting (o) and filtering (a key at a time), key → frame p99. */
  sortPresses?: number;
  sortP99Ms?: number;
  filterPresses?: number;
  filterP99Ms?: number;
  cpuPct: number;
  /** The part of cpuPct that recording the frames for B10-ink took (0 without `record`). */
  recordPct: number;
  rssMb: number;
}

/** The size of B10's terminal: tall enough for a row per stream (header, chrome, footer). */
export function fleetSize(streams: number): { columns: number; rows: number } {
  return { columns: 200, rows: streams + 14 };
}

/** What the fleet child is told besides where the service is and the size of its terminal. */
export interface FleetChildOptions {
  sessions: number;
  streams: number;
  /** How long it runs before it measures, and how long it measures. */
  warmupMs: number;
  windowMs: number;
  /** How often it presses j/k. */
  keyEveryMs: number;
  /** With the on-disk event journal, as users run the UI (uiMount.tsx). */
  journal: boolean;
  /**
   * Records Ink's frames of the warm-up and the window to this file for B10-ink (a JSON line
   * [ms since the warm-up began, frame] per frame, then { windowFrom, windowMs }).
   */
  record?: string;
  /** After the window, times sorting (o) and filtering (/ and a key at a time) the list. */
  sortFilter?: boolean;
  /**
   * How long the list's pages and the streams may take (B10-budget's limited service: 120 s).
   * Default 20 s for the list (20 ms a session past 1,000), 60 s for the streams.
   */
  liveWithinMs?: number;
}

/** The fleet child (the UI's production wiring) on `srv`, on B10's terminal size. */
export function forkFleetChild(srv: RemoteServer, o: FleetChildOptions) {
  return forkChild(
    "./fleetChild.js",
    { url: srv.url, key: srv.ownerKey, ...o, ...fleetSize(o.streams) },
    [],
    appEnv(),
  );
}

/**
 * B10: the fleet child lists every session and shows the fleet with its rows streaming; the
 * service sends `perSecondPerSession` events to each streamed row for the warm-up and the
 * window, while the child presses j/k and measures.
 */
export async function measureFleet(
  srv: RemoteServer,
  o: {
    sessions: number;
    streams: number;
    perSecondPerSession: number;
    warmupMs: number;
    windowMs: number;
    /** With the on-disk event journal, as users run the UI. */
    journal?: boolean;
    /** Records Ink's frames of the warm-up and the window to this file (for B10-ink). */
    record?: string;
    /** After the window, sorting and filtering timed (while the streams still flood). */
    sortFilter?: boolean;
  },
): Promise<FleetResult> {
  // Sorting and filtering take about 15 s after the window, the events still coming.
  const after = o.sortFilter ? 15_000 : 0;
  const child = forkFleetChild(srv, {
    sessions: o.sessions,
    streams: o.streams,
    warmupMs: o.warmupMs,
    windowMs: o.windowMs,
    keyEveryMs: 400,
    journal: o.journal ?? false,
    ...(o.record ? { record: o.record } : {}),
    ...(o.sortFilter ? { sortFilter: true } : {}),
  });
  try {
    const ready = await child.next<{ ids: string[] }>("ready", 90_000);
    const flood = srv.flood(
      ready.ids,
      o.perSecondPerSession,
      o.warmupMs + o.windowMs + after + 3000,
    );
    const { type: _type, ...r } = await child.next<
      Omit<FleetResult, "perSecondPerSession"> & { type: string }
    >("result", o.warmupMs + o.windowMs + after + 30_000);
    await flood;
    await child.exited;
    return { ...r, perSecondPerSession: o.perSecondPerSession };
  } finally {
    child.kill();
  }
}

export interface InkReplayResult {
  cpuPct: number;
  /** Frames that changed the terminal, a second, over the window. */
  fps: number;
  frames: number;
  /** Recorded frames handed to Ink over the window, and in all. */
  replayed: number;
  recorded: number;
  rssMb: number;
}

/**
 * B10-ink: Ink alone replays the frames fleetChild recorded (`frames`), at their times, through
 * the same output path and on the same size of terminal (inkReplayChild), measured over the
 * same window after the same warm-up.
 */
export async function measureInkReplay(
  frames: string,
  key: string,
  streams: number,
  timeoutMs: number,
): Promise<InkReplayResult> {
  const child = forkChild(
    "./inkReplayChild.js",
    { frames, key, ...fleetSize(streams) },
    [],
    appEnv(),
  );
  try {
    const { type: _type, ...r } = await child.next<InkReplayResult & { type: string }>(
      "result",
      timeoutMs,
    );
    await child.exited;
    return r;
  } finally {
    child.kill();
  }
}
