import { describe, expect, it } from "vitest";
import { indexUnifiedDiff } from "../../src/protocol/unifiedDiff.js";
import { createRedactor } from "../../src/text/redact.js";
import {
  type ChangesLayout,
  changesLayout,
  changesRows,
  maskedRows,
  searchRows,
} from "../../src/ui/model/changesView.js";

/**
 * The changes view decodes only what is on screen: a window of a single 50,000-line hunk
 * decodes that window's lines (a screenful and the few rows masking looks at beside it), at
 * its start, its middle and its end, as a window of 100 small hunks does; and the lines it
 * gives carry the right text and line numbers wherever the window falls.
 */

/** One file whose one hunk has `n` lines: removed, added and context lines in turn. */
function oneHunk(n: number): string {
  const lines = ["diff --git a/big.txt b/big.txt", "--- a/big.txt", "+++ b/big.txt"];
  let old = 0;
  let neu = 0;
  const body: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = i % 3;
    body.push(k === 0 ? `-old ${i}` : k === 1 ? `+new ${i}` : ` same ${i}`);
    if (k !== 1) old++;
    if (k !== 0) neu++;
  }
  lines.push(`@@ -1,${old} +1,${neu} @@`, ...body);
  return `${lines.join("\n")}\n`;
}

/** One file with `hunks` hunks of `each` added lines. */
function smallHunks(hunks: number, each: number): string {
  const lines = ["diff --git a/many.txt b/many.txt", "--- a/many.txt", "+++ b/many.txt"];
  for (let h = 0; h < hunks; h++) {
    lines.push(`@@ -${h * 1000 + 1},0 +${h * 1000 + 1},${each} @@`);
    for (let i = 0; i < each; i++) lines.push(`+line ${h}.${i}`);
  }
  return `${lines.join("\n")}\n`;
}

/** A layout whose line decoding is counted. */
function counted(patch: string): { layout: ChangesLayout; decoded: () => number; reset(): void } {
  let n = 0;
  const layout = changesLayout(
    { diff: indexUnifiedDiff(patch), elsewhere: [], note: null },
    (t) => {
      n++;
      return t;
    },
  );
  return {
    layout,
    decoded: () => n,
    reset: () => {
      n = 0;
    },
  };
}

const SCREEN = 40;
/** The key masked over the window: it reads `reach` characters of rows above and below. */
const MASK = createRedactor(["sk-test-0123456789abcdefghijklmnopqrstuv"]);

describe("a single 50,000-line hunk", () => {
  const patch = oneHunk(50_000);

  it("decodes a screenful (and the few rows beside it) wherever the window falls", () => {
    const c = counted(patch);
    // Rows: the summary (its line, the file, a blank), the file's header, the hunk's header.
    const first = 5;
    for (const at of [0, first, first + 25_000, first + 49_960]) {
      c.reset();
      const rows = maskedRows(c.layout, at, SCREEN, MASK);
      expect(rows).toHaveLength(SCREEN);
      // The window's lines, and at most the rows masking reads above and below it (a row
      // holds a character at least; these hold ten or more).
      expect(MASK.reach).toBeGreaterThan(0);
      expect(c.decoded()).toBeLessThanOrEqual(SCREEN + 2 * Math.ceil(MASK.reach / 10));
      expect(c.decoded()).toBeGreaterThan(0);
    }
  });

  it("decodes as few lines as a window of 100 small hunks does", () => {
    const big = counted(patch);
    const small = counted(smallHunks(100, 500));
    maskedRows(big.layout, 30_000, SCREEN, undefined);
    maskedRows(small.layout, 30_000, SCREEN, undefined);
    expect(big.decoded()).toBe(SCREEN);
    expect(small.decoded()).toBeLessThanOrEqual(SCREEN);
  });

  it("gives the right lines and line numbers deep inside the hunk, in any order asked", () => {
    const c = counted(patch);
    const hunkRow = 4;
    const at = (i: number) => changesRows(c.layout, hunkRow + 1 + i, 1)[0];
    // Asked from the end first: checkpoints are found as far as needed, then reused.
    for (const i of [49_999, 31_337, 512, 511, 0, 1, 2, 1024, 30_000]) {
      const k = i % 3;
      // The line numbers it carries: the old and new lines before it, counted directly.
      let old = 1;
      let neu = 1;
      for (let j = 0; j < i; j++) {
        if (j % 3 !== 1) old++;
        if (j % 3 !== 0) neu++;
      }
      expect(at(i)).toEqual(
        k === 0
          ? { kind: "removed", text: `-old ${i}`, oldNo: old, newNo: null }
          : k === 1
            ? { kind: "added", text: `+new ${i}`, oldNo: null, newNo: neu }
            : { kind: "context", text: ` same ${i}`, oldNo: old, newNo: neu },
      );
    }
  });

  it("is searched to its end and the match's row found", () => {
    const c = counted(patch);
    const row = searchRows(c.layout, "new 49999", 0, 1);
    expect(row).not.toBeNull();
    expect(changesRows(c.layout, row as number, 1)[0]?.text).toBe("+new 49999");
  });
});
