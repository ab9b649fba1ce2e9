/**
 * Issue 35's rows: the fleet at 2,000 listed and 100 live (B10-2000, with Ink alone replaying
 * its frames as B10-2000-ink), a prompt's answer and the prompt box under B4's load (B15), and
 * a pane of 100,000 lines (B16). run.ts calls them; each reuses the children of the rows it
 * grows from (fleetChild for B10, the UI mount of B4).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { MAX_FPS } from "../../src/cli/tui/terminal.js";
import { fleetSize, measureFleet } from "./measures/fleet.js";
import { LARGE_PANE_SIZE, measureLargePane } from "./measures/largePane.js";
import { measurePromptUi, PROMPT_UI_SIZE } from "./measures/promptUi.js";
import { BENCH_DIR } from "./proc.js";
import { num, type Row } from "./report.js";
import {
  failed,
  INK_TARGET,
  inkStepsRow,
  log,
  mb,
  replayFleetFrames,
  stepsMeasure,
  withServer,
} from "./rowKit.js";

/** B10-2000's sizes: issue 35's fleet. */
const SCALE = { sessions: 2000, streams: 100, perSecond: 20 };

/**
 * B10-2000 and B10-2000-ink: the fleet child (B10's) on 2,000 sessions with 100 rows streaming
 * at 20 ev/s each, 200 columns; then Ink alone replaying the frames it drew.
 */
