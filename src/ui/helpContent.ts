import { CONTEXT_TITLES, KEYMAP, type KeyContext, keysLabel } from "./keymap.js";

/** The `?` overlay's lines, generated from the keymap table, and how they fit the screen. */

export interface HelpLine {
  kind: "heading" | "key" | "blank";
  keys: string;
  text: string;
  /** The scope a key's command needs and the key lacks. */
  missing: string | null;
}

const KEYS_WIDTH = 14;

export function helpLines(lacks: (scope: string) => boolean): HelpLine[] {
  const out: HelpLine[] = [];
  const contexts: KeyContext[] = ["global", "list", "pane", "dialog"];
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

export function helpKeyColumn(line: HelpLine): string {
  return line.keys.padEnd(KEYS_WIDTH);
}

export interface HelpGeometry {
  columns: number;
  columnWidth: number;
  rowsPerColumn: number;
  /** Largest scroll offset (in lines) that still fills the screen. */
  maxOffset: number;
}

/** Columns of at least 46 cells side by side; what does not fit scrolls. */
export function helpGeometry(width: number, height: number, lineCount: number): HelpGeometry {
  const inner = Math.max(10, width - 4);
  const columns = Math.max(1, Math.min(3, Math.floor(inner / 46)));
  const columnWidth = Math.floor(inner / columns);
  // Border (2) and the title line.
  const rowsPerColumn = Math.max(1, height - 3);
  const capacity = columns * rowsPerColumn;
  return { columns, columnWidth, rowsPerColumn, maxOffset: Math.max(0, lineCount - capacity) };
}
