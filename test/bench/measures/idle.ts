import { appEnv, forkChild } from "../childIpc.js";
import type { RemoteServer } from "../serverProcess.js";

export interface IdleResult {
  cpuPct: number;
  ms: number;
  heartbeats: number;
  frames: number;
  renders: number;
  live: boolean;
}

/** B7: CPU of a process holding 4 open streams over a window of heartbeats only. */
export async function measureIdle(
  srv: RemoteServer,
  ids: readonly string[],
  windowMs: number,
  ui: boolean,
): Promise<IdleResult> {
  const child = forkChild(
    "./idleChild.js",
    { url: srv.url, key: srv.ownerKey, ids, windowMs, ui },
    [],
    appEnv(),
  );
  try {
    const r = await child.next<IdleResult>("idle", windowMs + 30_000);
    await child.exited;
    return r;
  } finally {
    child.kill();
  }
}
