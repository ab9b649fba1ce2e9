/**
 * A fast path in front of `string-width`, which Ink and its helpers call for every line they
 * measure. Loading `string-width` costs about 25 ms (a grapheme segmenter and the
 * `\p{RGI_Emoji}` pattern, built when the module loads) and its first non-ASCII call another
 * 25 ms (that pattern compiles on first use): half a tenth of a second of every start, spent
 * on the box-drawing lines and symbols of the first frame.
 *
 * For text made only of printable ASCII and the characters in NARROW below (one table for
 * each version of string-width), the width is
 * the number of UTF-16 code units: each of those characters is one column wide and its own
 * grapheme cluster, whatever stands next to it (no combining marks, joiners, variation
 * selectors or Hangul jamo; nothing `string-width` counts as emoji). Colour codes (SGR,
 * as `strip-ansi` removes them) take no columns. Everything else goes to the real module,
 * loaded on its first such call. The bundle (esbuild.config.mjs) puts this in front of
 * every `string-width` import; test/unit/narrowWidth.test.ts checks every character of the
 * table, and random text, against both versions Ink uses.
 */

import { stripSgr } from "./wrap.js";

type Ranges = readonly (readonly [number, number])[];

/**
 * For each major version of string-width in the bundle: inclusive code point ranges, sorted,
 * of characters it measures as one column, alone and beside any other of them, and that
 * Intl.Segmenter never joins to a neighbour. Chosen from Latin, Greek, Cyrillic, general
 * punctuation and the symbol blocks (U+2000–U+2BFF). Version 7 (wrap-ansi's) measures more
 * symbols as emoji, two columns, than version 8 (Ink's): ⏸, ⚠ and ♥ are narrow only in 8.
 */
