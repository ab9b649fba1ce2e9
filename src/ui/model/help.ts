import { displayWidth, wrapWords } from "../../text/wrap.js";
import { commandsOf, GROUP_TITLES, KEY_GROUPS, keysLabel } from "./keymap.js";

/** The `?` overlay's lines, generated from the keymap table, and how they fit the screen. */

export interface HelpLine {
  /** "more": the rest of the description above it, under the same keys. */
  kind: "heading" | "key" | "more" | "blank";
  keys: string;
  text: string;
  /** Why the key's command is disabled ("needs sessions:write", the session's state), or null. */
  missing: string | null;
}

/** What greys a command out in the overlay (gitActions.ts helpNotes), or null when nothing. */
export type HelpNotes = (cmd: { id: string; scope?: string }) => string | null;

export function helpLines(notes: HelpNotes): HelpLine[] {
  const out: HelpLine[] = [];
  KEY_GROUPS.forEach((group, i) => {
    if (i > 0) out.push({ kind: "blank", keys: "", text: "", missing: null });
    out.push({ kind: "heading", keys: "", text: GROUP_TITLES[group], missing: null });
    for (const c of commandsOf(group)) {
      const missing = notes(c);
      out.push({ kind: "key", keys: keysLabel(c), text: c.description, missing });
    }
  });
  return out;
}

/** Width of the keys column: the longest key label and a gap. */
export function keysWidth(lines: readonly HelpLine[]): number {
  return Math.max(...lines.map((l) => (l.kind === "key" ? l.keys.length : 0))) + 2;
}

/** The note a disabled key line carries after its description. */
export function missingNote(reason: string): string {
  return ` (disabled: ${reason})`;
}

/**
 * A description wider than `textWidth` continues on "more" lines under its keys instead of
 * being cut off. Every piece keeps `missing`; the note is drawn after the last one, which
 * leaves room for it (or is a line of its own).
 */
export function wrapHelpLines(lines: readonly HelpLine[], textWidth: number): HelpLine[] {
  const out: HelpLine[] = [];
  for (const l of lines) {
    if (l.kind !== "key") {
      out.push(l);
      continue;
    }
    const pieces = wrapWords(l.text, textWidth);
    // A note wider than the column on a line of its own is cut (the key, pressed, says it whole).
    const missing =
      l.missing && displayWidth(missingNote(l.missing)) > textWidth
        ? `${l.missing.slice(0, Math.max(0, textWidth - displayWidth(missingNote("")) - 1))}…`
        : l.missing;
    const note = missing ? displayWidth(missingNote(missing)) : 0;
    const noteAlone = note > 0 && displayWidth(pieces.at(-1) ?? "") + note > textWidth;
    if (noteAlone) pieces.push("");
    pieces.forEach((text, i) => {
      out.push({
        kind: i === 0 ? "key" : "more",
        keys: i === 0 ? l.keys : "",
        text,
        missing,
      });
    });
  }
  return out;
}

/**
 * Lines laid into columns of `rows`: a heading never ends a column (it moves to the next
 * one with its keys), a key's description is not split across columns, and no column
 * starts with a blank line.
 */
export function flowIntoColumns(lines: readonly HelpLine[], rows: number): HelpLine[] {
  const blank: HelpLine = { kind: "blank", keys: "", text: "", missing: null };
  const out: HelpLine[] = [];
  lines.forEach((l, i) => {
    const row = out.length % rows;
    if (l.kind === "blank" && row === 0) return;
    if (l.kind === "heading" && rows > 2 && row === rows - 1) out.push(blank);
    if (l.kind === "key") {
      let size = 1;
      while (lines[i + size]?.kind === "more") size++;
      if (size > 1 && size <= rows && row + size > rows) {
        for (let r = row; r < rows; r++) out.push(blank);
      }
    }
    out.push(l);
  });
  return out;
}

/** Blank cells between one column's text and the next column's keys. */
export const HELP_COLUMN_GAP = 3;

export interface HelpGeometry {
  columns: number;
  columnWidth: number;
  rowsPerColumn: number;
  /** Largest scroll offset (in lines) that still fills the screen. */
  maxOffset: number;
}

/**
 * As few columns as hold every line, none narrower than 60 cells (descriptions stay
 * readable); what still does not fit scrolls.
 */
export function helpGeometry(width: number, height: number, lineCount: number): HelpGeometry {
  const inner = Math.max(10, width - 4);
  // Border (2) and the title line.
  const rowsPerColumn = Math.max(1, height - 3);
  const widest = Math.max(1, Math.min(3, Math.floor(inner / 60)));
  const columns = Math.max(1, Math.min(widest, Math.ceil(lineCount / rowsPerColumn)));
  const columnWidth = Math.floor(inner / columns);
  const capacity = columns * rowsPerColumn;
  return { columns, columnWidth, rowsPerColumn, maxOffset: Math.max(0, lineCount - capacity) };
}

export interface HelpLayout {
  /** Every line, wrapped to its column and flowed into columns (see flowIntoColumns). */
  lines: HelpLine[];
  geometry: HelpGeometry;
  /** Width of the keys column. */
  keysWidth: number;
}

/**
 * The overlay laid out in a width × height box: the one computation the overlay draws and
 * its scrolling keys page by, so both count the same lines. `notes` marks the commands that
 * cannot be used now; their note can take a line of its own, so it changes the line count.
 */
export function helpLayout(width: number, height: number, notes: HelpNotes): HelpLayout {
  const raw = helpLines(notes);
  const keyCol = keysWidth(raw);
  let g = helpGeometry(width, height, raw.length);
  let lines: HelpLine[] = raw;
  // Wrapping adds lines, which may add a column, which narrows the columns: settle (columns
  // only grow, and there are at most three).
  for (let round = 0; round < 3; round++) {
    // A line is drawn narrower than its column by the gap between columns.
    const wrapped = wrapHelpLines(raw, g.columnWidth - HELP_COLUMN_GAP - keyCol);
    lines = flowIntoColumns(wrapped, g.rowsPerColumn);
    const next = helpGeometry(width, height, lines.length);
    const settled = next.columns === g.columns;
    g = next;
    if (settled) break;
  }
  return { lines, geometry: g, keysWidth: keyCol };
}
