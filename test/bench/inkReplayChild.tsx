/**
 * B10-ink's measured process: what Ink costs for the fleet's frames. It replays the frames
 * Ink drew in B10's run (recorded by fleetChild, each with its time) at the same times, each
 * as one `<Text>` per line through Ink, on the same size of virtual terminal and through the
 * same output path as B10 (the CLI's terminalOutput: the frame guard with the key registered,
 * then the cell-level terminal writer), and reads its CPU over the same window as B10 did,
 * after the same warm-up (the frames recorded during B10's warm-up).
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { render } from "ink";
import { registerSecret, secrets } from "../../src/cli/output.js";
import { MAX_FPS, terminalOutput } from "../../src/cli/tui/terminal.js";
import { childArgs, tell } from "./childIpc.js";
import { inkOutputLines } from "./frames.js";
import { FrameLines } from "./inkLines.js";
import { VirtualKeyboard, VirtualTerminal } from "./virtualTty.js";

interface Args {
  /** fleetChild's recording: a JSON line [ms, frame] per frame, then { windowFrom, windowMs }. */
  frames: string;
  key: string;
  columns: number;
  rows: number;
}

delete process.env.CI;
const args = childArgs<Args>();

const recorded = readFileSync(args.frames, "utf8").trimEnd().split("\n");
const { windowFrom, windowMs } = JSON.parse(recorded.pop() ?? "{}") as {
  windowFrom: number;
  windowMs: number;
};
const frames = recorded.map((l) => {
  const [at, text] = JSON.parse(l) as [number, string];
  return { at, lines: inkOutputLines(text) };
});
if (frames.length === 0) throw new Error("no frames recorded");

registerSecret(args.key);
const terminal = new VirtualTerminal(args.columns, args.rows);
const output = terminalOutput(terminal, { ascii: false, altScreen: true }, secrets);
const writer = output.writer;
if (!writer) throw new Error("B10-ink draws through the terminal writer");
let show: (lines: readonly string[]) => void = () => {};
const start = performance.now();
const instance = render(
  <FrameLines
    initial={frames[0]?.lines ?? []}
    onShow={(s) => {
      show = s;
    }}
  />,
  {
    stdout: output.stream as unknown as NodeJS.WriteStream,
    stdin: new VirtualKeyboard() as unknown as NodeJS.ReadStream,
    stderr: new VirtualTerminal(args.columns, args.rows) as unknown as NodeJS.WriteStream,
    // As src/cli/tui/runTui.tsx renders it.
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps: MAX_FPS,
  },
);

let window: { t0: number; cpu0: NodeJS.CpuUsage; frames0: number; shown0: number } | null = null;
let result: { ms: number; cpu: NodeJS.CpuUsage; frames: number; shown: number } | null = null;
let shown = 1;
await new Promise<void>((resolve) => {
  let next = 1;
  const tick = () => {
    const now = performance.now() - start;
    if (window === null && now >= windowFrom) {
      window = {
        t0: performance.now(),
        cpu0: process.cpuUsage(),
        frames0: writer.stats.frames,
        shown0: shown,
      };
    }
    if (window !== null && now >= windowFrom + windowMs) {
      result = {
        ms: performance.now() - window.t0,
        cpu: process.cpuUsage(window.cpu0),
        frames: writer.stats.frames - window.frames0,
        shown: shown - window.shown0,
      };
      resolve();
      return;
    }
    // One frame a turn, each when its time has come (a late one straight after the last):
    // every recorded frame is handed to Ink, whose own throttle then works as it did in B10.
    const due = frames[next];
    if (due && due.at <= now) {
      show(due.lines);
      shown++;
      next++;
    }
    const wake = Math.min(
      frames[next]?.at ?? Number.POSITIVE_INFINITY,
      window === null ? windowFrom : windowFrom + windowMs,
    );
    setTimeout(tick, Math.max(0, wake - (performance.now() - start)));
  };
  tick();
});
const r = result as unknown as { ms: number; cpu: NodeJS.CpuUsage; frames: number; shown: number };
tell({
  type: "result",
  fps: (r.frames * 1000) / r.ms,
  frames: r.frames,
  replayed: r.shown,
  recorded: frames.length,
  cpuPct: ((r.cpu.user + r.cpu.system) / 1000 / r.ms) * 100,
  rssMb: process.memoryUsage().rss / 2 ** 20,
});
instance.unmount();
output.dispose();
process.exit(0);
