import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSseReader, type OversizedEvent } from "../../src/client/sseReader.js";

/**
 * The reader against the WHATWG event-stream interpretation written out plainly (decode the
 * whole body, split it into lines, take them one by one): whatever the chunking, line endings,
 * BOM, comments, id-only items, NULs in ids, unknown fields and multibyte characters, both
 * see the same things in the same order.
 */

type Seen =
  | ["message", string | undefined, string, string | undefined]
  | ["id", string]
  | ["retry", number]
  | ["comment", string];

/** WHATWG, plainly: one string, one line at a time. */
function reference(bytes: Uint8Array): Seen[] {
  // The decoder drops a leading BOM, as the spec's UTF-8 decode does.
  const text = new TextDecoder("utf-8").decode(bytes);
  const lines = text.split(/\r\n|\r|\n/);
  // What follows the last line end is an unfinished line: discarded with its item.
  lines.pop();
  const out: Seen[] = [];
  let event: string | undefined;
  let id: string | undefined;
  let data: string[] = [];
  for (const line of lines) {
    if (line === "") {
      if (data.length > 0) out.push(["message", event, data.join("\n"), id]);
      else if (id !== undefined) out.push(["id", id]);
      event = undefined;
      id = undefined;
      data = [];
      continue;
    }
    if (line.startsWith(":")) {
      out.push(["comment", line.slice(1).replace(/^ /, "")]);
      continue;
    }
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (name === "data") data.push(value);
    else if (name === "event") event = value === "" ? undefined : value;
    else if (name === "id") {
      if (!value.includes("\0")) id = value;
    } else if (name === "retry" && /^\d+$/.test(value)) out.push(["retry", Number(value)]);
  }
  return out;
}

function read(chunks: Uint8Array[], maxEventBytes = 1 << 20) {
  const seen: Seen[] = [];
  let cut: OversizedEvent | null = null;
  const reader = createSseReader({
    maxEventBytes,
    onMessage: (m) => seen.push(["message", m.event, m.data, m.id]),
    onId: (id) => seen.push(["id", id]),
    onRetry: (ms) => seen.push(["retry", ms]),
    onComment: (c) => seen.push(["comment", c]),
  });
  for (const c of chunks) {
    cut = reader.push(c);
    if (cut) return { seen, cut };
  }
  reader.end();
  return { seen, cut };
}

function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    out.push(bytes.subarray(from, p));
    from = p;
  }
  return out;
}

const text = fc.stringMatching(/^[a-z :{}"0-9é☃🎉\uFEFF]{0,12}$/u);
/** One line of a stream, without its ending. */
const lineArb = fc.oneof(
  { weight: 6, arbitrary: text.map((t) => `data: ${t}`) },
  { weight: 1, arbitrary: text.map((t) => `data:${t}`) },
  { weight: 1, arbitrary: fc.constant("data") },
  {
    weight: 2,
    arbitrary: fc.constantFrom("event: prompt_progress", "event: heartbeat", "event:", "event"),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "id: 1",
      "id: 22",
      "id:",
      "id",
      "id: a\0b",
      "id:  two spaces",
      "id: ☃",
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom("retry: 2500", "retry: 10x", "retry:", "retry: -1", "retry:7"),
  },
  { weight: 1, arbitrary: fc.constantFrom(": ping", ":", ":: two", ": id: 9") },
  { weight: 1, arbitrary: fc.constantFrom("unknown: x", "Data: no", "datum: no", "ids: no") },
  { weight: 3, arbitrary: fc.constant("") },
);
const eol = fc.constantFrom("\n", "\r\n", "\r");

const stream = fc
  .record({
    bom: fc.boolean(),
    lines: fc.array(fc.tuple(lineArb, eol), { maxLength: 40 }),
    tail: fc.constantFrom("", "data: unfinished", "id: 99"),
  })
  .map(({ bom, lines, tail }) => {
    const body = lines.map(([l, e]) => l + e).join("") + tail;
    const bytes = new TextEncoder().encode(body);
    return bom ? new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]) : bytes;
  });

