/**
 * B12's measured process: the Ink app with 4 panes on a virtual terminal while the parent
 * has the service send each session a steady trickle of events. It counts the bytes that
 * reach the terminal over the window, and (through the CLI's terminal writer) the bytes Ink
 * wrote for the same frames, which is what repainting every frame whole costs.
 */
import { performance } from "node:perf_hooks";
import { childArgs, tell, waitUntil } from "./childIpc.js";
import { mountUi } from "./uiMount.js";

interface Args {
  url: string;
  key: string;
  ids: string[];
  columns: number;
  rows: number;
  warmupMs: number;
  windowMs: number;
  output: "cells" | "lines";
}

delete process.env.CI;
const args = childArgs<Args>();
let inkWrites = "";
const ui = await mountUi({
  url: args.url,
  key: args.key,
  sessions: args.ids,
  columns: args.columns,
  rows: args.rows,
  output: args.output,
});
const store = ui.services.streams;
if (ui.writer === null) ui.terminal.onWrite = (d) => (inkWrites = (inkWrites + d).slice(-20_000));
const seen = () => {
  const model = ui.writer ? ui.terminal.bytes > 0 : inkWrites.length > 0;
  return model && args.ids.every((id) => store.getState().sessions[id]?.status.state === "live");
};
await waitUntil(seen, 20_000, "4 live panes", (l) => store.subscribe(l));
tell({ type: "ready" });
await waitUntil(
  () => args.ids.some((id) => (store.getState().sessions[id]?.totalEvents ?? 0) > 0),
  20_000,
  "the events to start",
  (l) => store.subscribe(l),
);
await new Promise((r) => setTimeout(r, args.warmupMs));

const events = () =>
  args.ids.reduce((n, id) => n + (store.getState().sessions[id]?.totalEvents ?? 0), 0);
const out0 = ui.terminal.bytes;
const in0 = ui.writer?.stats.bytesIn ?? 0;
const frames0 = ui.writer?.stats.frames ?? 0;
const events0 = events();
const t0 = performance.now();
await new Promise((r) => setTimeout(r, args.windowMs));
const secs = (performance.now() - t0) / 1000;
tell({
  type: "result",
  seconds: secs,
  bytesPerSecond: (ui.terminal.bytes - out0) / secs,
  fullFrameBytesPerSecond: ui.writer ? (ui.writer.stats.bytesIn - in0) / secs : null,
  framesPerSecond: ui.writer ? (ui.writer.stats.frames - frames0) / secs : null,
  eventsPerSecond: (events() - events0) / secs,
});
await ui.unmount();
process.exit(0);
