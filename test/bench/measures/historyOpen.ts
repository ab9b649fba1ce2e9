import { performance } from "node:perf_hooks";
import { stripAnsi } from "../../../src/text/sanitize.js";
import { median } from "../proc.js";
import type { RemoteServer } from "../serverProcess.js";
import { mountUi } from "../uiMount.js";

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
 * times; each time, from the mount to the first frame that shows the history's divider
 * (`live from here · above: N from the server`): the history is drawn in the same frame.
 */
export async function measureHistoryOpen(
  srv: RemoteServer,
  sessionId: string,
  entries: number,
  runs: number,
): Promise<HistoryOpenResult> {
  await srv.fill([sessionId], entries);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    let shownAt: number | null = null;
    let resolveShown: () => void = () => {};
    const shown = new Promise<void>((r) => {
      resolveShown = r;
    });
    const ui = await mountUi({
      url: srv.url,
      key: srv.ownerKey,
      sessions: [sessionId],
      columns: 200,
      rows: 50,
    });
    const look = (data: string, at: number) => {
      if (shownAt === null && stripAnsi(data).includes("from the server")) {
        shownAt = at;
        resolveShown();
      }
    };
    ui.terminal.onWrite = look;
    const timeout = new Promise<void>((_, reject) =>
      setTimeout(
        () => reject(new Error("no frame showed the history within 10 s")),
        10_000,
      ).unref(),
    );
    try {
      await Promise.race([shown, timeout]);
    } finally {
      await ui.unmount();
    }
    times.push((shownAt ?? performance.now()) - t0);
  }
  return {
    entries,
    runs,
    medianMs: median(times),
    maxMs: Math.max(...times),
    heapUsedMiB: process.memoryUsage().heapUsed / 1024 / 1024,
  };
}
