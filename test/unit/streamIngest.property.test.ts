import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NotFoundError } from "../../src/client/errors.js";
import type { StreamStatus } from "../../src/client/eventStream.js";
import { decodeEvent } from "../../src/protocol/events.js";
import type { TimelineKind } from "../../src/store/streams/entry.js";
import {
  applyQueue,
  type Draft,
  draftOf,
  EVENT_KIND_TO_TIMELINE,
  type Ingest,
  newIngest,
  queueItem,
  queueMeta,
  queueStatus,
} from "../../src/store/streams/ingest.js";
import {
  newSessionStream,
  type SessionStream,
  type StreamMeta,
} from "../../src/store/streams/sessionStream.js";

/**
 * Stream ingest applied straight to a draft, with no store and no timer: what a session ends
 * up as must not depend on how the flushes happened to cut its items into batches, and every
 * item must be counted once, under its kind.
 */

const T0 = 1_700_000_000_000;
const MAX_CHARS = 16_384;

type Op =
  | { op: "item"; event: string | undefined; data: string; id: string | undefined; dt: number }
  | { op: "status"; status: StreamStatus; dt: number }
  | { op: "meta"; meta: StreamMeta };

const json = (o: Record<string, unknown>) => JSON.stringify(o);
const text = fc.constantFrom("a", "word ", "line\n", "x".repeat(5000), "\u001b[31mred", "");
const itemOp: fc.Arbitrary<Op> = fc
  .record({
    pair: fc.oneof(
      text.map((t) => ["process_output", json({ text: t })] as const),
      text.map((t) => ["prompt_progress", json({ type: "text", content: t })] as const),
      fc.constant(["file_changed", json({ path: "src/a.ts", action: "modified" })] as const),
      fc
        .constantFrom("paused", "active")
        .map((s) => ["state_changed", json({ state: s, previous_state: "x" })] as const),
      fc.constant(["heartbeat", json({ timestamp: "2026-01-01T00:00:00Z" })] as const),
      fc.constant(["tool_call", json({ name: "grep" })] as const),
      fc.tuple(
        fc.constantFrom("process_output", "state_changed", undefined),
        fc.constantFrom("{not json", "null", '{"state":5}'),
      ),
    ),
    id: fc.option(fc.integer({ min: 1, max: 999 }).map(String), { nil: undefined }),
    dt: fc.integer({ min: 0, max: 700 }),
  })
  .map(({ pair, id, dt }) => ({ op: "item", event: pair[0], data: pair[1], id, dt }));

const statusOp: fc.Arbitrary<Op> = fc
  .record({
    status: fc.constantFrom<StreamStatus>(
      { state: "connecting", attempt: 1 },
      { state: "live", since: T0 },
      {
        state: "reconnecting",
        attempt: 1,
        delayMs: 100,
        retryAt: T0 + 100,
        reason: "reset\nby peer",
      },
      { state: "stopped", reason: "closed", error: null },
      { state: "stopped", reason: "gone", error: new NotFoundError("session gone") },
    ),
    dt: fc.integer({ min: 0, max: 700 }),
  })
  .map(({ status, dt }) => ({ op: "status", status, dt }));

const metaOp: fc.Arbitrary<Op> = fc
  .record({
    lastEventId: fc.option(fc.constantFrom("m1", "m2"), { nil: undefined }),
    heartbeatIntervalMs: fc.option(fc.constantFrom(1000, 15000), { nil: undefined }),
    watchdogMs: fc.option(fc.constantFrom(45000), { nil: undefined }),
  })
  .map((meta) => ({ op: "meta", meta }));

const ops = fc.array(
  fc.oneof({ weight: 8, arbitrary: itemOp }, statusOp, { weight: 1, arbitrary: metaOp }),
  { maxLength: 60 },
);

function fresh(): { stream: SessionStream; ingest: Ingest } {
  return {
    stream: newSessionStream(
      "ses_a",
      { state: "connecting", attempt: 0 },
      { capacity: 50, maxEntryChars: MAX_CHARS, rateWindowMs: 2000, openedAt: T0 },
    ),
    ingest: newIngest("ses_a", MAX_CHARS),
  };
}

