/**
 * What every row of the bench shares (run.ts and scaleRows.ts): the progress line, the MB
 * figure, the row of a measure that threw, a reference service in a child process for the
 * time of one measure, and Ink alone replaying the frames a fleet run recorded.
 */
import { type InkReplayResult, measureInkReplay } from "./measures/fleet.js";
import { measureInkSteps } from "./measures/inkSteps.js";
import { num, type Row } from "./report.js";
import { type RemoteServer, startServerProcess } from "./serverProcess.js";

export const log = (s: string) => process.stderr.write(`bench: ${s}\n`);

export function mb(n: number): string {
  return `${num(n, 1)} MB`;
}

/** The row of a measure that threw: it fails, its note says why. */
export function failed(id: string, measure: string, target: string, e: unknown): Row {
  const msg = e instanceof Error ? e.message : String(e);
  return { id, measure, value: "error", target, pass: false, figures: {}, note: `error: ${msg}` };
}

/** Runs `fn` against a fresh reference service, stopped when `fn` settles. */
export async function withServer<T>(
  opts: Parameters<typeof startServerProcess>[0],
  fn: (srv: RemoteServer) => Promise<T>,
): Promise<T> {
  const srv = await startServerProcess(opts);
  try {
    return await fn(srv);
  } finally {
    await srv.close();
  }
}

/**
 * Ink alone replaying the frames a fleet run recorded (B10-ink, B10-2000-ink), given the run's
 * warm-up and window plus 30 s to start and stop; an error is returned, not thrown, so the
 * fleet run's own row still stands.
 */
export function replayFleetFrames(
  record: string,
  srv: RemoteServer,
  streams: number,
  warmupMs: number,
  windowMs: number,
): Promise<InkReplayResult | Error> {
  return measureInkReplay(record, srv.ownerKey, streams, warmupMs + windowMs + 30_000).catch(
    (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
  );
}

/** What a reference row (Ink alone on the app's own frames) is held to: nothing, it is the floor. */
export const INK_TARGET = "reference (what the published libraries cost for the same frames)";

/** What a keyed row's reference (B15-ink, B16-ink, B17-ink) measures. */
export function stepsMeasure(of: string, what: string, columns: number, rows: number): string {
  return `reference for ${of}: Ink alone (bundled the same way, the app's render options, ${columns}×${rows}) drawing each frame pair ${of} timed (the frame before ${what}, then the frame that showed it) as one <Text> per line: the second frame handed to Ink → Ink's write of it, wall clock and CPU, after one untimed pass`;
}

/**
 * A keyed row's reference (B15-ink, B16-ink, B17-ink): the frame pairs its child recorded in `steps`,
 * drawn by Ink alone; per kind of step, its p99 and the app's p99 over it (`appP99`).
 */
export async function inkStepsRow(
  id: string,
  of: string,
  measure: string,
  steps: string,
  size: { columns: number; rows: number },
  appP99: Record<string, number>,
): Promise<Row> {
  log(`${id}: Ink alone drawing ${of}'s frame pairs`);
  try {
    const ink = await measureInkSteps(steps, size.columns, size.rows, 120_000);
    const parts = Object.entries(appP99).map(([kind, app]) => {
      const k = ink[kind];
      if (!k) return `no ${kind} pairs`;
      return `${kind} p99 ${num(k.p99Ms, 1)} ms (p50 ${num(k.p50Ms, 1)}; CPU p99 ${num(k.cpuP99Ms, 1)} ms; ${k.steps} pairs${k.missed > 0 ? `, ${k.missed} not drawn` : ""}); ${of}'s ${kind} p99 = × ${num(app / Math.max(k.p99Ms, 0.001), 2)} of this`;
    });
    return {
      id,
      measure,
      value: parts.join("; "),
      target: INK_TARGET,
      pass: null,
      figures: Object.fromEntries(
        Object.entries(ink).flatMap(([kind, k]) =>
          Object.entries(k).map(([name, v]) => [`${kind}_${name}`, v]),
        ),
      ),
    };
  } catch (e) {
    return failed(id, measure, INK_TARGET, e);
  }
}
