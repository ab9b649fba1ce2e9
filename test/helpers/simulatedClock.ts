import type { ChildProcess } from "node:child_process";
import type { ReferenceServer } from "../../src/server/index.js";

/**
 * Driving the reference service's manual clock (ServerOptions.clock "manual"): the simulated
 * sessions do what the seed makes them do, when the test says, never while it reads.
 */

/** The newest event id of each listed session (0 before any event). */
export function eventCounts(server: ReferenceServer, ids: readonly string[]): number[] {
  const records = server.sessions();
  return ids.map((id) => records.find((r) => r.id === id)?.event_count ?? 0);
}

/**
 * Advances the clock a step at a time until the listed sessions have made at least `events`
 * new events between them; bounded (throws after maxSteps). Returns how many they made.
 */
export function advanceUntilEvents(
  server: ReferenceServer,
  ids: readonly string[],
  events: number,
  { stepMs = 100, maxSteps = 2_000 } = {},
): number {
  const sum = () => eventCounts(server, ids).reduce((a, b) => a + b, 0);
  const start = sum();
  for (let i = 0; i < maxSteps; i++) {
    if (sum() - start >= events) return sum() - start;
    server.clock.advance(stepMs);
  }
  throw new Error(
    `${ids.join(", ")} made ${sum() - start} of ${events} events in ${maxSteps} steps`,
  );
}

/**
 * Calls `then` once a child's stderr has said `marker` `times` times (e.g. each stream going
 * live): for onSpawn of runCli, so the clock moves only once the command is listening.
 */
export function onStderr(
  marker: string,
  times: number,
  then: () => void,
): (child: ChildProcess) => void {
  return (child) => {
    let text = "";
    let done = false;
    child.stderr?.on("data", (d: Buffer) => {
      if (done) return;
      text += d.toString();
      if (text.split(marker).length - 1 >= times) {
        done = true;
        then();
      }
    });
  };
}

/**
 * Advances the clock a step at a time, letting I/O run between steps (a stream's reader gets
 * what each step sent), until cond holds; bounded: throws after maxSteps.
 */
export async function advanceUntil(
  server: ReferenceServer,
  cond: () => boolean,
  what: string,
  { stepMs = 50, maxSteps = 2_000 } = {},
): Promise<void> {
  for (let i = 0; i < maxSteps; i++) {
    if (cond()) return;
    server.clock.advance(stepMs);
    await new Promise((r) => setImmediate(r));
  }
  if (!cond()) throw new Error(`${what}: not after ${maxSteps} steps of ${stepMs} ms`);
}
