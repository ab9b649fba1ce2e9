import type { IdentityState } from "../../store/identityStore.js";
import { displayWidth } from "../../text/wrap.js";
import { helpNotes } from "./gitActions.js";
import { helpLayout } from "./help.js";
import {
  bodyRowsOf,
  headerRows,
  listRows,
  listWindowStart,
  paneBody,
  type ScreenLayout,
  screenLayout,
  type TerminalSize,
} from "./layout.js";
import { type LogLine, logLines } from "./messageLog.js";
import type { Viewport } from "./paneView.js";
import { type LogEntry, MERGED_ID, type UiState } from "./uiStore.js";

/**
 * The screen geometry of a UI state, computed once here for the views that draw it and the
 * key handlers that page through it: the layout of panes, a pane's viewport, the list's
 * page, and how the help and detail overlays page.
 */

type Arrangement = Pick<UiState, "size" | "panes" | "focus" | "zoomed">;

/** Index of the zoomed pane, or null. */
export function zoomedPane(s: Pick<UiState, "zoomed" | "focus">): number | null {
  return s.zoomed && s.focus > 0 ? s.focus - 1 : null;
}

/** Where the list and every pane go. */
export function screenOf(s: Arrangement): ScreenLayout {
  return screenLayout(s.size, {
    paneCount: s.panes.length,
    zoomedPane: zoomedPane(s),
    focusedPane: s.focus > 0 ? s.focus - 1 : null,
  });
}

/** The body between the header and the footer, where overlays and dialogs go. */
export function bodyOf(size: TerminalSize): { width: number; rows: number } {
  return { width: size.columns, rows: bodyRowsOf(size) };
}

/** The timeline area of a session's pane, as the pane draws it (or the merged timeline's). */
export function paneViewport(s: Arrangement, sessionId: string, noColor: boolean): Viewport {
  if (sessionId === MERGED_ID) return mergedViewport(s.size, noColor);
  const lay = screenOf(s);
  const idx = s.panes.indexOf(sessionId);
  const cell = lay.cells.find((c) => c.index === idx) ?? lay.cells[0];
  const body = cell ? paneBody(cell) : { rows: 10, width: 40 };
  return { rows: body.rows, width: body.width, noColor };
}

/** The header at this size: the full box, or two plain lines below 30 rows. */
export function headerOf(size: TerminalSize): { rows: number; compact: boolean } {
  const rows = headerRows(size);
  return { rows, compact: rows < 5 };
}

/**
 * How a session list row uses its width (the list's inner width): "compact" shows the state
 * glyph and the title (the id when there is none), so titles stay visible beside panes on a
 * narrow terminal; "ids" adds the id and the state's word; "wide" adds agent and where.
 */
export type ListRowStyle = "compact" | "ids" | "wide";

export function listRowStyle(inner: number): ListRowStyle {
  if (inner >= 100) return "wide";
  return inner >= 64 ? "ids" : "compact";
}

/** Room for a title in a box's top border `width` cells wide (corners, lines, spaces). */
export function borderTitleRoom(width: number): number {
  return Math.max(0, width - 5);
}

/**
 * The first title (of candidates from most to least complete) that fits a border `width`
 * wide; when none does, the last, which the border cuts. Pane titles give the full title,
 * then one without heartbeat and rate, then one with state and connection before the id.
 */
export function fittingTitle<T extends { text: string }>(
  candidates: readonly (readonly T[])[],
  width: number,
): readonly T[] {
  const room = borderTitleRoom(width);
  for (const c of candidates) {
    if (c.reduce((n, seg) => n + displayWidth(seg.text), 0) <= room) return c;
  }
  return candidates[candidates.length - 1] ?? [];
}

/** Rows of sessions the list shows: one page for PgUp/PgDn. */
export function listPage(size: TerminalSize): number {
  return listRows(bodyOf(size).rows);
}

export interface Paging {
  /** Lines one page moves. */
  page: number;
  /** Largest offset that still fills the box. */
  maxOffset: number;
}

/** The help overlay in the body, for a key with `identity`'s scopes (notes can add lines). */
export function helpPaging(
  size: TerminalSize,
  identity: Pick<IdentityState, "keyInfo">,
  sessionState: string | null = null,
): Paging {
  const body = bodyOf(size);
  const g = helpLayout(body.width, body.rows, helpNotes(identity, sessionState)).geometry;
  return { page: g.rowsPerColumn, maxOffset: g.maxOffset };
}

/** Field rows of the detail overlay in a box `height` rows tall: its border and title line. */
export function detailRows(height: number): number {
  return Math.max(1, height - 3);
}

/** The detail overlay of a record with `fields` fields, in the body. */
export function detailPaging(size: TerminalSize, fields: number): Paging {
  const page = detailRows(bodyOf(size).rows);
  return { page, maxOffset: Math.max(0, fields - page) };
}

/** Text width inside an overlay `width` cells wide: its border and padding. */
export function overlayInnerWidth(width: number): number {
  return Math.max(8, width - 4);
}

/** The messages overlay in a `width` × `height` box: its lines and how they page. */
export function messagesLayout(
  entries: readonly LogEntry[],
  width: number,
  height: number,
): Paging & { lines: LogLine[]; rows: number } {
  const lines = logLines(entries, overlayInnerWidth(width));
  const rows = detailRows(height);
  return { lines, rows, page: rows, maxOffset: Math.max(0, lines.length - rows) };
}

/** The messages overlay in the body. */
export function messagesPaging(size: TerminalSize, entries: readonly LogEntry[]): Paging {
  const body = bodyOf(size);
  const { page, maxOffset } = messagesLayout(entries, body.width, body.rows);
  return { page, maxOffset };
}

/**
 * The fleet table in the body: its border, title line, filter/sort line, column headings and
 * status line around the rows.
 */
export const FLEET_CHROME_ROWS = 6;

/** Rows of sessions the fleet table shows: one page. */
export function fleetRows(size: TerminalSize): number {
  return Math.max(1, bodyOf(size).rows - FLEET_CHROME_ROWS);
}

/** Which rows of `count` the fleet shows with the cursor at `cursor`: only those are drawn. */
export function fleetWindow(
  size: TerminalSize,
  cursor: number,
  count: number,
): { start: number; rows: number } {
  const rows = fleetRows(size);
  const at = Math.min(cursor, Math.max(0, count - 1));
  return { start: listWindowStart(at, count, rows), rows };
}

/** The session tag in front of each merged line (colour and short id). */
export const MERGED_TAG_WIDTH = 13;
/** Border (2), the legend line and the status line. */
const MERGED_CHROME_ROWS = 4;

/** The merged timeline's text area, as its view draws it. */
export function mergedViewport(size: TerminalSize, noColor: boolean): Viewport {
  const body = bodyOf(size);
  return {
    rows: Math.max(1, body.rows - MERGED_CHROME_ROWS),
    width: Math.max(8, body.width - 2 - MERGED_TAG_WIDTH),
    noColor,
  };
}

/** The attention queue overlay's item rows (border and title line around them). */
export function attentionPaging(size: TerminalSize, items: number): Paging {
  const page = detailRows(bodyOf(size).rows);
  return { page, maxOffset: Math.max(0, items - 1) };
}
