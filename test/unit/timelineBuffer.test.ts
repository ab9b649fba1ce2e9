import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TimelineEntry } from "../../src/store/streams/entry.js";
import { LAZY_KINDS, type LazyKind } from "../../src/store/streams/lazySlots.js";
import { TimelineBuffer } from "../../src/store/streams/timelineBuffer.js";

function entry(seq: number, text: string): TimelineEntry {
  return { seq, id: null, kind: "notice", at: 0, text };
}

/** A buffer whose undecoded slots decode to an output entry with the data as text. */
function counting(capacity: number) {
  const made: string[] = [];
  const buf = new TimelineBuffer(capacity, (kind, data, id, seq, at) => {
    made.push(data);
    return { seq, id, kind: kind === "file_changed" ? "file" : "output", at, text: data };
  });
  return { buf, made };
}

describe("TimelineBuffer", () => {
  it("decodes an undecoded slot once, when first read, and hands out the same entry after", () => {
    const { buf, made } = counting(10);
    buf.pushRaw(LAZY_KINDS.indexOf("process_output"), "one", "1", 1, 100);
    buf.push(entry(2, "two"));
    buf.pushRaw(LAZY_KINDS.indexOf("file_changed"), "three", null, 3, 300);
    expect(made).toEqual([]);
    const last = buf.last();
    expect(last).toEqual({ seq: 3, id: null, kind: "file", at: 300, text: "three" });
    expect(made).toEqual(["three"]);
    expect(buf.get(-1)).toBe(last);
    expect(buf.toArray().map((e) => e.text)).toEqual(["one", "two", "three"]);
    expect(buf.get(0)).toMatchObject({ seq: 1, id: "1", at: 100 });
    expect(made).toEqual(["three", "one"]);
    expect([...buf]).toEqual(buf.slice());
    expect(made).toHaveLength(2);
  });

  it("never decodes what is evicted unread", () => {
    const { buf, made } = counting(3);
    for (let i = 1; i <= 1000; i++) buf.pushRaw(0, `line ${i}`, null, i, i);
    expect(buf.size).toBe(3);
    expect(buf.dropped).toBe(997);
    expect(buf.toArray().map((e) => e.text)).toEqual(["line 998", "line 999", "line 1000"]);
    expect(made).toHaveLength(3);
  });

  it("replaces an undecoded newest slot and bumps the version, and clears", () => {
    const { buf, made } = counting(2);
    buf.pushRaw(1, "fragment", null, 1, 0);
    const v = buf.version;
    expect(buf.setLast(entry(1, "joined"))).toBe(true);
    expect(buf.version).toBe(v + 1);
    expect(buf.last()?.text).toBe("joined");
    expect(made).toEqual([]);
    buf.clear();
    expect(buf.size).toBe(0);
    expect(buf.last()).toBeUndefined();
    expect(buf.setLast(entry(2, "x"))).toBe(false);
  });

  it("keeps the newest entries in order, like a ring buffer, whatever mix is pushed", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 70 }),
        fc.array(fc.boolean(), { maxLength: 300 }),
        (capacity, raws) => {
          const { buf } = counting(capacity);
          raws.forEach((raw, i) => {
            if (raw)
              buf.pushRaw(LAZY_KINDS.indexOf("process_output" as LazyKind), `${i}`, null, i, i);
            else buf.push({ ...entry(i, `${i}`), kind: "output" });
          });
          const want = raws.map((_, i) => `${i}`).slice(-capacity);
          expect(buf.size).toBe(want.length);
          expect(buf.toArray().map((e) => e.text)).toEqual(want);
          expect(buf.toArray().map((e) => e.seq)).toEqual(want.map(Number));
          expect(buf.dropped).toBe(raws.length - want.length);
        },
      ),
    );
  });
});