describe("SSE reader (property)", () => {
  it("sees what the plain WHATWG reading sees, whatever the chunks", () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 10 }), (bytes, cuts) => {
        const r = read(split(bytes, cuts));
        expect(r.cut).toBeNull();
        expect(r.seen).toEqual(reference(bytes));
      }),
      { numRuns: 3000 },
    );
  });

  it("one byte per chunk sees the same as the whole body", () => {
    fc.assert(
      fc.property(stream, (bytes) => {
        const bytewise = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
        expect(read(bytewise).seen).toEqual(read([bytes]).seen);
      }),
      { numRuns: 300 },
    );
  });
});

describe("SSE reader: the byte order mark and line ends", () => {
  const enc = new TextEncoder();
  const BOM = [0xef, 0xbb, 0xbf];

  it("drops a BOM at the start, even split over chunks, and keeps one later", () => {
    const body = enc.encode("data: a\n\n");
    const whole = new Uint8Array([...BOM, ...body]);
    for (let at = 0; at <= 4; at++) {
      const r = read([whole.subarray(0, at), whole.subarray(at)]);
      expect(r.seen, `split at ${at}`).toEqual([["message", undefined, "a", undefined]]);
    }
    // A BOM that does not open the stream is text: here it makes "\uFEFFdata" no field.
    const later = read([new Uint8Array([...enc.encode("data: a\n\n"), ...BOM, ...body])]);
    expect(later.seen).toEqual([["message", undefined, "a", undefined]]);
  });

  it("a CR at the end of a chunk ends its line at once; an LF after it is not a blank line", () => {
    const seen: string[] = [];
    const reader = createSseReader({
      maxEventBytes: 1 << 20,
      onMessage: (m) => seen.push(m.data),
    });
    reader.push(enc.encode("data: 1\r\r"));
    // Delivered without waiting for another byte.
    expect(seen).toEqual(["1"]);
    reader.push(enc.encode("\ndata: 2\r"));
    reader.push(enc.encode("\ndata: 3\r"));
    reader.push(enc.encode("\n\r\n"));
    expect(seen).toEqual(["1", "2\n3"]);
  });

  it("an item with an id and no data is not dispatched but reports its id", () => {
    const r = read([enc.encode("id: 5\n\nid: 6\nevent: x\n\n: c\nid: 7\n\nid:\n\n")]);
    expect(r.seen).toEqual([
      ["id", "5"],
      ["id", "6"],
      ["comment", "c"],
      ["id", "7"],
      ["id", ""],
    ]);
  });
});

describe("SSE reader: memory stays flat on a line that never ends", () => {
  it("cuts within one chunk of the bound, ASCII or not, with the item's fields so far", () => {
    for (const filler of ["x", "é", "🎉"]) {
      const chunk = new TextEncoder().encode(filler.repeat(16 * 1024));
      const start = new TextEncoder().encode("id: 9\nevent: flood\n: note\ndata: ");
      const max = 256 * 1024;
      const chunks = [start, ...Array.from({ length: 200 }, () => chunk)];
      const r = read(chunks, max);
      expect(r.cut, filler).not.toBeNull();
      expect(r.cut?.bytes).toBeGreaterThan(max);
      expect(r.cut?.bytes).toBeLessThanOrEqual(max + chunk.byteLength);
      expect(r.cut?.id).toBe("9");
      expect(r.cut?.event).toBe("flood");
      expect(r.cut?.head.startsWith("id: 9\nevent: flood\n: note\ndata: ")).toBe(true);
      expect(r.cut?.head.length).toBeLessThanOrEqual(200);
      // Nothing was dispatched, and the reader stopped taking chunks at the cut.
      expect(r.seen).toEqual([["comment", "note"]]);
    }
  });

  it("counts CR line ends and a body sent in one read all the same", () => {
    const big = `id: 3\revent: huge\rdata: ${"y".repeat(5000)}\r\r`;
    const r = read([new TextEncoder().encode(`data: ok\r\r${big}data: after\r\r`)], 4096);
    expect(r.seen).toEqual([["message", undefined, "ok", undefined]]);
    expect(r.cut?.id).toBe("3");
    expect(r.cut?.bytes).toBeGreaterThan(4096);
    expect(r.cut?.head.startsWith("id: 3\nevent: huge\ndata: yyy")).toBe(true);
  });
});
