import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { EventName } from "../../src/protocol/eventNames.js";
import {
  decodeEvent,
  FileChangedSchema,
  HeartbeatSchema,
  ProcessOutputSchema,
  PromptProgressSchema,
  StateChangedSchema,
} from "../../src/protocol/events.js";
import { payloadAccepted } from "../../src/protocol/payloadCheck.js";

/**
 * The hand-written payload checks against the zod schemas they stand in for: the same answer
 * for any value, and decodeEvent hands out data equal to what the schema would have parsed.
 */

const SCHEMAS = {
  prompt_progress: PromptProgressSchema,
  file_changed: FileChangedSchema,
  process_output: ProcessOutputSchema,
  state_changed: StateChangedSchema,
  heartbeat: HeartbeatSchema,
} as const;
const NAMES = Object.keys(SCHEMAS) as EventName[];

/** The fields each schema looks at. */
const FIELDS: Record<EventName, string[]> = {
  prompt_progress: ["type", "content"],
  file_changed: ["path", "action"],
  process_output: ["text", "stream", "line"],
  state_changed: ["state", "previous_state"],
  heartbeat: ["timestamp"],
};

const anyValue = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 4 }) },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.integer() },
  {
    weight: 2,
    arbitrary: fc.constantFrom(null, undefined, true, false, Number.NaN, Infinity, -Infinity, -0),
  },
  { weight: 1, arbitrary: fc.array(fc.string(), { maxLength: 2 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 3 }), fc.string(), { maxKeys: 2 }) },
);

/** For one event: an object with some of its schema's fields (of any type) and others. */
const payloadOf = (name: EventName) =>
  fc
    .tuple(
      fc.record(Object.fromEntries(FIELDS[name].map((f) => [f, anyValue])), {
        requiredKeys: [],
      }),
      fc.dictionary(fc.string({ maxLength: 6 }), anyValue, { maxKeys: 2 }),
    )
    .map(([known, extra]) => ({ ...extra, ...known }));

const named = fc
  .constantFrom(...NAMES)
  .chain((name) => fc.tuple(fc.constant(name), payloadOf(name)));

/** Payloads and everything else decodeEvent or a caller could hand over. */
const anything = fc.oneof(
  { weight: 6, arbitrary: named },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constantFrom(...NAMES),
      fc.anything({ withBoxedValues: true, withNullPrototype: true }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom(...NAMES), fc.object({ withNullPrototype: true })),
  },
);

describe("payloadAccepted", () => {
  it("accepts exactly what the zod schema accepts, for any value", () => {
    fc.assert(
      fc.property(anything, ([name, value]) => {
        expect(payloadAccepted(name, value)).toBe(SCHEMAS[name].safeParse(value).success);
      }),
      { numRuns: 3000 },
    );
  });

  it("makes decodeEvent yield what the schema parses, and its errors for what it refuses", () => {
    fc.assert(
      fc.property(
        fc.oneof(named, fc.tuple(fc.constantFrom(...NAMES), fc.jsonValue())),
        ([name, value]) => {
          const text = JSON.stringify(value) ?? "null";
          const json: unknown = JSON.parse(text);
          const parsed = SCHEMAS[name].safeParse(json);
          const ev = decodeEvent(name, text, "1");
          if (parsed.success) {
            expect(ev).toEqual({ kind: name, id: "1", data: parsed.data });
          } else {
            expect(ev.kind).toBe("malformed");
            if (
              ev.kind === "malformed" &&
              json !== null &&
              typeof json === "object" &&
              !Array.isArray(json)
            ) {
              const issue = parsed.error.issues[0];
              expect(ev.error).toBe(
                `${name}: ${issue?.path.join(".") || "data"}: ${issue?.message ?? "invalid"}`,
              );
            }
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("leaves an own __proto__ key to the schema, as zod copies it", () => {
    const text = '{"timestamp":"2026-01-01T00:00:00Z","__proto__":{"polluted":true}}';
    const ev = decodeEvent("heartbeat", text, undefined);
    expect(ev).toEqual({
      kind: "heartbeat",
      id: null,
      data: HeartbeatSchema.parse(JSON.parse(text)),
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
