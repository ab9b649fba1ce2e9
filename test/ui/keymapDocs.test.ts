import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { keymapMarkdown } from "../../src/ui/model/keymap.js";

/** The key reference (docs/keys.md) is generated from the keymap table, never edited by hand. */

const README = join(import.meta.dirname, "..", "..", "docs", "keys.md");
const START = "<!-- KEYMAP:START -->";
const END = "<!-- KEYMAP:END -->";

describe("docs/keys.md key reference", () => {
  it("matches keymapMarkdown() between the KEYMAP markers", () => {
    const text = readFileSync(README, "utf8");
    const from = text.indexOf(START);
    const to = text.indexOf(END);
    expect(from, `docs/keys.md lacks ${START}`).toBeGreaterThanOrEqual(0);
    expect(to, `docs/keys.md lacks ${END} after ${START}`).toBeGreaterThan(from);
    const between = text.slice(from + START.length, to).trim();
    expect(between).toBe(keymapMarkdown());
  });
});

/** The README's everyday keys are a hand-picked few: each one must be a key of the keymap. */
describe("README everyday keys", () => {
  it("names only keys the keymap has", () => {
    const text = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");
    const from = text.indexOf("| keys | what they do |");
    expect(from, "README.md lacks its everyday keys table").toBeGreaterThanOrEqual(0);
    const table = text.slice(from, text.indexOf("\n\n", from));
    const known = new Set<string>();
    for (const row of keymapMarkdown().split("\n")) {
      const first = row.split("|")[1]?.trim();
      if (!first || first === "keys" || first.startsWith("-")) continue;
      for (const k of first.split(/ \/ |, /)) known.add(k.trim());
    }
    const named = [...table.matchAll(/`([^`$ ]{1,6})`/g)].map((m) => m[1] as string);
    expect(named.length).toBeGreaterThan(10);
    for (const k of named) expect(known, `README names key ${k}`).toContain(k);
  });
});
