/**
 * The emulator's cells drawn on the user's own terminal (`attach`): every escape sequence
 * written here is made by this module from cell attributes (cursor moves, SGR colours, erase
 * to end of line); none comes from the sandbox. Only rows that changed since the last frame
 * are written.
 */
import { ATTR, type Colour, DEFAULT_COLOUR, rgbOf, type Segment } from "./cells.js";
import type { TerminalScreen } from "./screen.js";

const ESC = "\x1b[";

function colourSgr(c: Colour, background: boolean): string {
  if (c === DEFAULT_COLOUR) return background ? "49" : "39";
  const rgb = rgbOf(c);
  if (rgb !== null) {
    return `${background ? 48 : 38};2;${(rgb >> 16) & 0xff};${(rgb >> 8) & 0xff};${rgb & 0xff}`;
  }
  if (c < 8) return String((background ? 40 : 30) + c);
  if (c < 16) return String((background ? 100 : 90) + c - 8);
  return `${background ? 48 : 38};5;${c}`;
}

/** The SGR sequence that sets a segment's style from scratch. */
export function sgrOf(s: Pick<Segment, "fg" | "bg" | "attrs">): string {
  const p = ["0"];
  if (s.attrs & ATTR.bold) p.push("1");
  if (s.attrs & ATTR.dim) p.push("2");
  if (s.attrs & ATTR.italic) p.push("3");
  if (s.attrs & ATTR.underline) p.push("4");
  if (s.attrs & ATTR.inverse) p.push("7");
  if (s.attrs & ATTR.strike) p.push("9");
  if (s.fg !== DEFAULT_COLOUR) p.push(colourSgr(s.fg, false));
  if (s.bg !== DEFAULT_COLOUR) p.push(colourSgr(s.bg, true));
  return `${ESC}${p.join(";")}m`;
}

/** One row as text with our own SGR, ending with the style reset. */
export function rowAnsi(row: readonly Segment[]): string {
  let out = "";
  for (const s of row) out += sgrOf(s) + s.text;
  return `${out}${ESC}0m`;
}

/** Paints a screen on a terminal of the same size, row by row, only what changed. */
export class FramePainter {
  #last: string[] = [];
  #size = "";

  /** What to write to show the screen now ("" when nothing changed). */
  paint(screen: TerminalScreen): string {
    const size = `${screen.cols}x${screen.rows}`;
    let out = "";
    if (size !== this.#size) {
      this.#size = size;
      this.#last = [];
      out += `${ESC}0m${ESC}2J`;
    }
    const rows = screen.view();
    for (let y = 0; y < rows.length; y++) {
      const line = rowAnsi(rows[y] ?? []);
      if (this.#last[y] === line) continue;
      this.#last[y] = line;
      out += `${ESC}${y + 1};1H${line}${ESC}K`;
    }
    const c = screen.cursor;
    const cursor = `${ESC}${c.y + 1};${c.x + 1}H${c.visible ? `${ESC}?25h` : `${ESC}?25l`}`;
    if (out === "" && cursor === this.#lastCursor) return "";
    this.#lastCursor = cursor;
    return out + cursor;
  }

  #lastCursor = "";

  /** Forget one row (something else was written there): the next paint draws it. */
  forgetRow(y: number): void {
    this.#last[y] = "";
  }

  /** Forget what was drawn: the next paint draws every row. */
  invalidate(): void {
    this.#last = [];
    this.#size = "";
  }
}
