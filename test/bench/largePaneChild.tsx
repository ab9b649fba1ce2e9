/**
 * B16's measured process: the Ink app with one pane on a virtual 200×50 terminal, its
 * scrollback set to hold `lines` entries, while the parent has the service send that many
 * lines and more. Once the pane holds them and the stream is quiet, it times keys to the frame
 * that shows their effect: pages up and down, to the top and back to the end, and searches
 * (/, the text, Enter) for lines among the oldest the pane holds, so each search reads the
 * whole scrollback. Reports RSS and heap after a full collection with the pane full.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { stripAnsi } from "../../src/text/sanitize.js";
import { childArgs, tell, waitUntil } from "./childIpc.js";
import { FrameAssembler, FrameWatch } from "./frames.js";
import { percentile } from "./proc.js";
import { mountUi } from "./uiMount.js";

interface Args {
  url: string;
  key: string;
  id: string;
  lines: number;
  columns: number;
  rows: number;
  /** A key not shown after this long is a miss. */
  missMs: number;
  searches: number;
  pages: number;
  /** Where to record each timed key's frames for B16-ink (inkStepsChild), when given. */
  record?: string;
}

delete process.env.CI;
const args = childArgs<Args>();
const watch = new FrameWatch();
/** The last whole frame Ink wrote, and the one that showed the last timed key's effect. */
let lastFrame = "";
let shownFrame = "";
const assembler = new FrameAssembler((text, at) => {
  lastFrame = text;
  watch.seen(stripAnsi(text), at);
});
const recordFd = args.record ? openSync(args.record, "w") : null;
const ui = await mountUi({
  url: args.url,
  key: args.key,
  sessions: [args.id],
  columns: args.columns,
  rows: args.rows,
  scrollback: args.lines,
});
ui.terminal.onWrite = (data, at) => assembler.write(data, at);
const store = ui.services.streams;
const held = () => store.getState().sessions[args.id]?.timeline.size ?? 0;
const received = () => store.getState().sessions[args.id]?.totalEvents ?? 0;

await waitUntil(
  () => store.getState().sessions[args.id]?.status.state === "live" && watch.last.includes(args.id),
  20_000,
  "the pane live on screen",
);
tell({ type: "ready" });
await waitUntil(
  () => held() >= args.lines,
  120_000,
  `${args.lines} lines in the pane`,
  (l) => store.subscribe(l),
);
// The parent's flood ends: the stream quiet for a second.
let last = received();
let quietSince = performance.now();
await waitUntil(
  () => {
    const now = received();
    if (now !== last) {
      last = now;
      quietSince = performance.now();
    }
    return performance.now() - quietSince >= 1000;
  },
  60_000,
  "the flood to end",
);

/** The flood number of an entry the pane holds, by its place (0: the oldest). */
function floodNumberAt(i: number): number | null {
  const e = store.getState().sessions[args.id]?.timeline.get(i) as { text?: string } | undefined;
  const m = /flood line (\d+):/.exec(e?.text ?? "");
  return m ? Number(m[1]) : null;
}

let misses = 0;
/**
 * Presses `keys` and waits for a frame other than the one before (or one that passes `test`):
 * the time to that frame, and the CPU the process spent meanwhile (on a shared host the
 * latter moves far less with the load than the former).
 */
async function timed(
  keys: string,
  cpuMs: number[],
  test?: (plain: string) => boolean,
): Promise<number | null> {
  const before = watch.last;
  const beforeFrame = lastFrame;
  const pass = test ?? ((f: string) => f !== before);
  const shown = watch.where((f) => {
    if (!pass(f)) return false;
    shownFrame = lastFrame;
    return true;
  }, args.missMs);
  const at = performance.now();
  const cpuAt = process.cpuUsage();
  ui.keyboard.write(keys);
  const t = await shown;
  const cpu = process.cpuUsage(cpuAt);
  if (t === null) {
    misses++;
    return null;
  }
  cpuMs.push((cpu.user + cpu.system) / 1000);
  if (recordFd !== null) {
    const kind = keys === "\r" ? "search" : "scroll";
    writeSync(recordFd, `${JSON.stringify({ kind, before: beforeFrame, after: shownFrame })}\n`);
  }
  return t - at;
}
const settle = () => new Promise((r) => setTimeout(r, 50));

const cpu0 = process.cpuUsage();
const t0 = performance.now();
const scroll: number[] = [];
const scrollCpu: number[] = [];
for (let round = 0; round < 2; round++) {
  for (let i = 0; i < args.pages; i++) {
    const ms = await timed("\x1b[5~", scrollCpu); // Page Up
    if (ms !== null) scroll.push(ms);
    await settle();
  }
  for (const key of ["g", "G"]) {
    const ms = await timed(key, scrollCpu);
    if (ms !== null) scroll.push(ms);
    await settle();
  }
}
const search: number[] = [];
const searchCpu: number[] = [];
for (let s = 0; s < args.searches; s++) {
  // Among the oldest the pane holds: the search reads every entry newer than it first.
  let k: number | null = null;
  for (let i = s * 4; i < s * 4 + 8 && k === null; i++) k = floodNumberAt(i);
  if (k === null) throw new Error("no flood line among the oldest entries");
  const query = `flood line ${k}:`;
  ui.keyboard.write("/");
  await settle();
  for (const ch of query) ui.keyboard.write(ch);
  await settle();
  const ms = await timed("\r", searchCpu, (f) => f.includes(`${query} ok`));
  if (ms !== null) search.push(ms);
  await settle();
  ui.keyboard.write("\x1b"); // Esc clears the search
  await settle();
  ui.keyboard.write("G");
  await settle();
}
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
if (recordFd !== null) closeSync(recordFd);
(globalThis as { gc?: () => void }).gc?.();
const mem = process.memoryUsage();
tell({
  type: "result",
  held: held(),
  scrollPresses: scroll.length,
  scrollP50Ms: percentile(scroll, 50),
  scrollP99Ms: percentile(scroll, 99),
  scrollMaxMs: Math.max(...scroll),
  scrollCpuP50Ms: percentile(scrollCpu, 50),
  scrollCpuP99Ms: percentile(scrollCpu, 99),
  searches: search.length,
  searchCpuP50Ms: percentile(searchCpu, 50),
  searchCpuP99Ms: percentile(searchCpu, 99),
  searchP50Ms: percentile(search, 50),
  searchP99Ms: percentile(search, 99),
  searchMaxMs: Math.max(...search),
  misses,
  cpuPct: ((cpu.user + cpu.system) / 1000 / ms) * 100,
  rssMb: mem.rss / 2 ** 20,
  heapUsedMb: mem.heapUsed / 2 ** 20,
});
await ui.unmount();
process.exit(0);
