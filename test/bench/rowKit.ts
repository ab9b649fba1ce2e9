/**
 * What every row of the bench shares (run.ts and scaleRows.ts): the progress line, the MB
 * figure, the row of a measure that threw, a reference service in a child process for the
 * time of one measure, and Ink alone replaying the frames a fleet run recorded.
 */
import { type InkReplayResult, measureInkReplay } from "./measures/fleet.js";
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
