/**
 * The reference rows of the keyed measures (B16-ink, B15-ink): what Ink alone costs to go from
 * one of the app's frames to the next. The app's child recorded, for every key it timed, the
 * whole frame before the key and the frame that showed its effect (as Ink wrote them); this
 * process draws each pair with Ink and React only, as one `<Text>` per line on a virtual
 * terminal of the same size with the app's render options: the frame before, a pause, then
 * the frame after, timed from handing it to Ink to Ink's write of it (wall clock and CPU).
 * Nothing of the app runs, so what the app spends beyond this is its own.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { render } from "ink";
import { MAX_FPS } from "../../src/cli/tui/terminal.js";
import { childArgs, tell } from "./childIpc.js";
import { FrameAssembler, inkOutputLines } from "./frames.js";
import { FrameLines } from "./inkLines.js";
import { percentile } from "./proc.js";
import { VirtualKeyboard, VirtualTerminal } from "./virtualTty.js";

interface Args {
  /** The app child's recording: a JSON line { kind, before, after } per timed key. */
  steps: string;
  columns: number;
  rows: number;
}

interface Step {
  kind: string;
  before: string;
  after: string;
}

delete process.env.CI;
const args = childArgs<Args>();
const steps = readFileSync(args.steps, "utf8")
  .trimEnd()
  .split("\n")
  .filter((l) => l !== "")
  .map((l) => JSON.parse(l) as Step);
if (steps.length === 0) throw new Error("no steps recorded");

const terminal = new VirtualTerminal(args.columns, args.rows);
let framesSeen = 0;
let frameAt = 0;
const assembler = new FrameAssembler((_text, at) => {
  framesSeen++;
  frameAt = at;
});
terminal.onWrite = (data, at) => assembler.write(data, at);
let show: (lines: readonly string[]) => void = () => {};
const instance = render(
  <FrameLines
    initial={inkOutputLines(steps[0]?.before ?? "")}
    onShow={(s) => {
      show = s;
    }}
  />,
  {
    stdout: terminal as unknown as NodeJS.WriteStream,
    stdin: new VirtualKeyboard() as unknown as NodeJS.ReadStream,
    stderr: new VirtualTerminal(args.columns, args.rows) as unknown as NodeJS.WriteStream,
    // As src/cli/tui/runTui.tsx renders it.
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps: MAX_FPS,
  },
);

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Hands `lines` to Ink; resolves with the wall and CPU ms until Ink wrote a frame, or null. */
async function drawn(lines: readonly string[]): Promise<{ ms: number; cpuMs: number } | null> {
  const seen = framesSeen;
  const at = performance.now();
  const cpu0 = process.cpuUsage();
  show(lines);
  // Bounded: 2 s in 1 ms steps at most.
  for (let i = 0; i < 2000 && framesSeen === seen; i++) await pause(1);
  if (framesSeen === seen) return null;
  const cpu = process.cpuUsage(cpu0);
  return { ms: frameAt - at, cpuMs: (cpu.user + cpu.system) / 1000 };
}

const byKind = new Map<string, { ms: number[]; cpuMs: number[]; missed: number }>();
// One pass to warm Ink's code up (the app's keys were timed on a warm process too), then the
// timed pass.
for (const timedPass of [false, true]) {
  for (const step of steps) {
    const before = inkOutputLines(step.before);
    const after = inkOutputLines(step.after);
    // The frame before may be the one on screen already (the last step's after): not waited on.
    show(before);
    await pause(50);
    const r = await drawn(after);
    await pause(30);
    if (!timedPass) continue;
    let k = byKind.get(step.kind);
    if (!k) {
      k = { ms: [], cpuMs: [], missed: 0 };
      byKind.set(step.kind, k);
    }
    if (r === null) k.missed++;
    else {
      k.ms.push(r.ms);
      k.cpuMs.push(r.cpuMs);
    }
  }
}
const kinds: Record<string, unknown> = {};
for (const [kind, k] of byKind) {
  kinds[kind] = {
    steps: k.ms.length,
    missed: k.missed,
    p50Ms: percentile(k.ms, 50),
    p99Ms: percentile(k.ms, 99),
    cpuP50Ms: percentile(k.cpuMs, 50),
    cpuP99Ms: percentile(k.cpuMs, 99),
  };
}
tell({ type: "result", kinds });
instance.unmount();
process.exit(0);