export const NARROW: Readonly<Record<7 | 8, Ranges>> = {
  8: [
    [0xa1, 0xac],
    [0xae, 0x24f],
    [0x370, 0x482],
    [0x48a, 0x4ff],
    [0x2010, 0x2027],
    [0x2030, 0x205e],
    [0x2070, 0x20cf],
    [0x20f1, 0x2319],
    [0x231c, 0x2328],
    [0x232b, 0x23e8],
    [0x23ed, 0x23ef],
    [0x23f1, 0x23f2],
    [0x23f4, 0x25fc],
    [0x25ff, 0x2613],
    [0x2616, 0x262f],
    [0x2638, 0x2647],
    [0x2654, 0x267e],
    [0x2680, 0x2689],
    [0x2690, 0x2692],
    [0x2694, 0x26a0],
    [0x26a2, 0x26a9],
    [0x26ac, 0x26bc],
    [0x26bf, 0x26c3],
    [0x26c6, 0x26cd],
    [0x26cf, 0x26d3],
    [0x26d5, 0x26e9],
    [0x26eb, 0x26f1],
    [0x26f4, 0x26f4],
    [0x26f6, 0x26f9],
    [0x26fb, 0x26fc],
    [0x26fe, 0x2704],
    [0x2706, 0x2709],
    [0x270c, 0x2727],
    [0x2729, 0x274b],
    [0x274d, 0x274d],
    [0x274f, 0x2752],
    [0x2756, 0x2756],
    [0x2758, 0x2794],
    [0x2798, 0x27af],
    [0x27b1, 0x27be],
    [0x27c0, 0x2b1a],
    [0x2b1d, 0x2b4f],
    [0x2b51, 0x2b54],
    [0x2b56, 0x2bff],
  ],
  7: [
    [0xa1, 0xa8],
    [0xaa, 0xac],
    [0xaf, 0x24f],
    [0x370, 0x482],
    [0x48a, 0x4ff],
    [0x2010, 0x2027],
    [0x2030, 0x203b],
    [0x203d, 0x2048],
    [0x204a, 0x205e],
    [0x2070, 0x20cf],
    [0x2100, 0x2121],
    [0x2123, 0x2138],
    [0x213a, 0x2193],
    [0x219a, 0x21a8],
    [0x21ab, 0x2319],
    [0x231c, 0x2327],
    [0x232b, 0x23ce],
    [0x23d0, 0x23e8],
    [0x23f4, 0x23f7],
    [0x23fb, 0x24c1],
    [0x24c3, 0x25a9],
    [0x25ac, 0x25b5],
    [0x25b7, 0x25bf],
    [0x25c1, 0x25fa],
    [0x25ff, 0x25ff],
    [0x2605, 0x260d],
    [0x260f, 0x2610],
    [0x2612, 0x2613],
    [0x2616, 0x2617],
    [0x2619, 0x261c],
    [0x261e, 0x261f],
    [0x2621, 0x2621],
    [0x2624, 0x2625],
    [0x2627, 0x2629],
    [0x262b, 0x262d],
    [0x263b, 0x263f],
    [0x2641, 0x2641],
    [0x2643, 0x2647],
    [0x2654, 0x265e],
    [0x2661, 0x2662],
    [0x2664, 0x2664],
    [0x2667, 0x2667],
    [0x2669, 0x267a],
    [0x267c, 0x267d],
    [0x2680, 0x2689],
    [0x2690, 0x2691],
    [0x2698, 0x2698],
    [0x269a, 0x269a],
    [0x269d, 0x269f],
    [0x26a2, 0x26a6],
    [0x26a8, 0x26a9],
    [0x26ac, 0x26af],
    [0x26b2, 0x26bc],
    [0x26bf, 0x26c3],
    [0x26c6, 0x26c7],
    [0x26c9, 0x26cd],
    [0x26d0, 0x26d0],
    [0x26d2, 0x26d2],
    [0x26d5, 0x26e8],
    [0x26eb, 0x26ef],
    [0x26f6, 0x26f6],
    [0x26fb, 0x26fc],
    [0x26fe, 0x2701],
    [0x2703, 0x2704],
    [0x2706, 0x2707],
    [0x270e, 0x270e],
    [0x2710, 0x2711],
    [0x2713, 0x2713],
    [0x2715, 0x2715],
    [0x2717, 0x271c],
    [0x271e, 0x2720],
    [0x2722, 0x2727],
    [0x2729, 0x2732],
    [0x2735, 0x2743],
    [0x2745, 0x2746],
    [0x2748, 0x274b],
    [0x274d, 0x274d],
    [0x274f, 0x2752],
    [0x2756, 0x2756],
    [0x2758, 0x2762],
    [0x2765, 0x2794],
    [0x2798, 0x27a0],
    [0x27a2, 0x27af],
    [0x27b1, 0x27be],
    [0x27c0, 0x2933],
    [0x2936, 0x2b04],
    [0x2b08, 0x2b1a],
    [0x2b1d, 0x2b4f],
    [0x2b51, 0x2b54],
    [0x2b56, 0x2bff],
  ],
};

function inRanges(table: Ranges, c: number): boolean {
  let lo = 0;
  let hi = table.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = table[mid] as readonly [number, number];
    if (c < r[0]) hi = mid - 1;
    else if (c > r[1]) lo = mid + 1;
    else return true;
  }
  return false;
}

/**
 * The width of `text` when every character is printable ASCII or in `table` (after removing
 * colour codes), else -1: the caller must ask `string-width`.
 */
export function narrowWidth(text: string, table: Ranges): number {
  // stripSgr removes exactly what strip-ansi removes of these spans (its CSI pattern, with
  // digits and semicolons only); any other escape is left in and goes to the real module.
  const s = stripSgr(text);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e) continue;
    if (c < 0xa1 || !inRanges(table, c)) return -1;
  }
  return s.length;
}

type Width = (text: string, options?: object) => number;

/**
 * `string-width` of major version `major` with the fast path in front: `load` gives the real
 * function, and is called only when some text needs it (then once).
 */
export function withNarrowFastPath(major: 7 | 8, load: () => Width): Width {
  const table = NARROW[major];
  let real: Width | null = null;
  return (text, options) => {
    if (options === undefined && typeof text === "string") {
      const w = narrowWidth(text, table);
      if (w >= 0) return w;
    }
    real ??= load();
    return options === undefined ? real(text) : real(text, options);
  };
}
