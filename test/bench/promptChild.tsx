/**
 * B15's measured process: the Ink app with 4 panes on a virtual 200×50 terminal while the
 * parent has the service flood the 4 sessions (B4's load). In the focused pane it opens the
 * prompt box (R), types a prompt a key at a time, timing each key to the frame whose box shows
 * it, sends it (Enter), and times every piece of the answer from the moment its bytes reached
 * the client (undici's public diagnostics channel `undici:request:bodyChunkReceived`, before
 * any of the app's code sees them) to the first frame that shows it; again, until the window
 * ends.
 */
import diagnostics from "node:diagnostics_channel";
import { writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import type { PromptItem } from "../../src/protocol/prompt.js";
import { toolLine } from "../../src/store/act/promptView.js";
import { stripAnsi } from "../../src/text/sanitize.js";
import { childArgs, tell, waitUntil } from "./childIpc.js";
import { FrameAssembler, FrameWatch } from "./frames.js";
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
  /** A key or a piece of the answer not shown after this long is a miss. */
  missMs: number;
  /** Where to record the timed frames (before and after each key and piece) for B15-ink. */
  record?: string;
}

delete process.env.CI;
const args = childArgs<Args>();

/** What a frame shows of an answer's item (the pane's own folding, store/act/promptView). */
function marker(item: PromptItem | { type: "done" | "error"; content: string }): string | null {
  if (item.type === "done") return "✓ answer";
  if (item.type === "error") return "✗ answer";
  if (item.type === "text") {
    const first = item.content.split("\n").find((l) => l.trim() !== "");
    return first?.trim() ?? null;
  }
  return toolLine(item as PromptItem);
}

/** Pieces of the current answer whose bytes arrived, not yet shown. */
let pending: { marker: string; at: number }[] = [];
const answerLatencies: number[] = [];
let answerMisses = 0;
let measuring = false;
/** SSE text of the prompt's answer not yet split into events. */
const partial = new Map<object, string>();
diagnostics.subscribe("undici:request:bodyChunkReceived", (msg) => {
  const { request, chunk } = msg as { request: { path: string }; chunk: Buffer };
  if (!/\/prompt$/.test(request.path)) return;
  const at = performance.now();
  const text = (partial.get(request) ?? "") + chunk.toString("utf8");
  const events = text.split("\n\n");
  partial.set(request, events.pop() ?? "");
  for (const ev of events) {
    const data = ev
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trimStart())
      .join("\n");
    if (data === "") continue;
    try {
      const m = marker(JSON.parse(data) as PromptItem);
      if (m) pending.push({ marker: m, at });
    } catch {
      // Not an item: nothing of it is drawn as one.
    }
  }
});

/**
 * The prompt being answered, and whether a frame has shown its heading: the pane shows only the
 * newest exchange, so from that frame on, what it shows of an answer is this prompt's.
 */
let header = "";
let armed = false;
const watch = new FrameWatch();
/** The frames timed (kept in memory, written at the end), for B15-ink. */
const steps: { kind: string; before: string; after: string }[] = [];
let lastFrame = "";
let shownFrame = "";
const assembler = new FrameAssembler((text, at) => {
  const plain = stripAnsi(text);
  if (!armed && header !== "" && plain.includes(header)) armed = true;
  if (armed && pending.length > 0) {
    let shows = false;
    pending = pending.filter((p) => {
      if (p.at > at || !plain.includes(p.marker)) return true;
      if (measuring) answerLatencies.push(at - p.at);
      shows = true;
      return false;
    });
    if (shows && measuring && args.record) {
      steps.push({ kind: "answer", before: lastFrame, after: text });
    }
  }
  lastFrame = text;
  watch.seen(plain, at);
});

const ui = await mountUi({
  url: args.url,
  key: args.key,
  sessions: args.ids,
  columns: args.columns,
  rows: args.rows,
});
ui.terminal.onWrite = (data, at) => assembler.write(data, at);
const store = ui.services.streams;
const total = () =>
  args.ids.reduce((n, id) => n + (store.getState().sessions[id]?.totalEvents ?? 0), 0);

await waitUntil(
  () =>
    args.ids.every((id) => store.getState().sessions[id]?.status.state === "live") &&
    args.ids.every((id) => watch.last.includes(id)),
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

const keyLatencies: number[] = [];
let keyMisses = 0;
let prompts = 0;
let answersDone = 0;
measuring = true;
const events0 = total();
const t0 = performance.now();
const cpu0 = process.cpuUsage();
while (performance.now() - t0 < args.windowMs) {
  prompts++;
  const text = `bench answer ${prompts}`;
  const opened = watch.where((f) => f.includes("reply › ▏"), args.missMs);
  ui.keyboard.write("R");
  if ((await opened) === null) throw new Error("the prompt box did not open");
  let draft = "";
  for (const ch of text) {
    draft += ch;
    const want = `reply › ${draft}▏`;
    const before = lastFrame;
    const shown = watch.where((f) => {
      if (!f.includes(want)) return false;
      shownFrame = lastFrame;
      return true;
    }, args.missMs);
    const pressedAt = performance.now();
    ui.keyboard.write(ch);
    const at = await shown;
    if (at === null) keyMisses++;
    else {
      keyLatencies.push(at - pressedAt);
      if (args.record) steps.push({ kind: "key", before, after: shownFrame });
    }
  }
  header = `› you: ${text}`;
  armed = false;
  const done = watch.where((f) => armed && f.includes("✓ answer"), 10_000);
  ui.keyboard.write("\r");
  if ((await done) !== null) answersDone++;
  else if (process.env.BENCH_DEBUG) process.stderr.write(`${watch.last}\n`);
  // What was never shown within the bound counts as a miss.
  answerMisses += pending.filter((p) => performance.now() - p.at > args.missMs).length;
  pending = [];
}
measuring = false;
const ms = performance.now() - t0;
if (args.record) {
  writeFileSync(args.record, steps.map((st) => `${JSON.stringify(st)}\n`).join(""));
}
const cpu = process.cpuUsage(cpu0);
tell({
  type: "result",
  prompts,
  answersDone,
  answerSamples: answerLatencies.length,
  answerMisses,
  answerP50Ms: percentile(answerLatencies, 50),
  answerP99Ms: percentile(answerLatencies, 99),
  answerMaxMs: Math.max(...answerLatencies),
  keyPresses: keyLatencies.length + keyMisses,
  keyMisses,
  keyP50Ms: percentile(keyLatencies, 50),
  keyP99Ms: percentile(keyLatencies, 99),
  eventsPerSecond: ((total() - events0) * 1000) / ms,
  cpuPct: ((cpu.user + cpu.system) / 1000 / ms) * 100,
  rssMb: process.memoryUsage().rss / 2 ** 20,
});
await ui.unmount();
process.exit(0);
