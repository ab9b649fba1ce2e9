/**
 * Pure screen geometry: how the terminal's rows and columns are shared between the header,
 * the session list, the pane grid and the footer. Rendering and key handling (which needs a
 * pane's page size) both use these functions, so they always agree.
 */

export interface TerminalSize {
  columns: number;
  rows: number;
}

export const MIN_COLUMNS = 60;
export const MIN_ROWS = 15;
/** The full header: a bordered box with three lines. */
export const HEADER_ROWS = 5;
/** The compact header of a short terminal: two lines, no border. */
export const COMPACT_HEADER_ROWS = 2;
/** Below this many rows the header is compact: the rows go to the sessions and panes. */
export const COMPACT_HEADER_BELOW = 30;
/** Status line and key hints. */
export const FOOTER_ROWS = 2;
/** A pane's top border (which carries its title), bottom border and status line. */
export const PANE_CHROME_ROWS = 3;
/** A pane's left and right border. */
export const PANE_CHROME_COLUMNS = 2;
/** The list's border, title line, filter/sort line and status line. */
export const LIST_CHROME_ROWS = 5;

/** Preferred smallest pane; smaller ones still render, just cramped. */
const MIN_PANE_WIDTH = 34;
const MIN_PANE_HEIGHT = 7;
/** Below this a grid cell is useless: only the focused pane is shown instead. */
const MIN_CELL_ROWS = PANE_CHROME_ROWS + 2;
const MIN_CELL_COLUMNS = 24;

export function isTooSmall(size: TerminalSize): boolean {
  return size.columns < MIN_COLUMNS || size.rows < MIN_ROWS;
}

/**
 * Rows the frame may use. One less than the terminal: Ink clears the whole screen before
 * every frame once the output is as tall as the terminal, which flickers.
 */
export function frameRows(size: TerminalSize): number {
  return Math.max(1, size.rows - 1);
}

export interface PaneCell {
  /** Position in the panes list (0-based). */
  index: number;
  row: number;
  col: number;
  width: number;
  height: number;
}

export interface GridShape {
  rows: number;
  cols: number;
}

/**
 * Rows × columns for n panes in width × height: every candidate column count is scored, a
 * pane narrower or shorter than the preferred minimum is penalised, then the one whose panes
 * are closest to a pleasant reading shape (about 2.5 columns per row, terminal cells being
 * tall) wins.
 */
export function gridShape(n: number, width: number, height: number): GridShape {
  if (n <= 0) return { rows: 0, cols: 0 };
  let best: GridShape = { rows: n, cols: 1 };
  let bestScore = Number.NEGATIVE_INFINITY;
  for (let cols = 1; cols <= n; cols++) {
    const rows = Math.ceil(n / cols);
    // A column count that leaves a whole row empty is never better than a smaller one.
    if ((rows - 1) * cols >= n) continue;
    const w = Math.floor(width / cols);
    const h = Math.floor(height / rows);
    let score = 0;
    if (w < MIN_PANE_WIDTH) score -= (MIN_PANE_WIDTH - w) * 10;
    if (h < MIN_PANE_HEIGHT) score -= (MIN_PANE_HEIGHT - h) * 25;
    const aspect = w / Math.max(1, h);
    score -= Math.abs(Math.log(aspect / 2.5)) * 10;
    // Empty cells in the last row waste space.
    score -= (rows * cols - n) * 5;
    if (score > bestScore) {
      bestScore = score;
      best = { rows, cols };
    }
  }
  return best;
}

/** Split `total` into `parts` sizes that differ by at most one, larger ones first. */
export function split(total: number, parts: number): number[] {
  if (parts <= 0) return [];
  const base = Math.floor(total / parts);
  const extra = total - base * parts;
  return Array.from({ length: parts }, (_, i) => base + (i < extra ? 1 : 0));
}

/** Cells of the grid, row by row; panes of a short last row share its width. */
export function paneCells(n: number, width: number, height: number): PaneCell[] {
  const { rows, cols } = gridShape(n, width, height);
  const heights = split(height, rows);
  const cells: PaneCell[] = [];
  let index = 0;
  for (let r = 0; r < rows; r++) {
    const inRow = Math.min(cols, n - index);
    const widths = split(width, inRow);
    for (let c = 0; c < inRow; c++) {
      cells.push({ index, row: r, col: c, width: widths[c] ?? 0, height: heights[r] ?? 0 });
      index++;
    }
  }
  return cells;
}

export interface ScreenLayout {
  width: number;
  /** Rows of the whole frame. */
  height: number;
  bodyRows: number;
  /** 0 when the list is hidden (a zoomed pane). */
  listWidth: number;
  gridWidth: number;
  /** One per pane shown: all of them, or the zoomed one alone (index = its position). */
  cells: PaneCell[];
  /** Too many panes for the space: only the focused one is shown. */
  crowded: boolean;
}

