import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sanitize } from "../../src/text/sanitize.js";

// Inputs biased towards the bytes that matter: introducers, terminators, controls.
const hostileChar = fc.oneof(
  fc.constantFrom(
    "\x1b",
    "[",
    "]",
    "P",
    "_",
    "^",
    "X",
    "\\",
    "\x07",
    "\x9b",
    "\x9c",
    "\x9d",
    "\x90",
    "\r",
    "\n",
    "\t",
    "\x7f",
    "m",
    ";",
    "3",
    "1",
    "?",
    " ",
  ),
  fc.integer({ min: 0, max: 0x9f }).map((c) => String.fromCharCode(c)),
  fc.string({ unit: "grapheme", maxLength: 3 }),
);
const hostile = fc.array(hostileChar, { maxLength: 60 }).map((a) => a.join(""));

const FORBIDDEN = /[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f]/;
const SGR = /\x1b\[[0-9;]*m/g;

describe("sanitize properties", () => {
  it("leaves no ESC, C0 (but \\n \\t), DEL, C1, BEL or OSC", () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const out = sanitize(s);
        expect(out).not.toMatch(FORBIDDEN);
        expect(out).not.toContain("\x1b");
        expect(out).not.toContain("\r");
      }),
      { numRuns: 2000 },
    );
  });

  it("with keepSgr, every ESC left starts a plain SGR sequence", () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const out = sanitize(s, { keepSgr: true });
        expect(out).not.toMatch(FORBIDDEN);
        expect(out.replace(SGR, "")).not.toContain("\x1b");
        expect(out).not.toContain("\x1b]");
      }),
      { numRuns: 2000 },
    );
  });

  it("never changes printable text without controls", () => {
    // Bidi controls and line separators count as controls: sanitize shows or folds them.
    const printable = fc
      .string({ unit: "grapheme", maxLength: 80 })
      .filter(
        (s) => !/[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/.test(s),
      );
    fc.assert(
      fc.property(printable, (s) => {
        expect(sanitize(s)).toBe(s);
        expect(sanitize(s, { keepSgr: true })).toBe(s);
      }),
      { numRuns: 1000 },
    );
  });

  it("is idempotent", () => {
    fc.assert(
      fc.property(hostile, fc.boolean(), (s, keepSgr) => {
        const once = sanitize(s, { keepSgr });
        expect(sanitize(once, { keepSgr })).toBe(once);
      }),
      { numRuns: 1000 },
    );
  });
});
