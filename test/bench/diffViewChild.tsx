/**
 * B17's measured process: the Ink app on a virtual 160×48 terminal against the parent's
 * loopback diff service. Presses `d` on the session's row and notes when the answer is stored
 * and when the first frame shows the diff (epoch ms, for the parent to take from the moment
 * it sent the answer); then presses PageDown 60 times a second for `scrollMs`, timing each
 * press to the frame showing its row, counting frames and their CPU, with the heap before and
 * after.
 */
import { writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { stripAnsi } from "../../src/text/sanitize.js";
import { childArgs, tell } from "./childIpc.js";
import { percentile } from "./proc.js";
import { mountUi } from "./uiMount.js";

interface Args {
  url: string;
  key: string;
  id: string;
  columns: number;
  rows: number;
  scrollMs: number;
  /** Where to record the timed frames (before and after the first and each press) for B17-ink. */
  record?: string;
}

delete process.env.CI;
const args = childArgs<Args>();
const epoch = (perfAt: number) => performance.timeOrigin + perfAt;

const ui = await mountUi({
  url: args.url,
  key: args.key,
  sessions: [],
  columns: args.columns,
  rows: args.rows,
});
let last = "";
/** The last frame as Ink wrote it (with its styles), for B17-ink's pairs. */
let lastRaw = "";
const steps: { kind: string; before: string; after: string }[] = [];
/** At most this many pairs are kept (the reference draws each twice). */
const MAX_STEPS = 120;
let lastAt = 0;
let frames = 0;
/** The row the last frame's status line shows ("row N/…"), read once a frame. */
let lastRow: string | null = null;
/** The view's first frame on the answer: the summary (a row per file) and its status row. */
const DIFF_SHOWN = /src\/mod0\.ts {2}\+120 −100[\s\S]*row 1\/\d+/;
let diffShownAt: number | null = null;
/** The CPU at the answer stored, and spent from there to the first frame showing the diff. */
let storedCpu: NodeJS.CpuUsage | null = null;
let drawCpu: NodeJS.CpuUsage | null = null;
ui.terminal.onWrite = (data, at) => {
  const text = stripAnsi(data);
  // Cursor moves and the like come alone: a frame is a write with text.
  if (text.trim() === "") return;
  last = text;
  lastRaw = data;
  lastAt = at;
  frames++;
  lastRow = /row (\d+)\//.exec(text)?.[1] ?? null;
  if (diffShownAt === null && DIFF_SHOWN.test(text)) {
    diffShownAt = at;
    if (storedCpu) drawCpu = process.cpuUsage(storedCpu);
  }
};

function waitFor(check: () => boolean, what: string, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (check()) resolve();
      else if (performance.now() > deadline)
        reject(new Error(`no frame showed ${what} within ${ms} ms; last: ${last.slice(-400)}`));
      else setTimeout(tick, 2);
    };
    tick();
  });
}

await waitFor(() => last.includes(args.id), "the session's row", 10_000);
let storedAt: number | null = null;
const off = ui.services.review?.store.subscribe((st) => {
  if (storedAt === null && st.changes.value) {
    storedAt = performance.now();
    storedCpu = process.cpuUsage();
  }
});
const beforeDiff = lastRaw;
ui.keyboard.write("d");
await waitFor(() => diffShownAt !== null, "the diff", 10_000);
if (args.record) steps.push({ kind: "first", before: beforeDiff, after: lastRaw });
const firstFrameAt = epoch(diffShownAt ?? lastAt);
const stored = epoch(storedAt ?? diffShownAt ?? lastAt);
off?.();
global.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
// PageDown 60 times a second; each press's row is in the status line ("row N/…").
const latencies: number[] = [];
let presses = 0;
const framesBefore = frames;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
while (performance.now() - t0 < args.scrollMs) {
  const before = lastRow;
  const beforeRaw = lastRaw;
  const sentAt = performance.now();
  ui.keyboard.write("\u001B[6~");
  presses++;
  try {
    await waitFor(() => lastRow !== before, "the next page", 1000);
    latencies.push(lastAt - sentAt);
    if (args.record && steps.length < MAX_STEPS) {
      steps.push({ kind: "scroll", before: beforeRaw, after: lastRaw });
    }
  } catch {
    // At the end of the diff nothing moves: start again from the top.
    ui.keyboard.write("g");
  }
  const next = sentAt + 1000 / 60;
  const wait = next - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}
const elapsed = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
if (args.record) writeFileSync(args.record, steps.map((st) => `${JSON.stringify(st)}\n`).join(""));
const drawn = frames - framesBefore;
global.gc?.();
const heapAfter = process.memoryUsage().heapUsed;
// Set by the frame callback (TypeScript cannot see that it ran).
const firstCpu = drawCpu as NodeJS.CpuUsage | null;
tell({
  type: "result",
  firstFrameAt,
  storedAt: stored,
  firstFrameCpuMs: firstCpu ? (firstCpu.user + firstCpu.system) / 1000 : null,
  presses,
  shown: latencies.length,
  framesPerSecond: (drawn / elapsed) * 1000,
  keyP50Ms: percentile(latencies, 50),
  keyP99Ms: percentile(latencies, 99),
  cpuPerFrameMs: (cpu.user + cpu.system) / 1000 / Math.max(1, drawn),
  heapBeforeMiB: heapBefore / 1024 / 1024,
  heapAfterMiB: heapAfter / 1024 / 1024,
});
await ui.unmount();
process.exit(0);
