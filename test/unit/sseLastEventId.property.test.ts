import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSseReader, lastEventIdHeader, nextLastEventId } from "../../src/client/sseReader.js";

/**
 * The last event id as WHATWG defines it, whatever the chunking and line endings: an `id:`
 * field sets the buffer (unless it holds a NUL), every blank line that ends an item copies the
 * buffer to the last event id, also for an item without data (which is then not dispatched),
 * and an unterminated item at the end of the stream counts for nothing.
 */

interface Item {
  id?: string;
  event?: string;
  data: string[];
  comment?: string;
}

const idValue = fc.oneof(
  fc.constant(""),
  fc.stringMatching(/^[a-z0-9☃-]{1,6}$/),
  fc.constant("x\0y"),
  fc.constant("data"),
);
const item = fc.record(
  {
    id: idValue,
    event: fc.constantFrom("prompt_progress", "heartbeat", "x"),
    data: fc.array(fc.stringMatching(/^[a-z {}":]{0,8}$/), { maxLength: 2 }),
    comment: fc.constantFrom("ping", "id: 99", "data: no"),
  },
  { requiredKeys: ["data"] },
);

function serialize(items: Item[], eol: string, terminated: boolean): string {
  let out = "";
  items.forEach((it, i) => {
    if (it.comment !== undefined) out += `:${it.comment}${eol}`;
    if (it.event !== undefined) out += `event: ${it.event}${eol}`;
    if (it.id !== undefined) out += `id: ${it.id}${eol}`;
    for (const d of it.data) out += `data: ${d}${eol}`;
    if (terminated || i < items.length - 1) out += eol;
  });
  return out;
}

/** WHATWG, item by item: (data, last event id) of each dispatch, and the final last event id. */
function reference(items: Item[], terminated: boolean) {
  let buffer: string | null = null;
  let last: string | null = null;
  const dispatched: [string, string | null][] = [];
  items.forEach((it, i) => {
    if (it.id !== undefined && !it.id.includes("\0")) buffer = it.id === "" ? null : it.id;
    if (!terminated && i === items.length - 1) return;
    last = buffer;
    if (it.data.length > 0) dispatched.push([it.data.join("\n"), last]);
  });
  return { dispatched, last };
}

function read(text: string, cuts: number[]) {
  const bytes = Buffer.from(text, "utf8");
  let last: string | null = null;
  const dispatched: [string, string | null][] = [];
  const reader = createSseReader({
    maxEventBytes: 1 << 20,
    onMessage: (m) => {
      last = nextLastEventId(last, m.id);
      dispatched.push([m.data, last]);
    },
    onId: (id) => {
      last = nextLastEventId(last, id);
    },
  });
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const p of [...points, bytes.length]) {
    if (p > from) reader.push(bytes.subarray(from, p));
    from = Math.max(from, p);
  }
  reader.end();
  return { dispatched, last };
}

describe("last event id (property)", () => {
  it("matches WHATWG for any items, chunking and line ending, data-less ids included", () => {
    fc.assert(
      fc.property(
        fc.array(item, { minLength: 1, maxLength: 12 }),
        fc.constantFrom("\n", "\r\n", "\r"),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 8 }),
        (items, eol, terminated, cuts) => {
          const text = serialize(items, eol, terminated);
          expect(read(text, cuts)).toEqual(reference(items, terminated));
        },
      ),
      { numRuns: 3000 },
    );
  });
});

/**
 * A busy stream: nearly every item is a message with an id of its own, and the reader only
 * walks a run when a message without one, or a data-less last item, makes it matter. Long
 * runs, so one chunk holds many items and the rare ones land anywhere in it.
 */
const busyItem = fc.oneof(
  { weight: 12, arbitrary: fc.nat(9999).map((n): Item => ({ id: String(n), data: [`m${n}`] })) },
  { weight: 1, arbitrary: idValue.map((id): Item => ({ id, data: [] })) },
  { weight: 1, arbitrary: fc.constant<Item>({ data: ["no id"] }) },
  { weight: 1, arbitrary: fc.constant<Item>({ data: [], comment: "keep-alive" }) },
  { weight: 1, arbitrary: fc.constant<Item>({ data: [] }) },
);

describe("last event id on a busy stream (property)", () => {
  it("matches WHATWG when data-less ids are rare and chunks hold many items", () => {
    fc.assert(
      fc.property(
        fc.array(busyItem, { minLength: 1, maxLength: 200 }),
        fc.constantFrom("\n", "\r\n"),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 4 }),
        (items, eol, terminated, cuts) => {
          const text = serialize(items, eol, terminated);
          expect(read(text, cuts)).toEqual(reference(items, terminated));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("takes a data-less id after the last message of a chunk, and not one before it", () => {
    const cases: [string, string | null][] = [
      ["id: 1\ndata: a\n\nid: 2\n\n", "2"],
      ["id: 1\n\nid: 2\ndata: a\n\n", "2"],
      ["id: 1\n\nid: 2\ndata: a\n\n: ping\n\n", "2"],
      ["id: 1\ndata: a\n\nid: 2\n\n: ping\n\n", "2"],
      ["id: 1\ndata: a\n\nid:\n\n", null],
      ["id: 1\ndata: a\n\nid: 2\n", "1"],
    ];
    for (const [text, last] of cases) {
      expect(read(text, []).last, JSON.stringify(text)).toBe(last);
    }
  });
});

describe("Last-Event-ID header value", () => {
  it("is the id's UTF-8 bytes, one per character", () => {
    const v = lastEventIdHeader("☃-1");
    expect(v).not.toBeNull();
    expect(Buffer.from(v as string, "latin1").toString("utf8")).toBe("☃-1");
    expect(lastEventIdHeader("42")).toBe("42");
  });

  it("is not sent for an id a header cannot carry", () => {
    expect(lastEventIdHeader(null)).toBeNull();
    expect(lastEventIdHeader("a\x01b")).toBeNull();
    expect(lastEventIdHeader("x".repeat(5000))).toBeNull();
  });
});
