import { CONTEXT_TITLES, KEYMAP, type KeyContext, keysLabel } from "./keymap.js";

/** The `?` overlay's lines, generated from the keymap table, and how they fit the screen. */

export interface HelpLine {
  kind: "heading" | "key" | "blank";
  keys: string;
  text: string;
  /** The scope a key's command needs and the key lacks. */
  missing: string | null;
}

export function helpLines(lacks: (scope: string) => boolean): HelpLine[] {
  const out: HelpLine[] = [];
  const contexts: KeyContext[] = ["global", "list", "pane", "dialog", "replay"];
  contexts.forEach((ctx, i) => {
    if (i > 0) out.push({ kind: "blank", keys: "", text: "", missing: null });
    out.push({ kind: "heading", keys: "", text: CONTEXT_TITLES[ctx], missing: null });
    for (const c of KEYMAP) {
      if (c.context !== ctx) continue;
      const missing = c.scope && lacks(c.scope) ? c.scope : null;
      out.push({ kind: "key", keys: keysLabel(c), text: c.description, missing });
    }
  });
  return out;
}

/** Width of the keys column: the longest key label and a gap. */
export function keysWidth(lines: readonly HelpLine[]): number {
  return Math.max(...lines.map((l) => (l.kind === "key" ? l.keys.length : 0))) + 2;
}

/**
 * Lines laid into columns of `rows`: a heading never ends a column (it moves to the next
 * one with its keys) and no column starts with a blank line.
 */
export function flowIntoColumns(lines: readonly HelpLine[], rows: number): HelpLine[] {
  const blank: HelpLine = { kind: "blank", keys: "", text: "", missing: null };
  const out: HelpLine[] = [];
  for (const l of lines) {
    const row = out.length % rows;
    if (l.kind === "blank" && row === 0) continue;
    if (l.kind === "heading" && rows > 2 && row === rows - 1) out.push(blank);
    out.push(l);
  }
  return out;
}

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
