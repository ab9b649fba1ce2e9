import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NARROW, narrowWidth, withNarrowFastPath } from "../../src/text/narrowWidth.js";

// The two versions of string-width the bundle fronts: Ink's own (8) and wrap-ansi's (7).
const require = createRequire(import.meta.url);
type Width = (text: string, options?: object) => number;
async function load(from: string): Promise<{ width: Width; version: string }> {
  const path = createRequire(require.resolve(from)).resolve("string-width");
  const mod = (await import(pathToFileURL(path).href)) as { default: Width };
  const pkg = createRequire(path)("./package.json") as { version: string };
  return { width: mod.default, version: pkg.version };
}
const versions = {
  8: await load("ink"),
  7: await load("wrap-ansi"),
} as const;

const counted = (major: 7 | 8) => {
  let loads = 0;
  const width = withNarrowFastPath(major, () => {
    loads++;
    return versions[major].width;
  });
  return { width, loads: () => loads };
};

const TEXT_OF_THE_UI = [
  "╭─ sessions ──────╮",
  "│ ● ses_2sqf1gzf  active  · team · 4m 10s │",
  "╰─────────────────╯",
  "\x1b[36m⏎\x1b[39m open \x1b[1;36m/\x1b[0m filter — ↑/↓ ←/→ … ✓ ✗ ✕ ◌ ◍ ○ ■ ▸ ▼ ▶ ⇄ ↻ ∞ “quoted” ‘x’ – ×",
  "▁▂▃▄▅▆▇█ ⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏ ═║╔╗╚╝ ┏┓┗┛━┃ café naïve Ελληνικά кириллица",
];

describe("string-width's fast path (the bundle's front for Ink's text measuring)", () => {
  it("fronts the versions its tables were made for", () => {
    expect(versions[8].version.split(".")[0]).toBe("8");
    expect(versions[7].version.split(".")[0]).toBe("7");
  });

  for (const major of [7, 8] as const) {
    it(`version ${major}: every character of its table is one column, alone and between others`, () => {
      const real = versions[major].width;
      const seg = new Intl.Segmenter();
      let checked = 0;
      let prev = "a";
      for (const [lo, hi] of NARROW[major]) {
        for (let c = lo; c <= hi; c++) {
          const ch = String.fromCharCode(c);
          expect(real(ch), `U+${c.toString(16)}`).toBe(1);
          expect(real(`${prev}${ch}${ch}b`), `U+${c.toString(16)} after ${prev}`).toBe(4);
          expect([...seg.segment(`a${ch}${ch}a`)].length, `U+${c.toString(16)}`).toBe(4);
          expect(narrowWidth(ch, NARROW[major])).toBe(1);
          prev = ch;
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(3000);
    });

    it(`version ${major}: the same widths as string-width on random text, loading it only when needed`, () => {
      const table = NARROW[major];
      const inTable = fc
        .integer({ min: 0, max: table.length - 1 })
        .chain((i) => {
          const [lo, hi] = table[i] as readonly [number, number];
          return fc.integer({ min: lo, max: hi });
        })
        .map((c) => String.fromCharCode(c));
      const other = fc.constantFrom(
        "日",
        "本",
        "😀",
        "👍🏽",
        "👩‍💻",
        "\u0301",
        "\u200d",
        "\ufe0f",
        "\u00ad",
        "\t",
        "\x00",
        "\x9b31m",
        "\x1b]8;;https://x\x07",
        "\x1b[12345m",
        "\x1b[?25l",
        "\x1b[2J",
        "\x1b[",
        "\x1b",
        "⏸",
        "⚠",
        "♥",
        "🇫🇷",
        "ᄀ",
        "ᅡ",
      );
      const sgr = fc.constantFrom(
        "\x1b[0m",
        "\x1b[1;31m",
        "\x1b[38;2;255;0;10m",
        "\x1b[m",
        "\x1b[;m",
      );
      const ascii = fc.string({ unit: "grapheme-ascii", maxLength: 6 });
      const piece = fc.oneof(
        { weight: 4, arbitrary: ascii },
        { weight: 4, arbitrary: inTable },
        { weight: 2, arbitrary: sgr },
        { weight: 1, arbitrary: other },
      );
      fc.assert(
        fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
          const text = pieces.join("");
          const { width } = counted(major);
          expect(width(text)).toBe(versions[major].width(text));
        }),
        { numRuns: 3000 },
      );
      fc.assert(
        fc.property(fc.array(fc.oneof(ascii, inTable, sgr), { maxLength: 12 }), (pieces) => {
          const text = pieces.join("");
          const fast = counted(major);
          expect(fast.width(text)).toBe(versions[major].width(text));
          expect(fast.loads()).toBe(0);
        }),
        { numRuns: 1000 },
      );
    });
  }

  it("measures the text of the UI's first frame without loading string-width", () => {
    const fast = counted(8);
    for (const line of TEXT_OF_THE_UI) expect(fast.width(line)).toBe(versions[8].width(line));
    expect(fast.loads()).toBe(0);
  });

  it("loads string-width once, for the first text it cannot measure, and passes options on", () => {
    const fast = counted(8);
    expect(fast.width("日本")).toBe(4);
    expect(fast.width("😀")).toBe(2);
    expect(fast.loads()).toBe(1);
    expect(fast.width("±", { ambiguousIsNarrow: false })).toBe(
      versions[8].width("±", { ambiguousIsNarrow: false }),
    );
    expect(fast.width("\x1b[31mab\x1b[0m", { countAnsiEscapeCodes: true })).toBe(
      versions[8].width("\x1b[31mab\x1b[0m", { countAnsiEscapeCodes: true }),
    );
    expect(fast.loads()).toBe(1);
  });
});
