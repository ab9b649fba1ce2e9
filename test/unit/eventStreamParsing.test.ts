import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  createSseReader,
  nextLastEventId,
  type OversizedEvent,
  type SseMessage,
} from "../../src/client/sseReader.js";
import { DEFAULT_WATCHDOG, HeartbeatEstimator } from "../../src/client/watchdog.js";
import { decodeEvent } from "../../src/protocol/index.js";
import { formatSeconds } from "../../src/text/format.js";

/** The sample stream, one entry per line, written with LF and turned into CR / CRLF below. */
const SAMPLE_LINES = [
  ": hello, a comment",
  "retry: 2500",
  "",
  "id: 1",
  "event: prompt_progress",
  'data: {"type":"text","content":"Größe ändern – 日本語 🎉"}',
  "",
  "event: heartbeat",
  'data: {"timestamp":"2025-01-01T00:00:00Z"}',
  "",
  "id: 2",
  "event: process_output",
  'data: {"text":"line one',
  'data: line two ✓"}',
  "",
  "id:",
  "event: file_changed",
  'data: {"path":"src/ü.ts","action":"created"}',
  "",
  "unknown-field: ignored",
  "id: 3",
  "event: state_changed",
  'data: {"state":"paused","previous_state":"active"}',
  "",
];

const EXPECTED: SseMessage[] = [
  {
    event: "prompt_progress",
    id: "1",
    data: '{"type":"text","content":"Größe ändern – 日本語 🎉"}',
  },
  { event: "heartbeat", id: undefined, data: '{"timestamp":"2025-01-01T00:00:00Z"}' },
  { event: "process_output", id: "2", data: '{"text":"line one\nline two ✓"}' },
  { event: "file_changed", id: "", data: '{"path":"src/ü.ts","action":"created"}' },
  { event: "state_changed", id: "3", data: '{"state":"paused","previous_state":"active"}' },
];

const ENDINGS = { lf: "\n", crlf: "\r\n", cr: "\r" } as const;

function sample(ending: string): Uint8Array {
  return new TextEncoder().encode(SAMPLE_LINES.map((l) => l + ending).join(""));
}

interface ReadResult {
  messages: SseMessage[];
  retries: number[];
  comments: string[];
  cut: OversizedEvent | null;
}

function read(chunks: Uint8Array[], maxEventBytes = 1024 * 1024, end = true): ReadResult {
  const r: ReadResult = { messages: [], retries: [], comments: [], cut: null };
  const reader = createSseReader({
    maxEventBytes,
    onMessage: (m) => r.messages.push(m),
    onRetry: (ms) => r.retries.push(ms),
    onComment: (c) => r.comments.push(c),
  });
  for (const c of chunks) {
    r.cut = reader.push(c);
    if (r.cut) return r;
  }
  if (end) reader.end();
  return r;
}

function splitAt(bytes: Uint8Array, points: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let from = 0;
  for (const p of [...points].sort((a, b) => a - b)) {
    out.push(bytes.subarray(from, p));
    from = p;
  }
  out.push(bytes.subarray(from));
  return out;
}

