import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { keymapMarkdown } from "../../src/ui/model/keymap.js";

/** The README's key reference is generated from the keymap table, never edited by hand. */

const README = join(import.meta.dirname, "..", "..", "README.md");
const START = "<!-- KEYMAP:START -->";
const END = "<!-- KEYMAP:END -->";

describe("README key reference", () => {
  it("matches keymapMarkdown() between the KEYMAP markers", () => {
    const text = readFileSync(README, "utf8");
    const from = text.indexOf(START);
    const to = text.indexOf(END);
    expect(from, `README.md lacks ${START}`).toBeGreaterThanOrEqual(0);
    expect(to, `README.md lacks ${END} after ${START}`).toBeGreaterThan(from);
    const between = text.slice(from + START.length, to).trim();
    expect(between).toBe(keymapMarkdown());
  });
});