/** Queue the ops and apply them, one batch per slice of `cuts`. */
function run(all: readonly Op[], cuts: readonly number[]) {
  let { stream, ingest } = fresh();
  let raised = false;
  let at = T0;
  const bounds = [...new Set([0, ...cuts.map((c) => c % (all.length + 1)), all.length])].sort(
    (a, b) => a - b,
  );
  for (let b = 0; b + 1 < bounds.length; b++) {
    for (const o of all.slice(bounds[b], bounds[b + 1])) {
      if (o.op === "meta") {
        queueMeta(ingest, o.meta);
        continue;
      }
      at += o.dt;
      if (o.op === "item") queueItem(ingest, o.event, o.data, o.id, at);
      else queueStatus(ingest, o.status, undefined, at);
    }
    const d: Draft = draftOf(stream);
    if (applyQueue(d, ingest)) raised = true;
    expect(ingest.queue.length).toBe(0);
    stream = d;
  }
  return { stream, raised, end: at };
}

/** Everything a reader of the session can see. */
function seen(r: ReturnType<typeof run>) {
  const s = r.stream;
  return {
    entries: s.timeline.toArray().map((e) => ({ ...e })),
    counts: s.counts,
    totalEvents: s.totalEvents,
    lastEventId: s.lastEventId,
    lastActivityAt: s.lastActivityAt,
    lastHeartbeatAt: s.lastHeartbeatAt,
    heartbeatIntervalMs: s.heartbeatIntervalMs,
    watchdogMs: s.watchdogMs,
    sessionState: s.sessionState,
    status: s.status.state,
    attention: s.attention,
    rate: s.rateMeter.rate(r.end),
    raised: r.raised,
  };
}

describe("stream ingest", () => {
  it("gives the same session however the items were cut into batches", () => {
    fc.assert(
      fc.property(ops, fc.array(fc.nat(), { maxLength: 6 }), (all, cuts) => {
        expect(seen(run(all, cuts))).toEqual(seen(run(all, [])));
      }),
      { numRuns: 300 },
    );
  });

  it("counts every item once under its kind, and keeps the last id it saw", () => {
    fc.assert(
      fc.property(ops, (all) => {
        const { stream } = run(all, []);
        const counts: Partial<Record<TimelineKind, number>> = {};
        let total = 0;
        let lastId: string | null = null;
        for (const o of all) {
          if (o.op === "meta") {
            if (o.meta.lastEventId) lastId = o.meta.lastEventId;
            continue;
          }
          if (o.op !== "item") continue;
          if (o.id) lastId = o.id;
          // Kept undecoded items count under their event name; the rest as they decode.
          const lazy = ["process_output", "prompt_progress", "file_changed"].includes(
            o.event ?? "",
          );
          const kind = lazy
            ? EVENT_KIND_TO_TIMELINE[o.event as "process_output"]
            : EVENT_KIND_TO_TIMELINE[decodeEvent(o.event, o.data, o.id).kind];
          counts[kind] = (counts[kind] ?? 0) + 1;
          if (kind !== "heartbeat") total++;
        }
        for (const [kind, n] of Object.entries(stream.counts)) {
          expect(n, kind).toBe(counts[kind as TimelineKind] ?? 0);
        }
        expect(stream.totalEvents).toBe(total);
        expect(stream.lastEventId).toBe(lastId);
      }),
      { numRuns: 300 },
    );
  });

  it("says once that the connection was lost, and once that it came back", () => {
    fc.assert(
      fc.property(ops, (all) => {
        const { stream } = run(all, []);
        const texts = stream.timeline
          .toArray()
          .filter((e) => e.kind === "notice")
          .map((e) => e.text);
        // One line each: a reason with a newline in it is folded.
        expect(texts.filter((t) => t.includes("\n"))).toEqual([]);
        const notices = texts.map((t) => t.split(" ")[0]);
        // Lost and reconnected alternate, starting with a loss; a stop ends an outage too.
        let down = false;
        for (const n of notices) {
          if (n === "connection") {
            expect(down).toBe(false);
            down = true;
          } else if (n === "reconnected") {
            expect(down).toBe(true);
            down = false;
          } else if (n === "stream") down = false;
        }
      }),
      { numRuns: 300 },
    );
  });
});