describe("SSE reader: the same items whatever the chunking and line endings", () => {
  for (const [name, ending] of Object.entries(ENDINGS)) {
    it(`${name}: whole buffer`, () => {
      const r = read([sample(ending)]);
      expect(r.messages).toEqual(EXPECTED);
      expect(r.retries).toEqual([2500]);
      expect(r.comments).toEqual(["hello, a comment"]);
    });

    it(`${name}: split at every byte offset, multibyte characters included`, () => {
      const bytes = sample(ending);
      for (let i = 0; i <= bytes.length; i++) {
        const r = read(splitAt(bytes, [i]));
        expect(r.messages, `split at ${i}`).toEqual(EXPECTED);
        expect(r.retries, `split at ${i}`).toEqual([2500]);
      }
    });

    it(`${name}: one byte per chunk`, () => {
      const bytes = sample(ending);
      const chunks = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
      expect(read(chunks).messages).toEqual(EXPECTED);
    });
  }

  it("mixed line endings and random chunkings (property)", () => {
    const endingArb = fc.constantFrom("\n", "\r\n", "\r");
    fc.assert(
      fc.property(
        fc.array(endingArb, { minLength: SAMPLE_LINES.length, maxLength: SAMPLE_LINES.length }),
        fc.uniqueArray(fc.nat({ max: 400 }), { maxLength: 12 }),
        (endings, cuts) => {
          // A CR ending followed by an empty line ending in LF would read as one CRLF: that
          // is the format's rule, not a chunking effect, so such pairs use CRLF instead.
          const fixed = endings.map((e, i) =>
            e === "\n" && SAMPLE_LINES[i] === "" && endings[i - 1] === "\r" ? "\r\n" : e,
          );
          const text = SAMPLE_LINES.map((l, i) => l + fixed[i]).join("");
          const bytes = new TextEncoder().encode(text);
          const points = cuts.filter((c) => c <= bytes.length);
          const r = read(splitAt(bytes, points));
          expect(r.messages).toEqual(EXPECTED);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a CR-only item is delivered without waiting for the next byte", () => {
    // A trailing CR might be half of a CRLF, but it ends its line at once: held back, this
    // item would wait for the next heartbeat.
    const r = read(
      [new TextEncoder().encode('event: heartbeat\rdata: {"timestamp":"t"}\r\r')],
      1e6,
      false,
    );
    expect(r.messages).toEqual([{ event: "heartbeat", id: undefined, data: '{"timestamp":"t"}' }]);
  });

  it("a CRLF split between chunks is one line ending, not a blank line", () => {
    const enc = new TextEncoder();
    const r = read([enc.encode("data: 1\r"), enc.encode("\ndata: 2\r\n\r\n")]);
    expect(r.messages).toEqual([{ event: undefined, id: undefined, data: "1\n2" }]);
  });

  it("a leading BOM is dropped and invalid UTF-8 becomes U+FFFD without stopping the stream", () => {
    const bytes = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...new TextEncoder().encode("data: a"),
      0xff,
      ...new TextEncoder().encode("\n\ndata: b\n\n"),
    ]);
    expect(read([bytes]).messages.map((m) => m.data)).toEqual(["a\uFFFD", "b"]);
  });

  it("keeps a U+FEFF and split characters that come after plain ASCII chunks", () => {
    const enc = new TextEncoder();
    const later = enc.encode("data: \uFEFFé🎉\n\n");
    const r = read([
      enc.encode("data: one\n\n"),
      enc.encode("data: two\n\n"),
      // The BOM-like character opens a chunk of its own, and the emoji is cut in two.
      later.slice(0, 6),
      later.slice(6, 13),
      later.slice(13),
      enc.encode("data: three\n\n"),
    ]);
    expect(r.messages.map((m) => m.data)).toEqual(["one", "two", "\uFEFFé🎉", "three"]);
  });

  it("an unterminated last item is discarded at end of body", () => {
    const r = read([new TextEncoder().encode("data: 1\n\ndata: 2\n")]);
    expect(r.messages.map((m) => m.data)).toEqual(["1"]);
  });
});

describe("last event id (WHATWG model)", () => {
  it("is reported per item: undefined without the field, '' when empty or bare, NUL ignored", () => {
    const ids: (string | undefined)[] = [];
    const reader = createSseReader({
      maxEventBytes: 1 << 20,
      onMessage: (m) => ids.push(m.id),
    });
    reader.push(
      new TextEncoder().encode(
        "id: 7\ndata: a\n\ndata: b\n\nid:\ndata: c\n\nid\ndata: d\n\nid: x\0y\ndata: e\n\nid: 8\nid: x\0y\ndata: f\n\n",
      ),
    );
    expect(ids).toEqual(["7", undefined, "", "", undefined, "8"]);
  });

  it("persists across items without id and is cleared by an empty id", () => {
    let last: string | null = "0";
    const trail: (string | null)[] = [];
    for (const id of ["7", undefined, "", undefined, "8"]) {
      last = nextLastEventId(last, id);
      trail.push(last);
    }
    expect(trail).toEqual(["7", "7", null, null, "8"]);
  });
});

describe("oversized items", () => {
  const enc = new TextEncoder();

  it("are cut once more than maxEventBytes are pending, keeping only a short head", () => {
    const head = enc.encode(
      'id: 1\nevent: prompt_progress\ndata: {"type":"text","content":"ok"}\n\n',
    );
    const start = enc.encode("id: 2\nevent: huge\ndata: ");
    const filler = enc.encode("x".repeat(64));
    const chunks = [head, start, ...Array.from({ length: 1000 }, () => filler)];
    const r = read(chunks, 1000);
    expect(r.messages.map((m) => m.id)).toEqual(["1"]);
    expect(r.cut).not.toBeNull();
    expect(r.cut?.event).toBe("huge");
    expect(r.cut?.id).toBe("2");
    // Cut within one chunk of the bound: memory does not follow the flood.
    expect(r.cut?.bytes).toBeGreaterThan(1000);
    expect(r.cut?.bytes).toBeLessThanOrEqual(1000 + 64);
    expect(r.cut?.head.startsWith("id: 2\nevent: huge\ndata: xxx")).toBe(true);
    expect(r.cut?.head.length).toBeLessThanOrEqual(200);
  });

  it("counts multibyte characters in bytes", () => {
    const r = read([enc.encode(`data: ${"é".repeat(300)}`)], 500, false);
    expect(r.cut?.bytes).toBe(6 + 600);
  });

  it("many small items and comments add up to far more than the bound without a cut", () => {
    const one = enc.encode(': keep-alive\n\nevent: heartbeat\ndata: {"timestamp":"t"}\n\n');
    const chunks = Array.from({ length: 200 }, () => one);
    const r = read(chunks, 100);
    expect(r.cut).toBeNull();
    expect(r.messages).toHaveLength(200);
  });

  it("an item that starts and ends inside one chunk is cut too; the items before it arrive", () => {
    const small = (id: number) =>
      `id: ${id}\nevent: prompt_progress\ndata: {"type":"text","content":"ok"}\n\n`;
    const big = `id: 2\nevent: huge\ndata: ${"x".repeat(2000)}\n\n`;
    // One read holding all three, and the same with the big item's start in the read before.
    for (const chunks of [
      [enc.encode(small(1) + big + small(3))],
      [enc.encode(small(1) + big.slice(0, 30)), enc.encode(big.slice(30) + small(3))],
    ]) {
      const r = read(chunks, 1000);
      expect(r.messages.map((m) => m.id)).toEqual(["1"]);
      expect(r.cut?.id).toBe("2");
      expect(r.cut?.event).toBe("huge");
      expect(r.cut?.bytes).toBe(Buffer.byteLength(big) - 1);
      expect(r.cut?.head.startsWith("id: 2\nevent: huge\ndata: xxx")).toBe(true);
    }
  });

  it("a flood of lines with no blank line is cut even when each line is short", () => {
    const chunks = Array.from({ length: 100 }, () => enc.encode("data: 0123456789\n"));
    const r = read(chunks, 500);
    expect(r.cut).not.toBeNull();
    expect(r.cut?.event).toBeUndefined();
  });
});

describe("decoding dispatched items", () => {
  it("malformed JSON is a visible item with the raw text; unknown names are kept", () => {
    const r = read([
      new TextEncoder().encode(
        'event: prompt_progress\ndata: {"type": "text", oops\n\nevent: brand_new\ndata: {"x":1}\n\n',
      ),
    ]);
    const evs = r.messages.map((m) => decodeEvent(m.event, m.data, m.id));
    expect(evs[0]).toMatchObject({
      kind: "malformed",
      event: "prompt_progress",
      raw: '{"type": "text", oops',
    });
    expect(evs[1]).toEqual({ kind: "unknown", event: "brand_new", id: null, data: { x: 1 } });
  });
});

describe("watchdog bound", () => {
  const bounds = { floorMs: 50, ceilingMs: 1000, initialMs: 400 };

  it("starts at initialMs and becomes 3 × the observed heartbeat interval, clamped", () => {
    const h = new HeartbeatEstimator(bounds);
    expect(h.boundMs).toBe(400);
    expect(h.intervalMs).toBeNull();
    h.beat(0);
    expect(h.boundMs).toBe(400);
    h.beat(100);
    expect(h.intervalMs).toBe(100);
    expect(h.boundMs).toBe(300);
    h.beat(105);
    // The longest recent interval wins: a quick beat does not shrink the bound.
    expect(h.boundMs).toBe(300);
    const fast = new HeartbeatEstimator(bounds);
    fast.beat(0);
    fast.beat(5);
    expect(fast.boundMs).toBe(50);
    const slow = new HeartbeatEstimator(bounds);
    slow.beat(0);
    slow.beat(10_000);
    expect(slow.boundMs).toBe(1000);
  });

  it("by default (as docs/protocol.md says): 45 s before any heartbeat, 3 × the interval, between 5 s and 120 s", () => {
    const bound = (gapMs: number | null) => {
      const h = new HeartbeatEstimator(DEFAULT_WATCHDOG);
      if (gapMs !== null) {
        h.beat(0);
        h.beat(gapMs);
      }
      return h.boundMs;
    };
    expect(bound(null)).toBe(45_000);
    expect(bound(10_000)).toBe(30_000);
    expect(bound(1_000)).toBe(5_000);
    expect(bound(60_000)).toBe(120_000);
  });

  it("does not count the gap across a reconnect as an interval", () => {
    const h = new HeartbeatEstimator(bounds);
    h.beat(0);
    h.beat(100);
    h.connectionStarted();
    h.beat(5000);
    expect(h.intervalMs).toBe(100);
  });

  it("forgets old intervals after a while", () => {
    const h = new HeartbeatEstimator(bounds);
    let t = 0;
    h.beat(t);
    t += 300;
    h.beat(t);
    for (let i = 0; i < 5; i++) {
      t += 20;
      h.beat(t);
    }
    expect(h.intervalMs).toBe(20);
    expect(h.boundMs).toBe(60);
  });

  it("formats bounds for the status line", () => {
    expect(formatSeconds(50)).toBe("50 ms");
    expect(formatSeconds(2500)).toBe("2.5 s");
    expect(formatSeconds(45_000)).toBe("45 s");
  });
});
