import { describe, expect, it } from "vitest";
import { fittingTitle, listRowStyle } from "../../src/ui/model/geometry.js";
import {
  FOOTER_ROWS,
  frameRows,
  gridShape,
  headerRows,
  isTooSmall,
  listWidthFor,
  listWindowStart,
  paneBody,
  paneCells,
  screenLayout,
  split,
} from "../../src/ui/model/layout.js";

describe("grid layout", () => {
  it("puts two panes side by side on a wide terminal and stacks them on a narrow one", () => {
    expect(gridShape(2, 160, 40)).toEqual({ rows: 1, cols: 2 });
    expect(gridShape(2, 50, 40)).toEqual({ rows: 2, cols: 1 });
  });

  it("arranges four panes 2×2 and six panes in 3 columns on a wide screen", () => {
    expect(gridShape(4, 160, 40)).toEqual({ rows: 2, cols: 2 });
    expect(gridShape(6, 200, 40)).toEqual({ rows: 2, cols: 3 });
  });

  it("covers the whole area exactly, a short last row sharing its width", () => {
    for (const n of [1, 2, 3, 4, 5, 6]) {
      for (const [w, h] of [
        [80, 20],
        [137, 41],
        [200, 60],
      ] as const) {
        const cells = paneCells(n, w, h);
        expect(cells).toHaveLength(n);
        const rows = new Map<number, number>();
        for (const c of cells) rows.set(c.row, (rows.get(c.row) ?? 0) + c.width);
        for (const width of rows.values()) expect(width).toBe(w);
        const heights = new Map<number, number>();
        for (const c of cells) heights.set(c.row, c.height);
        expect([...heights.values()].reduce((a, b) => a + b, 0)).toBe(h);
      }
    }
  });

  it("splits sizes evenly", () => {
    expect(split(10, 3)).toEqual([4, 3, 3]);
    expect(split(0, 2)).toEqual([0, 0]);
  });
});

describe("screen layout", () => {
  it("never uses more rows than the terminal has (one spare, so Ink never clears the screen)", () => {
    for (const rows of [15, 24, 50]) {
      const lay = screenLayout({ columns: 100, rows }, { paneCount: 4, zoomedPane: null });
      expect(lay.height).toBe(frameRows({ columns: 100, rows }));
      expect(headerRows({ columns: 100, rows }) + lay.bodyRows + FOOTER_ROWS).toBeLessThan(rows);
      for (const c of lay.cells) expect(c.height).toBeLessThanOrEqual(lay.bodyRows);
    }
  });

  it("gives a short terminal a two-line header, and the rows to the body", () => {
    expect(headerRows({ columns: 60, rows: 15 })).toBe(2);
    expect(headerRows({ columns: 200, rows: 29 })).toBe(2);
    expect(headerRows({ columns: 80, rows: 30 })).toBe(5);
    const short = screenLayout({ columns: 80, rows: 24 }, { paneCount: 1, zoomedPane: null });
    expect(short.bodyRows).toBe(24 - 1 - 2 - FOOTER_ROWS);
  });

  it("widens the list with the terminal, and the panes keep at least 48 columns", () => {
    const widths = [80, 100, 120, 160, 200, 300].map((c) => listWidthFor(c, 2));
    expect(widths).toEqual([...widths].sort((x, y) => x - y));
    expect(listWidthFor(160, 2)).toBeGreaterThanOrEqual(48);
    expect(listWidthFor(200, 2)).toBeGreaterThanOrEqual(60);
    expect(listWidthFor(300, 2)).toBe(80);
    for (const c of [80, 100, 160, 200]) expect(c - listWidthFor(c, 2)).toBeGreaterThanOrEqual(48);
    // The narrowest terminal still has a list a title fits in.
    expect(listWidthFor(60, 1)).toBe(24);
  });

  it("gives the zoomed pane the whole body and hides the list", () => {
    const lay = screenLayout({ columns: 120, rows: 40 }, { paneCount: 3, zoomedPane: 1 });
    expect(lay.listWidth).toBe(0);
    expect(lay.cells).toEqual([{ index: 1, row: 0, col: 0, width: 120, height: lay.bodyRows }]);
  });

  it("gives the list the full width while no pane is open", () => {
    const lay = screenLayout({ columns: 120, rows: 40 }, { paneCount: 0, zoomedPane: null });
    expect(lay.listWidth).toBe(120);
    expect(lay.cells).toEqual([]);
  });

  it("shows only the focused pane when the grid would leave each one no room", () => {
    const lay = screenLayout(
      { columns: 60, rows: 15 },
      { paneCount: 6, zoomedPane: null, focusedPane: 3 },
    );
    expect(lay.crowded).toBe(true);
    expect(lay.cells).toHaveLength(1);
    expect(lay.cells[0]?.index).toBe(3);
    expect(lay.listWidth).toBeGreaterThan(0);
    const roomy = screenLayout({ columns: 200, rows: 50 }, { paneCount: 6, zoomedPane: null });
    expect(roomy.crowded).toBe(false);
    expect(roomy.cells).toHaveLength(6);
  });

  it("calls anything under 60×15 too small", () => {
    expect(isTooSmall({ columns: 59, rows: 40 })).toBe(true);
    expect(isTooSmall({ columns: 100, rows: 14 })).toBe(true);
    expect(isTooSmall({ columns: 60, rows: 15 })).toBe(false);
  });

  it("leaves room for a pane's borders, title and status line", () => {
    expect(paneBody({ width: 40, height: 10 })).toEqual({ rows: 7, width: 38 });
  });
});

describe("list window", () => {
  it("keeps the cursor on screen wherever it goes", () => {
    for (const rows of [1, 3, 10]) {
      for (let cursor = 0; cursor < 50; cursor++) {
        const start = listWindowStart(cursor, 50, rows);
        expect(cursor).toBeGreaterThanOrEqual(start);
        expect(cursor).toBeLessThan(start + rows);
        expect(start).toBeLessThanOrEqual(50 - rows);
      }
    }
  });
});

describe("view geometry", () => {
  it("lays list rows out by width: title first when narrow, ids, then agent and where", () => {
    expect(listRowStyle(28)).toBe("compact");
    expect(listRowStyle(63)).toBe("compact");
    expect(listRowStyle(64)).toBe("ids");
    expect(listRowStyle(100)).toBe("wide");
  });

  it("takes the first title that fits the border, else the last (cut by the border)", () => {
    const full = [{ text: "1 ses_abcdefgh" }, { text: " ● active · ● live · ♥ 0s · 0 ev/s" }];
    const short = [{ text: "1 ses_abcdefgh" }, { text: " ● active · ● live" }];
    const stateFirst = [{ text: "1 " }, { text: "● active · ● live · " }, { text: "ses_abcdefgh" }];
    const candidates = [full, short, stateFirst];
    expect(fittingTitle(candidates, 60)).toBe(full);
    expect(fittingTitle(candidates, 40)).toBe(short);
    expect(fittingTitle(candidates, 30)).toBe(stateFirst);
    expect(fittingTitle(candidates, 10)).toBe(stateFirst);
  });
});
