import type { RemoteServer } from "../serverProcess.js";
import { forkFleetChild } from "./fleet.js";

export interface UiBudgetResult {
  sessions: number;
  streams: number;
  /** Requests the service had in the minute after the UI was spawned. */
  startupPerMin: number;
  /** Requests a minute once the fleet's streams were live and had settled. */
  steadyPerMin: number;
  /** Seconds from the spawn until every stream of the fleet was live. */
  readyS: number;
  rateLimited: number;
  liveStreams: number;
}

const MINUTE = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * B10-budget: the UI (the fleet child, the production wiring) on `sessions` sessions with `streams`
 * of them streaming in the fleet, against a service limited as `srv` was started. The service
 * counts every request: those of the first minute after the spawn (identity, one pass of the
 * list, the fleet's history reads and stream openings, approvals where one waits), then those
 * of one minute at steady state (list refreshes, reconnects, record reads), measured after
 * the streams are live and `settleMs` has passed.
 */
export async function measureUiBudget(
  srv: RemoteServer,
  o: { sessions: number; streams: number; settleMs: number },
): Promise<UiBudgetResult> {
  const counts0 = await srv.requestCounts();
  const spawnedAt = Date.now();
  // The child holds the fleet open past the steady minute, then reports and ends.
  const holdMs = o.settleMs + MINUTE + 5_000;
  const child = forkFleetChild(srv, {
    sessions: o.sessions,
    streams: o.streams,
    warmupMs: holdMs,
    windowMs: 1000,
    keyEveryMs: 5000,
    journal: false,
    liveWithinMs: 2 * MINUTE,
  });
  let flood: Promise<unknown> | null = null;
  try {
    const readyP = child.next<{ ids: string[] }>("ready", 3 * MINUTE);
    // The events the child waits for before its warm-up: one a second to each streamed row.
    const floodOn = readyP.then((ready) => {
      flood = srv.flood(ready.ids, 1, holdMs + 10_000);
      return ready;
    });
    // A child that fails before it is ready fails the row (below), not the process.
    floodOn.catch(() => {});
    await sleep(Math.max(0, spawnedAt + MINUTE - Date.now()));
    const atMinute = await srv.requestCounts();
    await floodOn;
    const readyS = (Date.now() - spawnedAt) / 1000;
    await sleep(o.settleMs);
    const c1 = await srv.requestCounts();
    const t1 = Date.now();
    await sleep(MINUTE);
    const c2 = await srv.requestCounts();
    const steadyPerMin = ((c2.requests - c1.requests) * MINUTE) / (Date.now() - t1);
    const result = await child.next<{ liveStreams: number }>("result", holdMs + MINUTE);
    await child.exited;
    return {
      sessions: o.sessions,
      streams: o.streams,
      startupPerMin: atMinute.requests - counts0.requests,
      steadyPerMin,
      readyS,
      rateLimited: c2.rateLimited - counts0.rateLimited,
      liveStreams: result.liveStreams,
    };
  } finally {
    child.kill();
    await flood;
  }
}
