import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AnsiTokenizeParts,
  withFastTokenize,
  withSameStyleRuns,
  withSharedStyles,
} from "../../src/text/ansiTokenize.js";
import { NARROW } from "../../src/text/narrowWidth.js";

// @alcalzone/ansi-tokenize as Ink imports it (the bundle fronts that import).
type Lib = AnsiTokenizeParts & {
  styledCharsToString(chars: ReturnType<AnsiTokenizeParts["styledCharsFromTokens"]>): string;
};
const lib = (await import("@alcalzone/ansi-tokenize")) as unknown as Lib;

const SGR = [
  "\x1b[0m",
  "\x1b[1m",
  "\x1b[2m",
  "\x1b[22m",
  "\x1b[3m",
  "\x1b[23m",
  "\x1b[4m",
  "\x1b[24m",
  "\x1b[7m",
  "\x1b[27m",
  "\x1b[31m",
  "\x1b[32m",
  "\x1b[39m",
  "\x1b[41m",
  "\x1b[49m",
  "\x1b[90m",
  "\x1b[38;5;208m",
  "\x1b[48;2;10;20;30m",
  "\x1b[1;31m",
  "\x1b]8;;https://example.test\x07",
  "\x1b]8;;\x07",
];

/** Ink's own path: a line of text with colour codes → styled cells → string. */
const cells = (line: string) => lib.styledCharsFromTokens(lib.tokenize(line));

const tableChar = fc
  .integer({ min: 0, max: NARROW[8].length - 1 })
  .chain((i) => {
    const [lo, hi] = NARROW[8][i] as readonly [number, number];
    return fc.integer({ min: lo, max: hi });
  })
  .map((c) => String.fromCharCode(c));
const plainPiece = fc.oneof(fc.string({ unit: "grapheme-ascii", maxLength: 6 }), tableChar);
const anyPiece = fc.oneof(
  { weight: 3, arbitrary: plainPiece },
  {
    weight: 1,
    arbitrary: fc.constantFrom("日本", "😀", "👩‍💻", "e\u0301", "\t", "\u200d", "⚠\ufe0f"),
  },
  { weight: 1, arbitrary: fc.constantFrom(...SGR) },
);

describe("tokenize's fast path (the bundle's front for the texts Ink places)", () => {
  const fast = withFastTokenize(lib);

  it("gives the library's tokens for every character of the narrow table", () => {
    let checked = 0;
    for (const [lo, hi] of NARROW[8]) {
      for (let c = lo; c <= hi; c++) {
        const text = `a${String.fromCharCode(c)}${String.fromCharCode(c)}b`;
        expect(fast(text), `U+${c.toString(16)}`).toEqual(lib.tokenize(text));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(3000);
  });

  it("gives the library's tokens for random text, plain or not", () => {
    fc.assert(
      fc.property(fc.array(anyPiece, { maxLength: 16 }), (pieces) => {
        const text = pieces.join("");
        expect(fast(text)).toEqual(lib.tokenize(text));
        expect(fast(text, 5)).toEqual(lib.tokenize(text, 5));
      }),
      { numRuns: 3000 },
    );
  });

  it("asks the library only about each colour code once, for narrow text in colour", () => {
    const asked: string[] = [];
    const counting = withFastTokenize({
      tokenize: (s, e) => {
        asked.push(s);
        return lib.tokenize(s, e);
      },
    });
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(plainPiece, fc.constantFrom(...SGR.filter((c) => c.startsWith("\x1b[")))),
          { maxLength: 16 },
        ),
        (p) => {
          const text = p.join("");
          expect(counting(text)).toEqual(lib.tokenize(text));
        },
      ),
      { numRuns: 500 },
    );
    expect(asked.every((s) => /^\x1b\[[0-9;]*m$/.test(s))).toBe(true);
    expect(new Set(asked).size).toBe(asked.length);
    counting("日本");
    expect(asked.at(-1)).toBe("日本");
  });
});

describe("styledCharsFromTokens's fast path", () => {
  const fast = withSharedStyles(lib);

  it("gives the library's cells for the tokens of random text, plain or styled", () => {
    fc.assert(
      fc.property(fc.array(anyPiece, { maxLength: 16 }), (pieces) => {
        const tokens = lib.tokenize(pieces.join(""));
        expect(fast(tokens)).toEqual(lib.styledCharsFromTokens(tokens));
      }),
      { numRuns: 3000 },
    );
  });
});

describe("styledCharsToString's fast path (the bundle's front for Ink's frame output)", () => {
  const fast = withSameStyleRuns(lib);

  it("gives the library's string for random styled lines", () => {
    const piece = fc.oneof(
      { weight: 3, arbitrary: fc.string({ unit: "grapheme-ascii", maxLength: 5 }) },
      { weight: 1, arbitrary: fc.constantFrom("─", "●", "日本", "😀", "é") },
      { weight: 2, arbitrary: fc.constantFrom(...SGR) },
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), (pieces) => {
        const chars = cells(pieces.join(""));
        expect(fast(chars)).toBe(lib.styledCharsToString(chars));
      }),
      { numRuns: 3000 },
    );
  });

  it("gives the library's string for rows Ink assembles from cells of different lines", () => {
    // Ink's Output puts cells from many writes side by side, so neighbours may come from
    // differently styled lines, with separate (equal or unequal) style arrays.
    const line = fc
      .array(fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom(...SGR)), { maxLength: 8 })
      .map((p) => cells(p.join("")));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 6 }), (lines) => {
        const row = lines.flat();
        expect(fast(row)).toBe(lib.styledCharsToString(row));
      }),
      { numRuns: 2000 },
    );
  });

  it("diffs only where the style changes", () => {
    let diffs = 0;
    const counting = withSameStyleRuns({
      ansiCodesToString: lib.ansiCodesToString,
      diffAnsiCodes: (a, b) => {
        diffs++;
        return lib.diffAnsiCodes(a, b);
      },
    });
    const row = cells(`${"x".repeat(100)}\x1b[31m${"y".repeat(100)}\x1b[39m${" ".repeat(50)}`);
    expect(counting(row)).toBe(lib.styledCharsToString(row));
    expect(diffs).toBe(2);
    expect(counting([])).toBe("");
  });
});
