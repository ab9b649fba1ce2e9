import { performance } from "node:perf_hooks";
import { Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import {
  type StreamStatus,
  type Subscription,
  subscribeToSession,
} from "../../src/client/eventStream.js";
import type { SessionEvent } from "../../src/protocol/index.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { createRandom } from "../../src/server/random.js";

/**
 * Chaos: four streams while the reference service drops connections, stalls them, answers
 * 429 with Retry-After and 5xx, at random (seeded) for about 20 s, with events flowing all
 * along. Afterwards: every event of every session arrived exactly once and in order, every
 * reconnect waited as long as the backoff schedule says (no storm), the service saw exactly
 * the requests the client scheduled, and no socket or timer is left behind.
 */

const FLOOD_MS = 20_000;
const EVENTS_PER_SECOND = 150;
const BASE_MS = 20;
const MAX_DELAY_MS = 1500;
const JITTER = 0.2;
/** Timers fire late, never early; the clock is read in ms on both sides. */
const TIMER_SLACK_MS = 2;

/** The reference service's seeded generator, so a failing run can be replayed. */
function seeded(seed: number): () => number {
  const r = createRandom(seed);
  return () => r.next();
}

interface StatusAt {
  at: number;
  status: StreamStatus;
}

interface Watched {
  sessionId: string;
  sub: Subscription;
  ids: number[];
  statuses: StatusAt[];
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function counts(list: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const k of list) m.set(k, (m.get(k) ?? 0) + 1);
  return m;
}

/** Polls a condition (bounded), instead of sleeping a fixed time. */
async function waitFor(cond: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("chaos", () => {
  it("four streams through drops, stalls, 429 and 5xx: nothing lost, no storm, nothing left", async () => {
    const baseline = counts(process.getActiveResourcesInfo());
    const requests = new Map<string, number>();
    const ref: ReferenceServer = await startServer({
      seed: 2024,
      paceMs: 0,
      heartbeatMs: 50,
      sessionCount: 4,
      // A generous limit the service announces: the client's request budget learns it (without
      // the headers it would pace every reconnect at the documented 100 a minute).
      rateLimit: { limit: 1_000_000, windowMs: 60_000 },
      historyLimit: 20_000,
      log: (line) => {
        const m = /^GET \/api\/cloud\/sessions\/([^/]+)\/events /.exec(line);
        if (m) requests.set(m[1] as string, (requests.get(m[1] as string) ?? 0) + 1);
      },
    });
    let closed = false;
    cleanups.push(async () => {
      if (!closed) await ref.close();
    });
    const agent = new Agent({ keepAliveTimeout: 1000 });
    cleanups.push(() => agent.destroy());
    const rand = seeded(7);
    const jitterRand = seeded(8);

    const watched: Watched[] = ref.sessionIds().map((sessionId) => {
      const w: Watched = {
        sessionId,
        sub: undefined as unknown as Subscription,
        ids: [],
        statuses: [],
      };
      w.sub = subscribeToSession({
        config: { baseUrl: ref.url, apiKey: ref.key("owner"), dispatcher: agent },
        sessionId,
        backoffBaseMs: BASE_MS,
        maxDelayMs: MAX_DELAY_MS,
        random: jitterRand,
        watchdog: { floorMs: 150, initialMs: 300, ceilingMs: 1000 },
        onEvent: (ev: SessionEvent) => {
          if (ev.kind !== "heartbeat" && ev.id !== null) w.ids.push(Number(ev.id));
        },
        onStatus: (status) => w.statuses.push({ at: performance.now(), status }),
      });
      cleanups.push(() => w.sub.close());
      return w;
    });
    await waitFor(() => watched.every((w) => w.sub.status.state === "live"), "every stream live");

    const flood = ref.flood(ref.sessionIds(), EVENTS_PER_SECOND, FLOOD_MS);
    const started = Date.now();
    const injected = { drop: 0, stall: 0, "429": 0, "5xx": 0 };
    // The chaos loop: bounded by the flood's duration, one fault at a time, then a calm spell.
    for (let round = 0; round < 200 && Date.now() - started < FLOOD_MS - 2500; round++) {
      const kind = Math.floor(rand() * 4);
      if (kind === 0) {
        injected.drop++;
        ref.faults.set({ dropAfter: 1 + Math.floor(rand() * 20) });
        await pause(200 + rand() * 400);
        ref.faults.set({ dropAfter: null });
      } else if (kind === 1) {
        // Cut every stream; the reconnects find a service that answers and then says nothing.
        injected.stall++;
        ref.faults.set({ stall: true, dropAfter: 1 });
        await pause(400 + rand() * 500);
        ref.faults.set({ stall: false, dropAfter: null });
      } else if (kind === 2) {
        injected["429"]++;
        const retryAfter = rand() < 0.5 ? "0.1" : "1";
        ref.faults.set({
          failStatus: 429,
          failCount: 2 + Math.floor(rand() * 6),
          failRetryAfter: retryAfter,
          dropAfter: 1,
        });
        await pause(100);
        ref.faults.set({ dropAfter: null });
        await pause(300 + rand() * 300);
        ref.faults.set({ failStatus: null, failCount: 0, failRetryAfter: null });
      } else {
        injected["5xx"]++;
        const status = [500, 502, 503][Math.floor(rand() * 3)] as number;
        ref.faults.set({
          failStatus: status,
          failCount: 3 + Math.floor(rand() * 8),
          failRetryAfter: null,
          dropAfter: 1,
        });
        await pause(100);
        ref.faults.set({ dropAfter: null });
        await pause(300 + rand() * 300);
        ref.faults.set({ failStatus: null, failCount: 0 });
      }
      await pause(150 + rand() * 350);
    }
    ref.faults.reset();
    const { perSession } = await flood;
    await waitFor(
      () => watched.every((w) => w.sub.lastEventId === String(perSession)),
      "every session's last event",
    );

    // Every fault kind happened, and the streams really went through reconnects.
    expect(Math.min(...Object.values(injected))).toBeGreaterThan(0);
    const reasons = watched.flatMap((w) =>
      w.statuses.flatMap((s) => (s.status.state === "reconnecting" ? [s.status.reason] : [])),
    );
    expect(reasons.some((r) => r.includes("watchdog"))).toBe(true);
    expect(reasons.some((r) => r.startsWith("rate limited (429)"))).toBe(true);
    expect(reasons.some((r) => /^HTTP 50[023]/.test(r))).toBe(true);
    expect(reasons.some((r) => r === "stream ended by the server")).toBe(true);

    const expectedIds = Array.from({ length: perSession }, (_, i) => i + 1);
    for (const w of watched) {
      // Complete, in order, no duplicates.
      expect(w.ids.length, w.sessionId).toBe(perSession);
      expect(w.ids, w.sessionId).toEqual(expectedIds);

      // No storm: every wait is within the schedule, and no attempt came before its wait ended.
      for (const [i, s] of w.statuses.entries()) {
        if (s.status.state !== "reconnecting") continue;
        const { delayMs, attempt, reason } = s.status;
        const retryAfter = /retry after ([\d.]+)s/.exec(reason);
        // The backoff schedule is a floor under every wait, Retry-After or not (the reconnect
        // floor): failures in a row never come back sooner than their backoff.
        const plain = Math.min(BASE_MS * 2 ** (attempt - 1), MAX_DELAY_MS);
        expect(delayMs).toBeGreaterThanOrEqual(Math.floor(plain * (1 - JITTER)));
        if (retryAfter) {
          // Retry-After is honoured: never sooner than asked (both values are below the cap),
          // and no later than the longer of it and the schedule's cap.
          const asked = Number(retryAfter[1]) * 1000;
          expect(delayMs).toBeGreaterThanOrEqual(asked);
          expect(delayMs).toBeLessThanOrEqual(Math.max(asked, MAX_DELAY_MS));
        } else {
          expect(delayMs).toBeLessThanOrEqual(MAX_DELAY_MS);
        }
        const next = w.statuses[i + 1];
        // A wait ends in the next attempt (or, at the very end, in close()).
        if (next?.status.state === "stopped") continue;
        expect(next?.status.state).toBe("connecting");
        expect((next as StatusAt).at - s.at).toBeGreaterThanOrEqual(delayMs - TIMER_SLACK_MS);
      }
    }

    for (const w of watched) w.sub.close();
    await Promise.all(watched.map((w) => w.sub.done));
    await waitFor(() => ref.connections() === 0, "the service to see every stream closed");
    // The service saw the attempts the client scheduled and no more: no hidden retries (one
    // attempt may have been cut by close() before it reached the service).
    for (const w of watched) {
      const attempts = w.statuses.filter((s) => s.status.state === "connecting").length;
      expect(requests.get(w.sessionId), w.sessionId).toBeLessThanOrEqual(attempts);
      expect(requests.get(w.sessionId), w.sessionId).toBeGreaterThanOrEqual(attempts - 1);
    }
    await ref.close();
    closed = true;
    await agent.close();

    // Nothing of ours is left: the same sockets, servers and timers as before the test.
    await waitFor(
      () => {
        const now = counts(process.getActiveResourcesInfo());
        return [...now].every(([k, n]) => n <= (baseline.get(k) ?? 0));
      },
      "handles back to the baseline",
      5000,
    );
  }, 60_000);
});
