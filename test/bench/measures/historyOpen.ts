import { appEnv, forkChild } from "../childIpc.js";
import { median } from "../proc.js";
import type { RemoteServer } from "../serverProcess.js";

export interface HistoryOpenResult {
  entries: number;
  runs: number;
  /** Median ms from mounting the UI with the pane to the first frame showing its history. */
  medianMs: number;
  maxMs: number;
  /** Heap used after the last open, MiB (bounded by the pane's scrollback). */
  heapUsedMiB: number;
}

/**
 * B14: a session with `entries` events kept; the UI is mounted with a pane on it, `runs`
 * times, in a measuring child bundled as the binary is (historyOpenChild.tsx); each time,
 * from the mount to the first frame that shows the history's divider.
 */
export async function measureHistoryOpen(
  srv: RemoteServer,
  sessionId: string,
  entries: number,
  runs: number,
): Promise<HistoryOpenResult> {
  await srv.fill([sessionId], entries);
  const child = forkChild(
    "./historyOpenChild.js",
    { url: srv.url, key: srv.ownerKey, sessionId, runs },
    [],
    appEnv(),
  );
  try {
    const r = await child.next<{ times: number[]; heapUsedMiB: number }>(
      "result",
      runs * 12_000 + 30_000,
    );
    await child.exited;
    return {
      entries,
      runs,
      medianMs: median(r.times),
      maxMs: Math.max(...r.times),
      heapUsedMiB: r.heapUsedMiB,
    };
  } finally {
    child.kill();
  }
}
