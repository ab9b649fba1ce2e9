import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sanitize } from "../../src/text/sanitize.js";

/**
 * The other half of the sanitizer's contract (sanitize.property.test.ts covers what must never
 * come out): the printable text around hostile sequences comes out whole and in order.
 */

const printable = fc
  .string({ unit: "grapheme", maxLength: 12 })
  // Bidi controls and line separators are not kept as they are (sanitize.ts shows or folds them).
  .filter(
    (s) => !/[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/.test(s),
  );
const params = fc.stringMatching(/^[0-9;?]{0,8}$/);
const payload = fc.stringMatching(/^[ -~]{0,20}$/).map((s) => s.replace(/\x1b/g, ""));

/** Complete control sequences and lone controls a hostile stream may carry. */
const hostile = fc.oneof(
  fc
    .tuple(params, fc.constantFrom("m", "H", "J", "K", "A", "h", "l"))
    .map(([p, f]) => `\x1b[${p}${f}`),
  fc.tuple(params, fc.constantFrom("m", "H", "J")).map(([p, f]) => `\x9b${p}${f}`),
  // OSC: title, hyperlink, clipboard (52), ended by BEL, by ST or by the 8-bit ST.
  fc
    .tuple(
      fc.constantFrom("0;", "2;", "8;;", "52;c;"),
      payload,
      fc.constantFrom("\x07", "\x1b\\", "\x9c"),
    )
    .map(([k, p, end]) => `\x1b]${k}${p}${end}`),
  fc.tuple(fc.constantFrom("P", "X", "^", "_"), payload).map(([k, p]) => `\x1b${k}${p}\x1b\\`),
  fc.constantFrom(
    "\x1bc",
    "\x1b7",
    "\x1b8",
    "\x1b(B",
    "\x1b=",
    "\x07",
    "\x00",
    "\x08",
    "\x7f",
    "\x85",
    "\x90x\x9c",
  ),
);

describe("sanitize keeps printable text (property)", () => {
  it("removes every hostile sequence and keeps the text around them, in order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(printable, hostile), { maxLength: 10 }),
        printable,
        (pairs, tail) => {
          const input = pairs.map(([text, seq]) => text + seq).join("") + tail;
          const text = pairs.map(([t]) => t).join("") + tail;
          expect(sanitize(input)).toBe(text);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("with keepSgr, keeps colour sequences and the text, removes the rest", () => {
    const sgr = fc.stringMatching(/^[0-9;]{0,8}$/).map((p) => `\x1b[${p}m`);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(printable, fc.oneof(sgr, hostile)), { maxLength: 10 }),
        (pairs) => {
          const input = pairs.map(([t, seq]) => t + seq).join("");
          const kept = pairs
            .map(([t, seq]) => t + (/^\x1b\[[0-9;]*m$/.test(seq) ? seq : ""))
            .join("");
          expect(sanitize(input, { keepSgr: true })).toBe(kept);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
