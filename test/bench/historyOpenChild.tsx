/**
 * B14's measured process: the Ink app as the CLI builds it, mounted `runs` times with a pane
 * on one session whose service keeps a long history; each time, from the mount to the first
 * frame that shows the history's divider (`live from here · above: N from the server`; the
 * history is drawn in the same frame).
 */
import { performance } from "node:perf_hooks";
import { stripAnsi } from "../../src/text/sanitize.js";
import { childArgs, tell } from "./childIpc.js";
import { mountUi } from "./uiMount.js";

interface Args {
  url: string;
  key: string;
  sessionId: string;
  runs: number;
}

delete process.env.CI;
const args = childArgs<Args>();

const times: number[] = [];
for (let i = 0; i < args.runs; i++) {
  const t0 = performance.now();
  let shownAt: number | null = null;
  let resolveShown: () => void = () => {};
  const shown = new Promise<void>((r) => {
    resolveShown = r;
  });
  const ui = await mountUi({
    url: args.url,
    key: args.key,
    sessions: [args.sessionId],
    columns: 200,
    rows: 50,
  });
  ui.terminal.onWrite = (data: string, at: number) => {
    if (shownAt === null && stripAnsi(data).includes("from the server")) {
      shownAt = at;
      resolveShown();
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((_, reject) => {
    timer = setTimeout(() => reject(new Error("no frame showed the history within 10 s")), 10_000);
  });
  try {
    await Promise.race([shown, timeout]);
  } finally {
    clearTimeout(timer);
    await ui.unmount();
  }
  times.push((shownAt ?? performance.now()) - t0);
}
tell({ type: "result", times, heapUsedMiB: process.memoryUsage().heapUsed / 1024 / 1024 });
process.exit(0);
