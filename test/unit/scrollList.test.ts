import { describe, expect, it } from "vitest";
import { scrollNote, scrollWindow } from "../../src/ui/components/frame/ScrollList.js";

/** The overlays' one scrolling list: what a window of rows shows. */
describe("scrollWindow", () => {
  const lines = Array.from({ length: 10 }, (_, i) => `line ${i}`);

  it("shows the rows from where it is asked to start", () => {
    expect(scrollWindow(lines, 3, 4)).toEqual({ from: 4, shown: ["line 4", "line 5", "line 6"] });
  });

  it("never runs past the end: an offset beyond it shows the last full page", () => {
    expect(scrollWindow(lines, 3, 50)).toEqual({ from: 7, shown: ["line 7", "line 8", "line 9"] });
    expect(scrollWindow(lines, 3, -2).from).toBe(0);
  });

  it("shows everything from the top when it all fits, and says nothing about scrolling", () => {
    expect(scrollWindow(lines, 20, 5)).toEqual({ from: 0, shown: lines });
    expect(scrollNote(false)).toBe("");
    expect(scrollNote(true)).toMatch(/scroll$/);
    expect(scrollNote(true, true)).toMatch(/scroll · more below$/);
  });
});
