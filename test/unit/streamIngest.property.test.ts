import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NotFoundError } from "../../src/client/errors.js";
import type { StreamNotice, StreamStatus } from "../../src/client/eventStream.js";
import { decodeEvent } from "../../src/protocol/events.js";
import { stateNeedsAttention } from "../../src/protocol/states.js";
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
  queueNotice,
  queueStatus,
} from "../../src/store/streams/ingest.js";
import {
  newSessionStream,
  type SessionStream,
  type StreamMeta,
} from "../../src/store/streams/sessionStream.js";
import { gapNotice } from "../../src/text/format.js";

/**
 * Stream ingest applied straight to a draft, with no store and no timer: what a session ends
 * up as must not depend on how the flushes happened to cut its items into batches, and every
 * item must be counted once, under its kind. Notices of the subscription (a gap on a stream
 * without ids, replayed duplicates dropped) and a state read from the record after a gap are
 * items like any other.
 */

const T0 = 1_700_000_000_000;
const MAX_CHARS = 16_384;

type Op =
  | { op: "item"; event: string | undefined; data: string; id: string | undefined; dt: number }
  | { op: "status"; status: StreamStatus; dt: number }
  | { op: "meta"; meta: StreamMeta }
  | { op: "notice"; notice: StreamNotice; dt: number };

const STATES = ["paused", "active", "running", "error", "destroyed", "creating"] as const;

const json = (o: Record<string, unknown>) => JSON.stringify(o);
const text = fc.constantFrom("a", "word ", "line\n", "x".repeat(5000), "\u001b[31mred", "");
const itemOp: fc.Arbitrary<Op> = fc
  .record({
    pair: fc.oneof(
      text.map((t) => ["process_output", json({ text: t })] as const),
      text.map((t) => ["prompt_progress", json({ type: "text", content: t })] as const),
      fc.constant(["file_changed", json({ path: "src/a.ts", action: "modified" })] as const),
      fc
        .constantFrom(...STATES)
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
    // What the controller reports after reading the record again once a gap was announced.
    sessionState: fc.option(fc.constantFrom(...STATES), { nil: undefined }),
  })
  .map((meta) => ({ op: "meta", meta }));

const noticeOp: fc.Arbitrary<Op> = fc
  .record({
    notice: fc.oneof(
      fc
        .tuple(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 5000 }))
        .map(([a, b]): StreamNotice => ({ kind: "gap", from: T0 + a, to: T0 + a + b })),
      fc.integer({ min: 1, max: 40 }).map((count): StreamNotice => ({ kind: "duplicates", count })),
    ),
    dt: fc.integer({ min: 0, max: 700 }),
  })
  .map(({ notice, dt }) => ({ op: "notice", notice, dt }));

const ops = fc.array(
  fc.oneof(
    { weight: 8, arbitrary: itemOp },
    statusOp,
    { weight: 1, arbitrary: metaOp },
    { weight: 1, arbitrary: noticeOp },
  ),
  { maxLength: 60 },
);

/** Reconnects, gaps and replays often, between fewer events. */
const stormyOps = fc.array(
  fc.oneof(
    { weight: 2, arbitrary: itemOp },
    { weight: 3, arbitrary: statusOp },
    { weight: 1, arbitrary: metaOp },
    { weight: 3, arbitrary: noticeOp },
  ),
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
        queueMeta(ingest, o.meta, o.meta.sessionState ? at : 0);
        continue;
      }
      at += o.dt;
      if (o.op === "item") queueItem(ingest, o.event, o.data, o.id, at);
      else if (o.op === "notice") queueNotice(ingest, o.notice, at);
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
    duplicates: s.duplicates,
    gaps: s.gaps,
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
        // Lost and reconnected alternate, starting with a loss; a stop ends an outage too,
        // and so does a gap marker, which stands in for "reconnected after".
        let down = false;
        for (const t of texts) {
          if (t.startsWith("connection lost")) {
            expect(down).toBe(false);
            down = true;
          } else if (t.startsWith("reconnected after")) {
            expect(down).toBe(true);
            down = false;
          } else if (t.startsWith("stream") || t.startsWith("reconnected —")) down = false;
        }
      }),
      { numRuns: 300 },
    );
  });

  it("marks each gap where the stream came back, and counts dropped replays once", () => {
    fc.assert(
      fc.property(stormyOps, fc.array(fc.nat(), { maxLength: 6 }), (all, cuts) => {
        const { stream } = run(all, cuts);
        // The model: a gap waits for the next "live" and is written there (the newest gap
        // announced wins); every batch of dropped duplicates is said and counted.
        let pending: { from: number; to: number } | null = null;
        const expected: string[] = [];
        let gaps = 0;
        let duplicates = 0;
        for (const o of all) {
          if (o.op === "notice" && o.notice.kind === "gap") {
            pending = { from: o.notice.from, to: o.notice.to };
            gaps++;
          } else if (o.op === "notice" && o.notice.kind === "duplicates") {
            expected.push(
              `dropped ${o.notice.count} replayed event${o.notice.count === 1 ? "" : "s"} already shown`,
            );
            duplicates += o.notice.count;
          } else if (o.op === "status" && o.status.state === "live" && pending) {
            expected.push(gapNotice(pending.from, pending.to));
            pending = null;
          }
        }
        expect(stream.gaps).toBe(gaps);
        expect(stream.duplicates).toBe(duplicates);
        const entries = stream.timeline.toArray();
        const written = entries
          .filter((e) => e.kind === "notice")
          .map((e) => e.text)
          .filter((t) => t.startsWith("dropped") || t.startsWith("reconnected —"));
        // The timeline keeps the newest 50 entries: below that nothing was evicted.
        if (entries.length < 50) expect(written).toEqual(expected);
        else expect(written).toEqual(expected.slice(expected.length - written.length));
      }),
      { numRuns: 300 },
    );
  });

  it("wants attention while the session waits or failed, from its events or its record", () => {
    fc.assert(
      fc.property(stormyOps, (all) => {
        const { stream } = run(all, []);
        let last: string | null = null;
        let sawState = false;
        for (const o of all) {
          if (o.op === "meta" && o.meta.sessionState) {
            last = o.meta.sessionState;
            sawState = true;
          } else if (o.op === "item" && o.event === "state_changed") {
            const ev = decodeEvent(o.event, o.data, o.id);
            if (ev.kind === "state_changed") {
              last = ev.data.state;
              sawState = true;
            }
          }
        }
        if (sawState) expect(stream.sessionState).toBe(last);
        // Paused, error or destroyed: the session is flagged (by that state, or by a stopped
        // stream); any other flag names the state the session is in now, or the stream.
        if (stateNeedsAttention(stream.sessionState)) expect(stream.attention).not.toBeNull();
        if (stream.attention && stream.attention.reason !== "stopped") {
          expect(stream.attention.reason).toBe(stream.sessionState);
        }
      }),
      { numRuns: 300 },
    );
  });
});
