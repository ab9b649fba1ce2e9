import { appEnv, forkChild } from "../childIpc.js";
import type { RemoteServer } from "../serverProcess.js";

export interface LargePaneResult {
  /** Entries the pane held when the keys were timed. */
  held: number;
  scrollPresses: number;
  scrollP50Ms: number;
  scrollP99Ms: number;
  scrollMaxMs: number;
  /** CPU the process spent from a key to its frame. */
  scrollCpuP50Ms: number;
  scrollCpuP99Ms: number;
  searches: number;
  searchP50Ms: number;
  searchP99Ms: number;
  searchMaxMs: number;
  searchCpuP50Ms: number;
  searchCpuP99Ms: number;
  /** Keys whose effect no frame showed within the bound. */
  misses: number;
  cpuPct: number;
  /** After a full collection, the pane full. */
  rssMb: number;
  heapUsedMb: number;
}

/** B16's terminal. */
export const LARGE_PANE_SIZE = { columns: 200, rows: 50 };

/**
 * B16: the large-pane child (largePaneChild.tsx) with a pane whose scrollback holds `lines`;
 * the service sends it a little more than that many lines (at `perSecond`), then the child
 * times scrolling and searching on the quiet pane.
 */
export async function measureLargePane(
  srv: RemoteServer,
  id: string,
  lines: number,
  perSecond: number,
  /** Record each timed key's frames there, for B16-ink. */
  record?: string,
): Promise<LargePaneResult> {
  const child = forkChild(
    "./largePaneChild.js",
    {
      url: srv.url,
      key: srv.ownerKey,
      id,
      lines,
      ...LARGE_PANE_SIZE,
      missMs: 2000,
      searches: 10,
      pages: 20,
      ...(record ? { record } : {}),
    },
    ["--expose-gc"],
    appEnv(),
  );
  try {
    await child.next("ready", 30_000);
    // 10 % more than the pane holds: it is full, its oldest lines evicted.
    await srv.flood([id], perSecond, Math.ceil((1.1 * lines * 1000) / perSecond));
    const { type: _type, ...r } = await child.next<LargePaneResult & { type: string }>(
      "result",
      120_000,
    );
    await child.exited;
    return r;
  } finally {
    child.kill();
  }
}
