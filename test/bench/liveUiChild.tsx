/**
 * B4/B5's measured process: the Ink app with 4 panes on a virtual 200×50 terminal while the
 * parent has the service flood the 4 sessions. Times every frame, reads which flood lines
 * each pane shows, and presses Tab now and then to time the focus change.
 */
import { performance } from "node:perf_hooks";
import { childArgs, tell, waitUntil } from "./childIpc.js";
import { FrameAssembler, focusSignature, shownPerPane } from "./frames.js";
import { percentile } from "./proc.js";
import { mountUi } from "./uiMount.js";

interface Args {
  url: string;
  key: string;
  ids: string[];
  columns: number;
  rows: number;
  warmupMs: number;
  windowMs: number;
  keyEveryMs: number;
  /** A press not shown after this long is a miss. */
  keyMissMs: number;
  /** With the on-disk event journal (uiMount.tsx). */
  journal: boolean;
}

delete process.env.CI;
const args = childArgs<Args>();
const epoch = (perfAt: number) => performance.timeOrigin + perfAt;

const renderTimes: number[] = [];
let measuring = false;
const ui = await mountUi({
  url: args.url,
  key: args.key,
  sessions: args.ids,
  columns: args.columns,
  rows: args.rows,
  journal: args.journal,
  onRender: (ms) => {
    if (measuring) renderTimes.push(ms);
  },
});
const store = ui.services.streams;
const total = () =>
  args.ids.reduce((n, id) => n + (store.getState().sessions[id]?.totalEvents ?? 0), 0);

let lastFrame = "";
let frames = 0;
const latencies: number[] = [];
/** Newest flood number each pane has shown so far. */
const shownUpTo = new Map<string, number>();
interface Press {
  before: string | null;
  pressedAt: number;
}
let focusWaiter: Press | null = null;
let keyPresses = 0;
/** Presses not shown within keyMissMs (shown late, or never). */
let keyMisses = 0;
const focusLatencies: number[] = [];

/** Server time of flood line K of a session, read from its timeline while it is still there. */
function tsOf(sessionId: string, k: number): number | undefined {
  const tl = store.getState().sessions[sessionId]?.timeline;
  if (!tl) return undefined;
  const id = String(k + 1);
  for (let i = tl.size - 1, n = 0; i >= 0 && n < 20_000; i--, n++) {
    const e = tl.get(i);
    if (e?.id === id) return e.ts;
  }
  return undefined;
}

const assembler = new FrameAssembler((text, at) => {
  lastFrame = text;
  if (focusWaiter && focusSignature(text) !== focusWaiter.before) {
    const ms = at - focusWaiter.pressedAt;
    if (ms <= args.keyMissMs) focusLatencies.push(ms);
    else keyMisses++;
    focusWaiter = null;
  }
  if (!measuring) return;
  frames++;
  const now = epoch(at);
  for (const [sessionId, ks] of shownPerPane(text)) {
    const before = shownUpTo.get(sessionId) ?? -1;
    let newest = before;
    for (const k of ks) {
      if (k <= before) continue;
      newest = Math.max(newest, k);
      const ts = tsOf(sessionId, k);
      if (ts !== undefined) latencies.push(now - ts);
    }
    shownUpTo.set(sessionId, newest);
  }
});
ui.terminal.onWrite = (data, at) => assembler.write(data, at);

await waitUntil(
  () =>
    args.ids.every((id) => store.getState().sessions[id]?.status.state === "live") &&
    args.ids.every((id) => lastFrame.includes(id)),
  20_000,
  "4 live panes on screen",
);
tell({ type: "ready" });
await waitUntil(
  () => total() > 0,
  20_000,
  "the flood to start",
  (l) => store.subscribe(l),
);
await new Promise((r) => setTimeout(r, args.warmupMs));

measuring = true;
const events0 = total();
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const keys = setInterval(() => {
  // One key at a time: the next press waits until the last one has shown, or until it has
  // waited long enough to count as a press the screen never showed (a miss fails the row).
  if (focusWaiter) {
    if (performance.now() - focusWaiter.pressedAt < args.keyMissMs) return;
    keyMisses++;
    focusWaiter = null;
  }
  keyPresses++;
  focusWaiter = { before: focusSignature(lastFrame), pressedAt: performance.now() };
  ui.keyboard.write("\t");
}, args.keyEveryMs);
await new Promise((r) => setTimeout(r, args.windowMs));
clearInterval(keys);
measuring = false;
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const events = total() - events0;
// A press still waiting at the end of the window gets the same bound to show.
// (The key timer and the frame callback change focusWaiter; TypeScript cannot see that.)
const pending = focusWaiter as Press | null;
if (pending) {
  await waitUntil(
    () => focusWaiter !== pending || performance.now() - pending.pressedAt >= args.keyMissMs,
    args.keyMissMs + 1000,
    "the last key press",
  );
  if (focusWaiter === pending) {
    keyMisses++;
    focusWaiter = null;
  }
}
tell({
  type: "result",
  eventsPerSecond: (events * 1000) / ms,
  fps: (frames * 1000) / ms,
  frames,
  latencySamples: latencies.length,
  p50LatencyMs: percentile(latencies, 50),
  p99LatencyMs: percentile(latencies, 99),
  maxLatencyMs: Math.max(...latencies),
  keyPresses,
  keyShown: focusLatencies.length,
  keyMisses,
  keyP50Ms: percentile(focusLatencies, 50),
  keyP99Ms: percentile(focusLatencies, 99),
  inkRenderP50Ms: percentile(renderTimes, 50),
  inkRenderP99Ms: percentile(renderTimes, 99),
  cpuPct: ((cpu.user + cpu.system) / 1000 / ms) * 100,
  rssMb: process.memoryUsage().rss / 2 ** 20,
});
await ui.unmount();
process.exit(0);
