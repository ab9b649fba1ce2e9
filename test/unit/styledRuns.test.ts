import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AnsiTokenizeParts, withSameStyleRuns } from "../../src/text/styledRuns.js";

// @alcalzone/ansi-tokenize as Ink imports it (the bundle fronts that import).
type StyledChar = { value: string; styles: { code: string; endCode: string }[] };
type Lib = AnsiTokenizeParts & {
  tokenize(s: string): unknown[];
  styledCharsFromTokens(tokens: unknown[]): StyledChar[];
  styledCharsToString(chars: StyledChar[]): string;
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
