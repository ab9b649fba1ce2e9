import { appEnv, forkChild } from "../childIpc.js";
import type { RemoteServer } from "../serverProcess.js";

export interface FleetResult {
  listed: number;
  liveStreams: number;
  /** Events each streamed session got per second. */
  perSecondPerSession: number;
  fps: number;
  frames: number;
  keyPresses: number;
  keyP50Ms: number;
  keyP99Ms: number;
  /** The five slowest presses, ms, slowest first. */
  keySlowestMs: string;
  cpuPct: number;
  rssMb: number;
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
  },
): Promise<FleetResult> {
  const journal = o.journal ?? false;
  const child = forkChild(
    "./fleetChild.js",
    {
      url: srv.url,
      key: srv.ownerKey,
      sessions: o.sessions,
      streams: o.streams,
      // Tall enough for a row per stream: header, table chrome and footer around 50 rows.
      columns: 200,
      rows: o.streams + 14,
      warmupMs: o.warmupMs,
      windowMs: o.windowMs,
      keyEveryMs: 400,
      journal,
    },
    [],
    appEnv(),
  );
  try {
    const ready = await child.next<{ ids: string[] }>("ready", 90_000);
    const flood = srv.flood(ready.ids, o.perSecondPerSession, o.warmupMs + o.windowMs + 3000);
    const { type: _type, ...r } = await child.next<
      Omit<FleetResult, "perSecondPerSession"> & { type: string }
    >("result", o.warmupMs + o.windowMs + 30_000);
    await flood;
    await child.exited;
    return { ...r, perSecondPerSession: o.perSecondPerSession };
  } finally {
    child.kill();
  }
}
