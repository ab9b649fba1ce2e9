import { appEnv, forkChild } from "../childIpc.js";
import type { RemoteServer } from "../serverProcess.js";

export interface LiveUiResult {
  offeredPerSecond: number;
  eventsPerSecond: number;
  fps: number;
  frames: number;
  latencySamples: number;
  p50LatencyMs: number;
  p99LatencyMs: number;
  maxLatencyMs: number;
  /** Tab presses made; each waits for the previous one to show (or to count as a miss). */
  keyPresses: number;
  /** Presses whose focus change reached the screen (the latency samples). */
  keyShown: number;
  /** Presses the screen had not shown after `keyMissMs`. */
  keyMisses: number;
  keyP50Ms: number;
  keyP99Ms: number;
  /** Ink's layout-and-write time per frame (React's reconciliation not included). */
  inkRenderP50Ms: number;
  inkRenderP99Ms: number;
  cpuPct: number;
  rssMb: number;
}

/**
 * B4 and B5: the UI child on a virtual terminal while the service floods the 4 sessions at
 * `perSecondPerSession` each; it measures over `windowMs` after `warmupMs` of flood.
 */
export async function measureLiveUi(
  srv: RemoteServer,
  ids: readonly string[],
  perSecondPerSession: number,
  warmupMs: number,
  windowMs: number,
  keys: { everyMs: number; missMs: number },
  journal = false,
): Promise<LiveUiResult> {
  const child = forkChild(
    "./liveUiChild.js",
    {
      url: srv.url,
      key: srv.ownerKey,
      ids,
      columns: 200,
      rows: 50,
      warmupMs,
      windowMs,
      keyEveryMs: keys.everyMs,
      keyMissMs: keys.missMs,
      journal,
    },
    [],
    appEnv(),
  );
  try {
    await child.next("ready", 30_000);
    const flood = srv.flood([...ids], perSecondPerSession, warmupMs + windowMs + 3000);
    const { type: _type, ...r } = await child.next<
      Omit<LiveUiResult, "offeredPerSecond"> & { type: string }
    >("result", warmupMs + windowMs + 30_000);
    await flood;
    await child.exited;
    return { ...r, offeredPerSecond: perSecondPerSession * ids.length };
  } finally {
    child.kill();
  }
}
