import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type ConnectionEnd,
  DEFAULT_HEALTHY_CONNECTION_MS,
  ReconnectPolicy,
} from "../../src/client/reconnectPolicy.js";

/**
 * The reconnect floor, for any server behaviour: whatever `retry:` values, Retry-After values
 * (zero, huge, absent), answer times and events a server produces, a stream never starts more
 * than floor(T / base) + 1 connections in any T ms; a server that keeps failing (answers,
 * hangs up at once, sends nothing new) is met with a delay that doubles up to the cap.
 * Time here is simulated: each connection lasts what the server decided, then the policy's
 * delay; nothing waits on a clock.
 */

const BASE = 1000;
const MAX = 60_000;

/** What a server can do with one connection. */
const serverTurn = fc.record({
  live: fc.boolean(),
  openMs: fc.oneof(
    fc.constant(0),
    fc.integer({ min: 0, max: 20 }),
    fc.integer({ min: 0, max: 120_000 }),
  ),
  progress: fc.boolean(),
  retryAfterMs: fc.oneof(
    fc.constant(null),
    fc.constant(0),
    fc.integer({ min: 0, max: 5000 }),
    fc.constant(999_999_999_000),
  ),
  serverRetry: fc.oneof(fc.constant(null), fc.constant(0), fc.integer({ min: 0, max: 10_000 })),
});

interface Run {
  starts: number[];
  delays: number[];
}

function simulate(
  turns: {
    live: boolean;
    openMs: number;
    progress: boolean;
    retryAfterMs: number | null;
    serverRetry: number | null;
  }[],
  random: () => number = Math.random,
): Run {
  const policy = new ReconnectPolicy({ baseMs: BASE, maxMs: MAX, jitter: 0.2, random });
  const starts: number[] = [];
  const delays: number[] = [];
  let t = 0;
  for (const turn of turns) {
    starts.push(t);
    if (turn.serverRetry !== null) policy.serverRetry(turn.serverRetry);
    const end: ConnectionEnd = {
      live: turn.live,
      openMs: turn.openMs,
      progress: turn.progress,
      retryAfterMs: turn.retryAfterMs,
    };
    const plan = policy.next(end);
    delays.push(plan.delayMs);
    t += turn.openMs + plan.delayMs;
  }
  return { starts, delays };
}

/** Most connection starts inside any window of `windowMs`. */
function mostStartsIn(starts: number[], windowMs: number): number {
  let most = 0;
  let from = 0;
  for (let i = 0; i < starts.length; i++) {
    while ((starts[i] as number) - (starts[from] as number) >= windowMs) from++;
    most = Math.max(most, i - from + 1);
  }
  return most;
}

describe("reconnect floor (property)", () => {
  it("never more than floor(T / base) + 1 connections in any T ms, whatever the server does", () => {
    fc.assert(
      fc.property(
        fc.array(serverTurn, { minLength: 1, maxLength: 200 }),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        fc.constantFrom(1_000, 10_000, 60_000),
        (turns, r, windowMs) => {
          const run = simulate(turns, () => r);
          for (const d of run.delays) {
            expect(d).toBeGreaterThanOrEqual(BASE);
            expect(d).toBeLessThanOrEqual(MAX);
          }
          expect(mostStartsIn(run.starts, windowMs)).toBeLessThanOrEqual(
            Math.floor(windowMs / BASE) + 1,
          );
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("short connections without anything new back off like refused ones: at most a handful in 10 minutes", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            live: fc.boolean(),
            openMs: fc.integer({ min: 0, max: DEFAULT_HEALTHY_CONNECTION_MS - 1 }),
            progress: fc.constant(false),
            retryAfterMs: fc.oneof(fc.constant(null), fc.constant(0)),
            serverRetry: fc.oneof(fc.constant(null), fc.constant(0)),
          }),
          { minLength: 50, maxLength: 50 },
        ),
        (turns) => {
          const run = simulate(turns, () => 0.5);
          // 1, 2, 4, 8, 16, 32 s, then 60 s each: 6 + (600 - 63) / 60 < 16 starts in 10 min.
          expect(mostStartsIn(run.starts, 600_000)).toBeLessThanOrEqual(16);
          for (let i = 1; i < run.delays.length; i++) {
            expect(run.delays[i]).toBeGreaterThanOrEqual(run.delays[i - 1] as number);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("Retry-After is honoured up to the cap, and a longer one is reported as cut", () => {
    const p = new ReconnectPolicy({ baseMs: BASE, maxMs: MAX });
    expect(p.next({ live: false, openMs: 1, progress: false, retryAfterMs: 7000 })).toMatchObject({
      delayMs: 7000,
      cappedFromMs: null,
    });
    expect(
      p.next({ live: false, openMs: 1, progress: false, retryAfterMs: 999_999_999_000 }),
    ).toMatchObject({ delayMs: MAX, cappedFromMs: 999_999_999_000 });
  });

  it("a server's retry: lengthens the base, never shortens it", () => {
    const p = new ReconnectPolicy({ baseMs: BASE, maxMs: MAX });
    p.serverRetry(0);
    expect(p.next({ live: true, openMs: 1, progress: true, retryAfterMs: null }).delayMs).toBe(
      BASE,
    );
    p.serverRetry(5000);
    expect(p.next({ live: true, openMs: 1, progress: true, retryAfterMs: null }).delayMs).toBe(
      5000,
    );
  });
});
