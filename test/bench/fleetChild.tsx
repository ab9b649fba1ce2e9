/**
 * B10's measured process: the Ink app on the fleet view, every page of sessions listed, the
 * rows in view streaming (up to the cap) while the parent has the service send events to
 * each of them. The app draws as the CLI does: Ink's frames pass the frame guard and the
 * terminal writer, and what reaches the terminal is what is measured. Counts the frames that
 * changed the terminal, times the cursor moving (j) to the terminal write that shows it, and
 * reads the client's CPU and RSS over the window.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { stripAnsi } from "../../src/text/sanitize.js";
import { childArgs, tell, waitUntil } from "./childIpc.js";
import { FrameAssembler } from "./frames.js";
import type { FleetChildOptions } from "./measures/fleet.js";
import { percentile } from "./proc.js";
import { mountUi } from "./uiMount.js";

/** Where the service is and the terminal's size, besides what measures/fleet.ts tells. */
type Args = FleetChildOptions & { url: string; key: string; columns: number; rows: number };

delete process.env.CI;
const args = childArgs<Args>();

let lastFrame = "";
/** The key being timed: the frame that shows it passes `shows`. */
let keyWaiter: { shows: (frame: string) => boolean; pressedAt: number } | null = null;
/** A key press that Ink's last frame shows: timed at the terminal write that follows. */
let keyShown: number | null = null;
let keyLatencies: number[] = [];
// Ink's frames, as the writer receives them: which row is selected.
/** B10-ink's recording, while it runs; recordMs: the time it took (in the window's CPU). */
let recording: { fd: number; from: number } | null = null;
let recordMs = 0;
/** Ink's renders (React commits laid out and drawn), whether or not the frame changed. */
let inkRenders = 0;
let inkRenderMs = 0;
const assembler = new FrameAssembler((text) => {
  lastFrame = text;
  if (recording) {
    const at = performance.now();
    writeSync(recording.fd, `${JSON.stringify([at - recording.from, text])}\n`);
    recordMs += performance.now() - at;
  }
  if (keyWaiter?.shows(text)) {
    keyShown = keyWaiter.pressedAt;
    keyWaiter = null;
  }
});
const ui = await mountUi({
  url: args.url,
  key: args.key,
  sessions: [],
  columns: args.columns,
  rows: args.rows,
  fleet: true,
  journal: args.journal,
  // The fleet keeps a stream for each of the rows the row measures (the default cap is 50).
  fleetStreams: Math.max(50, args.streams),
  output: "cells",
  tap: (data) => assembler.write(data, 0),
  onRender: (ms) => {
    inkRenders++;
    inkRenderMs += ms;
  },
});
const writer = ui.writer;
if (!writer) throw new Error("the fleet is measured through the terminal writer");
// The writer sends a frame's changes as it receives the frame's end: the next write after a
// frame that shows the key is the one that shows it on the terminal.
ui.terminal.onWrite = (_data, at) => {
  if (keyShown !== null) {
    keyLatencies.push(at - keyShown);
    keyShown = null;
  }
};
const { sessions, streams, fleetStreams } = ui.services;

/** The session of the selected fleet row ("▸" starts it) in a frame. */
function selectedRow(frame: string): string | null {
  for (const line of stripAnsi(frame).split("\n")) {
    const at = line.indexOf("▸");
    if (at === -1 || at > 2) continue;
    return /ses_[0-9a-z]+/.exec(line)?.[0] ?? null;
  }
  return null;
}

// Every page of the list (the catalogue reads them all), with the failed and destroyed
// sessions shown too (D), so that every one of the service's sessions is in the fleet.
await waitUntil(() => sessions.getState().loadedAt !== null, 20_000, "the first page");
sessions.getState().setIncludeDestroyed(true);
await waitUntil(
  () => sessions.getState().items.length >= args.sessions,
  args.liveWithinMs ?? Math.max(20_000, args.sessions * 20),
  `${args.sessions} sessions listed`,
);
const live = () =>
  fleetStreams.openIds.filter((id) => streams.getState().sessions[id]?.status.state === "live");
await waitUntil(
  () => live().length >= args.streams && lastFrame.includes("Fleet"),
  args.liveWithinMs ?? 60_000,
  `${args.streams} live streams in the fleet`,
  (l) => streams.subscribe(l),
);
tell({ type: "ready", ids: fleetStreams.openIds });
await waitUntil(
  () => fleetStreams.openIds.some((id) => (streams.getState().sessions[id]?.totalEvents ?? 0) > 0),
  20_000,
  "the events to start",
  (l) => streams.subscribe(l),
);
if (args.record) recording = { fd: openSync(args.record, "w"), from: performance.now() };
await new Promise((r) => setTimeout(r, args.warmupMs));