export interface LayoutInput {
  paneCount: number;
  /** Index of the zoomed pane, or null. */
  zoomedPane: number | null;
  /** Index of the focused pane (null: the list), shown alone when the grid would be crowded. */
  focusedPane?: number | null;
}

/** Rows of the header at this size: the full box, or two lines on a short terminal. */
export function headerRows(size: TerminalSize): number {
  return size.rows < COMPACT_HEADER_BELOW ? COMPACT_HEADER_ROWS : HEADER_ROWS;
}

/** The list beside the panes: its share of the terminal, and what the panes keep at least. */
const LIST_SHARE = 0.3;
const LIST_MIN_COLUMNS = 30;
const LIST_MAX_COLUMNS = 80;
const GRID_MIN_COLUMNS = 48;
/** The narrowest list, on the narrowest terminal (the panes then get less than 48). */
const LIST_FLOOR_COLUMNS = 24;

/**
 * Width of the list beside the panes: it grows with the terminal (about a third of it, up to
 * 80 columns) so titles stay readable on a wide one, and the panes keep at least 48.
 */
export function listWidthFor(columns: number, paneCount: number): number {
  if (paneCount === 0) return columns;
  const want = Math.round(columns * LIST_SHARE);
  const least = Math.min(
    LIST_MIN_COLUMNS,
    Math.max(LIST_FLOOR_COLUMNS, columns - GRID_MIN_COLUMNS),
  );
  return Math.max(least, Math.min(LIST_MAX_COLUMNS, want, columns - GRID_MIN_COLUMNS));
}

/** Rows between the header and the footer: the list and panes, or an overlay or dialog. */
export function bodyRowsOf(size: TerminalSize): number {
  return Math.max(1, frameRows(size) - headerRows(size) - FOOTER_ROWS);
}

export function screenLayout(size: TerminalSize, input: LayoutInput): ScreenLayout {
  const width = size.columns;
  const height = frameRows(size);
  const bodyRows = bodyRowsOf(size);
  if (input.zoomedPane !== null && input.zoomedPane < input.paneCount) {
    return {
      width,
      height,
      bodyRows,
      listWidth: 0,
      gridWidth: width,
      cells: [{ index: input.zoomedPane, row: 0, col: 0, width, height: bodyRows }],
      crowded: false,
    };
  }
  const listWidth = listWidthFor(width, input.paneCount);
  const gridWidth = width - listWidth;
  let cells = input.paneCount > 0 ? paneCells(input.paneCount, gridWidth, bodyRows) : [];
  const crowded =
    cells.length > 1 && cells.some((c) => c.height < MIN_CELL_ROWS || c.width < MIN_CELL_COLUMNS);
  if (crowded) {
    const shown = Math.min(input.focusedPane ?? 0, input.paneCount - 1);
    cells = [{ index: shown, row: 0, col: 0, width: gridWidth, height: bodyRows }];
  }
  return { width, height, bodyRows, listWidth, gridWidth, cells, crowded };
}

/** The timeline area inside a pane cell. */
export function paneBody(cell: Pick<PaneCell, "width" | "height">): {
  rows: number;
  width: number;
} {
  return {
    rows: Math.max(1, cell.height - PANE_CHROME_ROWS),
    width: Math.max(8, cell.width - PANE_CHROME_COLUMNS),
  };
}

/** Rows of session entries the list shows. */
export function listRows(bodyRows: number): number {
  return Math.max(1, bodyRows - LIST_CHROME_ROWS);
}

/**
 * What a window of `rows` rows from `start` leaves out of `count`: "↑ 3 more · ↓ 12 more",
 * either side only when it hides rows, "" when every row is in view.
 */
export function scrollMoreText(start: number, rows: number, count: number): string {
  const above = Math.max(0, Math.min(start, count));
  const below = Math.max(0, count - start - rows);
  return [above > 0 ? `↑ ${above} more` : "", below > 0 ? `↓ ${below} more` : ""]
    .filter(Boolean)
    .join(" · ");
}

/**
 * First visible row of a scrolled list so the cursor stays in view, kept a couple of rows
 * away from the edges where possible. Stateless: the same cursor always gives the same window.
 */
export function listWindowStart(cursor: number, count: number, rows: number): number {
  if (count <= rows) return 0;
  const margin = Math.min(2, Math.floor((rows - 1) / 2));
  const page = Math.floor(cursor / Math.max(1, rows - 2 * margin));
  const start = page * Math.max(1, rows - 2 * margin) - margin;
  return Math.max(0, Math.min(start, count - rows));
}
