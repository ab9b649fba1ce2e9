import { describe, expect, it } from "vitest";
import {
  FOOTER_ROWS,
  frameRows,
  gridShape,
  HEADER_ROWS,
  isTooSmall,
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
      expect(HEADER_ROWS + lay.bodyRows + FOOTER_ROWS).toBeLessThan(rows);
      for (const c of lay.cells) expect(c.height).toBeLessThanOrEqual(lay.bodyRows);
    }
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
