import { describe, expect, it } from "vitest";
import {
  displayWidth,
  expandTabs,
  layoutText,
  stripSgr,
  wrapLine,
  wrapWords,
} from "../../src/text/wrap.js";

describe("terminal text layout", () => {
  it("does not count colour sequences, counts wide characters twice", () => {
    expect(displayWidth("\x1b[32mok\x1b[0m")).toBe(2);
    expect(displayWidth("日本")).toBe(4);
    expect(displayWidth("e\u0301")).toBe(1);
  });

  it("wraps output hard at the width and carries its colour onto the next line", () => {
    const lines = wrapLine("\x1b[31mabcdef\x1b[0m", 4);
    expect(lines.map(stripSgr)).toEqual(["abcd", "ef"]);
    expect(lines[0]).toBe("\x1b[31mabcd\x1b[0m");
    expect(lines[1]?.startsWith("\x1b[31m")).toBe(true);
  });

  it("wraps output at a space near the edge rather than inside a word, colours kept", () => {
    const text = "warning: This module is not supported on this platform";
    const lines = wrapLine(text, 24);
    expect(lines).toEqual(["warning: This module is", "not supported on this", "platform"]);
    expect(lines.join(" ")).toBe(text);
    const coloured = wrapLine("\x1b[33mThis module is not supported\x1b[0m", 16);
    expect(coloured.map(stripSgr)).toEqual(["This module is", "not supported"]);
    expect(coloured[1]?.startsWith("\x1b[33m")).toBe(true);
    // A long run without a space near the edge (a path, a hash) is still cut at the edge.
    expect(wrapLine("see /usr/lib/node_modules/pkg/dist/index.js", 20)).toEqual([
      "see /usr/lib/node_mo",
      "dules/pkg/dist/index",
      ".js",
    ]);
  });

  it("never splits a wide character across lines", () => {
    expect(wrapLine("a日本", 2)).toEqual(["a", "日", "本"]);
  });

  it("wraps prose at word boundaries", () => {
    expect(wrapWords("Reading the failing test", 12)).toEqual(["Reading the", "failing test"]);
    expect(wrapWords("supercalifragilistic", 8)).toEqual(["supercal", "ifragili", "stic"]);
  });

  it("expands tabs to the next stop", () => {
    expect(expandTabs("a\tb")).toBe("a   b");
  });

  it("splits on newlines and leaves long lines alone when wrapping is off", () => {
    expect(layoutText("one\ntwo three four", 6, false)).toEqual(["one", "two three four"]);
    expect(layoutText("one\ntwo three four", 6, true, "words")).toEqual([
      "one",
      "two",
      "three",
      "four",
    ]);
  });
});
