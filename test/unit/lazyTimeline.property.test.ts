import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { decodeEvent } from "../../src/protocol/events.js";
import { createStreamsStore, type StreamsStore } from "../../src/store/streams/streamsStore.js";

/**
 * Items the store keeps undecoded (pushItem) must end up as exactly the timeline that decoding
 * every item on arrival (pushEvent(decodeEvent(…))) gives: same entries, same joins of prompt
 * text, same cuts, whenever the undecoded ones happen to be read.
 */

const T0 = 1_700_000_000_000;
const ID = "ses_a";
const stores: StreamsStore[] = [];

afterEach(() => {
  for (const s of stores.splice(0)) s.getState().dispose();
});

const piece = fc.constantFrom(
  "a",
  "word ",
  " ",
  "\n",
  "\r\n",
  "\\",
  '"',
  "\u009b31m",
  "\u001b[31m",
  "\u0007",
  "\u007f",
  "é",
  "🎉",
  "",
);
const text = fc.oneof(
  { weight: 8, arbitrary: fc.array(piece, { maxLength: 8 }).map((a) => a.join("")) },
  { weight: 1, arbitrary: fc.integer({ min: 4000, max: 5000 }).map((n) => "x".repeat(n)) },
);
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const ts = maybe(fc.constantFrom(T0 - 5, 1_700_000_000, "2026-01-01T00:00:00Z"));

const json = (o: Record<string, unknown>) => JSON.stringify(o);
const item = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .record({ type: fc.constantFrom("text", "text", "text", "thinking", 5), content: text, ts })
      .map((o) => ["prompt_progress", json(o)] as const),
  },
  {
    weight: 4,
    arbitrary: fc
      .record({ text: maybe(text), stream: maybe(fc.constantFrom("stdout", "stderr")), ts })
      .map((o) => ["process_output", json(o)] as const),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ path: text, action: fc.constantFrom("created", "modified") })
      .map((o) => ["file_changed", json(o)] as const),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ state: fc.constantFrom("paused", "active"), previous_state: fc.constant("idle") })
      .map((o) => ["state_changed", json(o)] as const),
  },
  {
    weight: 1,
    arbitrary: fc.constant(["heartbeat", json({ timestamp: "2026-01-01T00:00:00Z" })] as const),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(
      fc.constantFrom("process_output", "prompt_progress", "file_changed", "tool_call", undefined),
      fc.constantFrom("{not json", "null", "[1]", '{"text":5}', '{"type":"text"}', "", '""'),
    ),
  },
);

type Op =
  | { op: "item"; event: string | undefined; data: string; id: string | undefined }
  | { op: "flush" }
  | { op: "read" }
  | { op: "lost" }
  | { op: "live" };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .tuple(item, fc.constantFrom(undefined, "", "7", "8"))
      .map(([[event, data], id]) => ({ op: "item" as const, event, data, id })),
  },
  { weight: 2, arbitrary: fc.constant({ op: "flush" as const }) },
  { weight: 2, arbitrary: fc.constant({ op: "read" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "lost" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "live" as const }) },
);

describe("undecoded timeline items", () => {
  it("make the same timeline as decoding each item on arrival", () => {
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 40 }),
        fc.constantFrom(4, 50),
        fc.constantFrom(16_384, 30),
        (ops, capacity, maxEntryChars) => {
          const opts = { flushMs: 1_000_000, capacity, maxEntryChars, now: () => T0 };
          const lazy = createStreamsStore(opts);
          const eager = createStreamsStore(opts);
          stores.push(lazy, eager);
          for (const s of [lazy, eager]) s.getState().ensure(ID);
          ops.forEach((o, i) => {
            const at = T0 + i;
            switch (o.op) {
              case "item":
                lazy.getState().pushItem(ID, o.event, o.data, o.id, at);
                eager.getState().pushEvent(ID, decodeEvent(o.event, o.data, o.id), at);
                break;
              case "flush":
                for (const s of [lazy, eager]) s.getState().flushNow();
                break;
              case "read":
                // Decodes whatever is undecoded so far, before what comes next is added.
                lazy.getState().sessions[ID]?.timeline.toArray();
                break;
              case "lost":
              case "live": {
                const status =
                  o.op === "live"
                    ? ({ state: "live", since: at } as const)
                    : ({
                        state: "reconnecting",
                        attempt: 1,
                        delayMs: 10,
                        retryAt: at + 10,
                        reason: "reset",
                      } as const);
                for (const s of [lazy, eager]) s.getState().pushStatus(ID, status);
                break;
              }
            }
          });
          for (const s of [lazy, eager]) s.getState().flushNow();
          const a = lazy.getState().sessions[ID];
          const b = eager.getState().sessions[ID];
          expect(a?.timeline.toArray()).toEqual(b?.timeline.toArray());
          expect(a?.timeline.dropped).toBe(b?.timeline.dropped);
          for (const k of [
            "lastEventId",
            "lastActivityAt",
            "lastHeartbeatAt",
            "totalEvents",
            "sessionState",
            "attention",
          ] as const) {
            expect(a?.[k]).toEqual(b?.[k]);
          }
        },
      ),
      { numRuns: 1500 },
    );
  });
});