const recordMs0 = recordMs;
const renders0 = inkRenders;
const renderMs0 = inkRenderMs;
const frames0 = writer.stats.frames;
const t0 = performance.now();
const cpu0 = process.cpuUsage();
let presses = 0;
const keys = setInterval(() => {
  // One key at a time; down a row, staying on the first page (the rows keep their streams).
  if (keyWaiter) return;
  const before = selectedRow(lastFrame);
  keyWaiter = {
    shows: (frame) => {
      const now = selectedRow(frame);
      return now !== null && now !== before;
    },
    pressedAt: performance.now(),
  };
  ui.keyboard.write(presses++ % 40 < 20 ? "j" : "k");
}, args.keyEveryMs);
await new Promise((r) => setTimeout(r, args.windowMs));
clearInterval(keys);
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const frames = writer.stats.frames - frames0;
const renders = inkRenders - renders0;
const renderMs = inkRenderMs - renderMs0;
const recordedMs = recordMs - recordMs0;
if (recording) {
  const { fd, from } = recording;
  recording = null;
  writeSync(fd, `${JSON.stringify({ windowFrom: t0 - from, windowMs: ms })}\n`);
  closeSync(fd);
}
const cursorLatencies = keyLatencies;
const liveAtEnd = live().length;

/** Presses `key` and waits (bounded) for the terminal write of a frame that passes `shows`. */
async function timedKey(key: string, shows: (plain: string) => boolean): Promise<number | null> {
  keyLatencies = [];
  keyWaiter = { shows: (frame) => shows(stripAnsi(frame)), pressedAt: performance.now() };
  ui.keyboard.write(key);
  await waitUntil(() => keyLatencies.length > 0, 5000, `the frame showing ${JSON.stringify(key)}`);
  return keyLatencies[0] ?? null;
}
const pause = () => new Promise((r) => setTimeout(r, 100));
/** Issue 35: sorting (o, each order in turn) and filtering (a key at a time) the whole list. */
const sortLatencies: number[] = [];
const filterLatencies: number[] = [];
if (args.sortFilter) {
  const sortLabel = (plain: string) => /sort: ([^·]+)/.exec(plain)?.[1]?.trim() ?? null;
  for (let i = 0; i < 10; i++) {
    const before = sortLabel(stripAnsi(lastFrame));
    const ms = await timedKey("o", (plain) => {
      const now = sortLabel(plain);
      return now !== null && now !== before;
    });
    if (ms !== null) sortLatencies.push(ms);
    await pause();
  }
  for (let round = 0; round < 3; round++) {
    await timedKey("/", (plain) => plain.includes("/") && !plain.includes("/ filter"));
    await pause();
    let draft = "";
    for (const ch of "ses_1") {
      draft += ch;
      const want = draft;
      const ms = await timedKey(
        ch,
        (plain) => /shown of|no session matches/.test(plain) && plain.includes(want),
      );
      if (ms !== null) filterLatencies.push(ms);
      await pause();
    }
    // Enter keeps the filter, Esc drops it: the whole list again.
    await timedKey("\r", () => true);
    await pause();
    await timedKey("\x1b", (plain) => !plain.includes("filter: "));
    await pause();
  }
}

tell({
  type: "result",
  listed: sessions.getState().items.length,
  // At the window's end: sorting and filtering then bring other rows, and other streams.
  liveStreams: liveAtEnd,
  fps: (frames * 1000) / ms,
  frames,
  // Ink's renders in the window, and their time: those beyond `frames` changed nothing drawn.
  inkRenders: renders,
  inkRenderMsPerFrame: renders > 0 ? renderMs / renders : 0,
  keyPresses: cursorLatencies.length,
  keyP50Ms: percentile(cursorLatencies, 50),
  keyP99Ms: percentile(cursorLatencies, 99),
  sortPresses: sortLatencies.length,
  sortP99Ms: percentile(sortLatencies, 99),
  filterPresses: filterLatencies.length,
  filterP99Ms: percentile(filterLatencies, 99),
  // The slowest presses, for a p99 that is one or two of them.
  keySlowestMs: [...cursorLatencies]
    .sort((a, b) => b - a)
    .slice(0, 5)
    .map((x) => Math.round(x))
    .join(" "),
  cpuPct: ((cpu.user + cpu.system) / 1000 / ms) * 100,
  // B10-ink's recording: its share of the window (in cpuPct), 0 when not recording.
  recordPct: (recordedMs / ms) * 100,
  rssMb: process.memoryUsage().rss / 2 ** 20,
});
await ui.unmount();
process.exit(0);
