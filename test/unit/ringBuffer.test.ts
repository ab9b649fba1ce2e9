import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RingBuffer } from "../../src/text/ringBuffer.js";

describe("RingBuffer", () => {
  it("keeps the newest items once full and counts what it dropped", () => {
    const rb = new RingBuffer<number>(3);
    for (let i = 1; i <= 5; i++) rb.push(i);
    expect(rb.toArray()).toEqual([3, 4, 5]);
    expect(rb.size).toBe(3);
    expect(rb.capacity).toBe(3);
    expect(rb.dropped).toBe(2);
    expect(rb.version).toBe(5);
  });

  it("indexes from oldest to newest, negative from the newest", () => {
    const rb = new RingBuffer<string>(4);
    for (const s of ["a", "b", "c", "d", "e", "f"]) rb.push(s);
    expect(rb.get(0)).toBe("c");
    expect(rb.get(3)).toBe("f");
    expect(rb.get(-1)).toBe("f");
    expect(rb.get(4)).toBeUndefined();
    expect(rb.last()).toBe("f");
    expect(rb.slice(1, 3)).toEqual(["d", "e"]);
    expect(rb.slice(-2)).toEqual(["e", "f"]);
    expect([...rb]).toEqual(["c", "d", "e", "f"]);
  });

  it("replaces the newest item and bumps the version", () => {
    const rb = new RingBuffer<string>(2);
    expect(rb.setLast("x")).toBe(false);
    rb.push("a");
    rb.push("b");
    rb.push("c");
    const v = rb.version;
    expect(rb.setLast("C")).toBe(true);
    expect(rb.toArray()).toEqual(["b", "C"]);
    expect(rb.version).toBe(v + 1);
  });

  it("clears to empty and keeps working", () => {
    const rb = new RingBuffer<number>(2);
    rb.push(1);
    rb.push(2);
    rb.push(3);
    rb.clear();
    expect(rb.size).toBe(0);
    expect(rb.toArray()).toEqual([]);
    expect(rb.last()).toBeUndefined();
    rb.push(4);
    expect(rb.toArray()).toEqual([4]);
  });

  it("refuses a capacity that is not a positive integer", () => {
    expect(() => new RingBuffer(0)).toThrow(RangeError);
    expect(() => new RingBuffer(1.5)).toThrow(RangeError);
  });

  it("never exceeds its bound and keeps the newest N in order (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.integer(), { maxLength: 300 }),
        (cap, items) => {
          const rb = new RingBuffer<number>(cap);
          for (const [i, x] of items.entries()) {
            rb.push(x);
            expect(rb.size).toBe(Math.min(i + 1, cap));
          }
          expect(rb.toArray()).toEqual(items.slice(-cap));
          expect(rb.dropped).toBe(Math.max(0, items.length - cap));
          expect(rb.slice(1, -1)).toEqual(items.slice(-cap).slice(1, -1));
        },
      ),
      { numRuns: 500 },
    );
  });
});