export async function fleetScaleRows(quick: boolean, withApp: boolean): Promise<Row[]> {
  const windowMs = quick ? 6_000 : 20_000;
  const warmupMs = 2000;
  const { columns, rows } = fleetSize(SCALE.streams);
  const measure = `fleet at scale: ${num(SCALE.sessions)} sessions listed (every page read), the fleet view (Ink app, ${columns}×${rows}) with ${SCALE.streams} live streams at ${SCALE.perSecond} ev/s each, ${windowMs / 1000} s; then o (sort) 10 times and / with a filter typed a key at a time, 3 times, the events still coming`;
  const target =
    "CPU ≤ 35 % of one core, ≥ 10 fps while events change the view, key→frame p99 ≤ 100 ms (moving, and sorting or filtering the 2,000: each shown by the next frame), RSS ≤ 300 MB";
  const inkMeasure = `reference for B10-2000: Ink alone (bundled the same way) replaying the frames Ink drew in B10-2000's run, at their times, each as one <Text> per line, ${columns}×${rows}, through the same terminal writer; CPU over the same window after the same warm-up`;
  const dir = mkdtempSync(join(BENCH_DIR, "ink-floor-"));
  try {
    log(`B10-2000: fleet of ${SCALE.sessions} with ${SCALE.streams} live for ${windowMs / 1000} s`);
    const { r, replay } = await withServer(
      { seed: 35, paceMs: 0, heartbeatMs: 5000, sessionCount: SCALE.sessions },
      async (srv) => {
        const record = join(dir, "b10-2000-frames.jsonl");
        const r = await measureFleet(srv, {
          sessions: SCALE.sessions,
          streams: SCALE.streams,
          perSecondPerSession: SCALE.perSecond,
          warmupMs,
          windowMs,
          record,
          sortFilter: true,
        });
        log(`B10-2000-ink: Ink alone replaying B10-2000's frames for ${windowMs / 1000} s`);
        const replay = await replayFleetFrames(record, srv, SCALE.streams, warmupMs, windowMs);
        return { r, replay };
      },
    );
    const app: Row = {
      id: "B10-2000",
      measure,
      value: `CPU ${num(r.cpuPct, 1)} % of one core; ${num(r.fps, 1)} fps (${r.inkRenders} Ink renders, ${num(r.inkRenderMsPerFrame, 1)} ms each); key→frame p99 ${num(r.keyP99Ms)} ms (p50 ${num(r.keyP50Ms)}; ${r.keyPresses} presses); sort p99 ${num(r.sortP99Ms ?? 0)} ms (${r.sortPresses ?? 0} presses), filter p99 ${num(r.filterP99Ms ?? 0)} ms (${r.filterPresses ?? 0} keys); RSS ${mb(r.rssMb)}; ${num(r.listed)} listed, ${r.liveStreams} live`,
      target,
      pass:
        r.cpuPct <= 35 &&
        r.fps >= 10 &&
        r.keyPresses > 0 &&
        r.keyP99Ms <= 100 &&
        (r.sortPresses ?? 0) > 0 &&
        (r.sortP99Ms ?? Number.POSITIVE_INFINITY) <= 100 &&
        (r.filterPresses ?? 0) > 0 &&
        (r.filterP99Ms ?? Number.POSITIVE_INFINITY) <= 100 &&
        r.rssMb <= 300 &&
        r.listed >= SCALE.sessions &&
        r.liveStreams >= SCALE.streams,
      figures: { ...r },
    };
    const ink: Row =
      replay instanceof Error
        ? failed("B10-2000-ink", inkMeasure, INK_TARGET, replay)
        : {
            id: "B10-2000-ink",
            measure: inkMeasure,
            value: `CPU ${num(replay.cpuPct, 1)} % of one core; B10-2000 = × ${num(r.cpuPct / replay.cpuPct, 2)} of this; ${num(replay.fps, 1)} fps drawn (B10-2000: ${num(r.fps, 1)}); ${num(replay.replayed)} of ${num(replay.recorded)} recorded frames in the window; RSS ${mb(replay.rssMb)}`,
            target: INK_TARGET,
            pass: null,
            figures: { ...replay, appCpuPct: r.cpuPct, appOverInk: r.cpuPct / replay.cpuPct },
          };
    return withApp ? [app, ink] : [ink];
  } catch (e) {
    return [
      failed("B10-2000", measure, target, e),
      failed("B10-2000-ink", inkMeasure, INK_TARGET, e),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** B4's load: 4 panes flooded at this rate each. */
const B4_PER_SECOND = 26_000;

/**
 * B15: under B4's load, the prompt box typed into a key at a time, and each piece of the
 * prompt's answer timed from its bytes' arrival to the frame showing it.
 */
export async function promptRows(quick: boolean): Promise<Row[]> {
  const windowMs = quick ? 6_000 : 15_000;
  const { columns, rows } = PROMPT_UI_SIZE;
  const inkMeasure = stepsMeasure("B15", "a key or a piece of the answer", columns, rows);
  const dir = mkdtempSync(join(BENCH_DIR, "ink-steps-"));
  const steps = join(dir, "steps.jsonl");
  const missMs = 1000;
  const measure = `prompt under load: 4 panes flooded as in B4 (${num(B4_PER_SECOND)} ev/s each), ${columns}×${rows}; in the focused pane, R, a prompt typed a key at a time, Enter, the answer streamed; ${windowMs / 1000} s of prompts: each key → the frame whose box shows it, each piece of the answer from its bytes reaching the client (undici's bodyChunkReceived) → the frame that shows it`;
  const target = `answer p99 ≤ 50 ms, key p99 ≤ 100 ms, nothing left unshown after ${missMs / 1000} s`;
  try {
    const r = await withServer(
      { seed: 15, paceMs: 0, heartbeatMs: 1000, sessionCount: 12, historyLimit: 50_000 },
      async (srv) => {
        // Sessions that take a prompt at once (not paused, provisioning or ended).
        const res = await fetch(`${srv.url}/api/sessions?state=active&limit=4`, {
          headers: { authorization: `Bearer ${srv.ownerKey}` },
        });
        const { sessions } = (await res.json()) as { sessions: { id: string }[] };
        if (sessions.length < 4) throw new Error("fewer than 4 active sessions to prompt");
        return measurePromptUi(
          srv,
          sessions.map((s) => s.id),
          B4_PER_SECOND,
          2000,
          windowMs,
          missMs,
          steps,
        );
      },
    );
    const problems = [
      ...(r.answerMisses > 0 ? [`${r.answerMisses} pieces of answers not shown in time`] : []),
      ...(r.keyMisses > 0 ? [`${r.keyMisses} keys not shown in time`] : []),
      ...(r.answersDone === 0 ? ["no answer drawn to its end"] : []),
    ];
    const b15: Row = {
      id: "B15",
      measure,
      value: `answer p99 ${num(r.answerP99Ms)} ms (p50 ${num(r.answerP50Ms)}; ${r.answerSamples} pieces of ${r.answersDone} answers); key p99 ${num(r.keyP99Ms)} ms (p50 ${num(r.keyP50Ms)}; ${r.keyPresses} keys); ${num(r.eventsPerSecond)} ev/s of ${num(r.offeredPerSecond)} offered; CPU ${num(r.cpuPct, 1)} %`,
      target,
      pass: problems.length === 0 && r.answerP99Ms <= 50 && r.keyP99Ms <= 100,
      figures: { ...r },
      ...(problems.length > 0 ? { note: problems.join("; ") } : {}),
    };
    return [
      b15,
      await inkStepsRow("B15-ink", "B15", inkMeasure, steps, PROMPT_UI_SIZE, {
        key: r.keyP99Ms,
        answer: r.answerP99Ms,
      }),
    ];
  } catch (e) {
    return [failed("B15", measure, target, e), failed("B15-ink", inkMeasure, INK_TARGET, e)];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One frame at the most frames a second the app draws (src/cli/tui/terminal.ts MAX_FPS). */
const ONE_FRAME_MS = 1000 / MAX_FPS;

/**
 * B16: a pane holding 100,000 lines; scrolling and searching it, and what it holds in memory.
 * B16-ink: Ink alone drawing the same frame pairs (the frame before each key and the one
 * showing its effect, recorded by B16's child), the library's own figure for the same frames.
 */
export async function largePaneRows(quick: boolean): Promise<Row[]> {
  const lines = quick ? 50_000 : 100_000;
  const { columns, rows } = LARGE_PANE_SIZE;
  const measure = `large pane: one pane (${columns}×${rows}) holding ${num(lines)} lines (--scrollback ${lines}), the stream quiet: page up/down, top and end, each key → the frame that shows it; searches (/ text Enter) for lines among the oldest held, Enter → the frame showing the match; RSS after a full collection`;
  const target = `scroll and search p99 ≤ ${num(ONE_FRAME_MS, 1)} ms (one frame at ${MAX_FPS} fps), RSS ≤ 300 MB (B6's bound)`;
  const inkMeasure = stepsMeasure("B16", "a key", columns, rows);
  const dir = mkdtempSync(join(BENCH_DIR, "ink-steps-"));
  const steps = join(dir, "steps.jsonl");
  let b16: Row;
  try {
    const r = await withServer(
      { seed: 16, paceMs: 0, heartbeatMs: 15_000, sessionCount: 1, historyLimit: 1000 },
      (srv) => measureLargePane(srv, srv.sessionIds[0] as string, lines, 25_000, steps),
    );
    b16 = {
      id: "B16",
      measure,
      value: `scroll p99 ${num(r.scrollP99Ms, 1)} ms (p50 ${num(r.scrollP50Ms, 1)}; CPU p99 ${num(r.scrollCpuP99Ms, 1)} ms; ${r.scrollPresses} keys); search p99 ${num(r.searchP99Ms, 1)} ms (p50 ${num(r.searchP50Ms, 1)}; CPU p99 ${num(r.searchCpuP99Ms, 1)} ms; ${r.searches} searches); ${num(r.held)} lines held; RSS ${mb(r.rssMb)} (heap ${mb(r.heapUsedMb)})`,
      target,
      pass:
        r.misses === 0 &&
        r.held >= lines &&
        r.scrollP99Ms <= ONE_FRAME_MS &&
        r.searchP99Ms <= ONE_FRAME_MS &&
        r.rssMb <= 300,
      figures: { ...r },
      ...(r.misses > 0 ? { note: `${r.misses} keys not shown within 2 s` } : {}),
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    return [failed("B16", measure, target, e), failed("B16-ink", inkMeasure, INK_TARGET, e)];
  }
  try {
    const f = b16.figures as { scrollP99Ms: number; searchP99Ms: number };
    return [
      b16,
      await inkStepsRow("B16-ink", "B16", inkMeasure, steps, LARGE_PANE_SIZE, {
        scroll: f.scrollP99Ms,
        search: f.searchP99Ms,
      }),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
