import { describe, expect, it } from "vitest";
import { displayWidth } from "../../src/text/wrap.js";
import { type HelpLine, helpLayout, missingNote } from "../../src/ui/model/help.js";
import { commandsOf, KEY_GROUPS, keysLabel } from "../../src/ui/model/keymap.js";

/**
 * The `?` overlay cuts no description off: one too wide for its column continues on the
 * next line under the same keys, in the same column, on every screen size the UI draws.
 */

/** Each key line with the text of the "more" lines that follow it, joined back together. */
function entries(lines: readonly HelpLine[]): { keys: string; text: string; missing: string }[] {
  const out: { keys: string; text: string; missing: string }[] = [];
  for (const l of lines) {
    const last = out.at(-1);
    if (l.kind === "key") out.push({ keys: l.keys, text: l.text, missing: l.missing ?? "" });
    else if (l.kind === "more" && last) last.text += ` ${l.text}`;
  }
  return out.map((e) => ({ ...e, text: e.text.trim() }));
}

const SIZES: [number, number][] = [
  [60, 15],
  [80, 24],
  [100, 30],
  [120, 40],
  [150, 40],
  [200, 50],
];

describe("help overlay lines", () => {
  for (const lacksAll of [false, true]) {
    it(`every key's description is whole and fits its column${lacksAll ? " (every scope missing)" : ""}`, () => {
      for (const [width, height] of SIZES) {
        const page = helpLayout(width, height, (c) =>
          lacksAll && c.scope ? `needs ${c.scope}` : null,
        );
        const g = page.geometry;
        const got = entries(page.lines);
        const commands = KEY_GROUPS.flatMap((group) => commandsOf(group));
        expect(got.map((e) => e.keys)).toEqual(commands.map((c) => keysLabel(c)));
        expect(got.map((e) => e.text)).toEqual(commands.map((c) => c.description));
        // Drawn one cell narrower than the column: the keys, the text, and on the last line
        // of a key without its scope, the note.
        page.lines.forEach((l, i) => {
          if (l.kind !== "key" && l.kind !== "more") return;
          const noteHere = l.missing !== null && page.lines[i + 1]?.kind !== "more";
          const used =
            page.keysWidth +
            displayWidth(l.text) +
            (noteHere ? displayWidth(missingNote(l.missing ?? "")) : 0);
          expect(used, `${width}×${height}: "${l.text}"`).toBeLessThanOrEqual(g.columnWidth - 1);
        });
        // A key and its continuation lines share one column.
        page.lines.forEach((l, i) => {
          if (l.kind === "more") {
            expect(i % g.rowsPerColumn, `${width}×${height}: "${l.text}"`).not.toBe(0);
          }
        });
      }
    });
  }
});
