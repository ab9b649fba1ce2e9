import { charWidth } from "../../text/wrap.js";

/**
 * What a terminal screen holds, cell by cell, as far as the escape sequences Ink writes go:
 * printable text (wide characters take two cells, combining marks join the cell before),
 * CR, LF (with the tty's newline translation: to the start of the next row, scrolling at the
 * bottom), BS, TAB, SGR colours and attributes, cursor movement (CUU, CUD, CUF, CUB, CNL,
 * CPL, CHA, CUP, save/restore) and erasing (EL, ED). Other sequences change no cell: the
 * ones a terminal must still see (cursor visibility, other private modes, the bell) are
 * handed back to be written through. The terminal writer (diffWriter.ts) compares two of
 * these to write only what changed.
 */

/** A cell that continues the wide character on its left. */
export const WIDE_TAIL = "";

/** The style of a cell: SGR parameters, canonical ("" is the default). */
export type Style = string;

export interface Cursor {
  row: number;
  col: number;
}

/** What the screen tells its owner about a write, besides its own change. */
export interface WriteEffects {
  /** Sequences to pass on unchanged (private modes, the bell), in order. */
  passthrough: string[];
  /** A synchronized-output block began (ESC[?2026h) or ended (ESC[?2026l). */
  syncStart: boolean;
  syncEnd: boolean;
}

const FLAG_CODES = [1, 2, 3, 4, 5, 7, 8, 9] as const;

/** SGR state, kept as the parts a later SGR can change one by one. */
class SgrState {
  flags = 0;
  fg: string | null = null;
  bg: string | null = null;
  private cached: Style | null = "";

  reset(): void {
    this.flags = 0;
    this.fg = null;
    this.bg = null;
    this.cached = "";
  }

  style(): Style {
    if (this.cached !== null) return this.cached;
    const parts: string[] = [];
    FLAG_CODES.forEach((code, i) => {
      if (this.flags & (1 << i)) parts.push(String(code));
    });
    if (this.fg !== null) parts.push(this.fg);
    if (this.bg !== null) parts.push(this.bg);
    this.cached = parts.join(";");
    return this.cached;
  }

  private flag(code: number, on: boolean): void {
    const i = FLAG_CODES.indexOf(code as (typeof FLAG_CODES)[number]);
    if (i < 0) return;
    this.flags = on ? this.flags | (1 << i) : this.flags & ~(1 << i);
  }

  apply(params: string): void {
    this.cached = null;
    const p = params === "" ? [0] : params.split(/[;:]/).map((x) => (x === "" ? 0 : Number(x)));
    for (let i = 0; i < p.length; i++) {
      const n = p[i] as number;
      if (n === 0) this.reset();
      else if (n === 38 || n === 48) {
        // 38;5;N or 38;2;R;G;B (and the same for the background)
        const mode = p[i + 1];
        const take = mode === 5 ? 2 : mode === 2 ? 4 : 0;
        const color = [n, ...p.slice(i + 1, i + 1 + take)].join(";");
        if (n === 38) this.fg = color;
        else this.bg = color;
        i += take;
      } else if ((n >= 30 && n <= 37) || (n >= 90 && n <= 97)) this.fg = String(n);
      else if ((n >= 40 && n <= 47) || (n >= 100 && n <= 107)) this.bg = String(n);
      else if (n === 39) this.fg = null;
      else if (n === 49) this.bg = null;
      else if (n === 22) {
        this.flag(1, false);
        this.flag(2, false);
      } else if (n >= 23 && n <= 29) this.flag(n - 20, false);
      else this.flag(n, true);
    }
    this.cached = null;
  }
}

export class ScreenModel {
  rows: number;
  cols: number;
  /** One string per cell: the character (with any combining marks), or WIDE_TAIL. */
  chars: string[][];
  styles: Style[][];
  cursor: Cursor = { row: 0, col: 0 };
  private saved: Cursor = { row: 0, col: 0 };
  private readonly sgr = new SgrState();
  /** An escape sequence cut between two writes, kept for the next one. */
  private partial = "";

  constructor(cols: number, rows: number) {
    this.cols = Math.max(1, cols);
    this.rows = Math.max(1, rows);
    this.chars = Array.from({ length: this.rows }, () => blankRow(this.cols));
    this.styles = Array.from({ length: this.rows }, () => styleRow(this.cols));
  }

  /** New size: what fits is kept, the rest is cut or blank. */
  resize(cols: number, rows: number): void {
    const c = Math.max(1, cols);
    const r = Math.max(1, rows);
    const chars: string[][] = [];
    const styles: Style[][] = [];
    for (let y = 0; y < r; y++) {
      const oldChars = this.chars[y];
      const oldStyles = this.styles[y];
      const rowChars = blankRow(c);
      const rowStyles = styleRow(c);
      if (oldChars && oldStyles) {
        for (let x = 0; x < Math.min(c, this.cols); x++) {
          rowChars[x] = oldChars[x] as string;
          rowStyles[x] = oldStyles[x] as Style;
        }
        // A wide character cut in half at the new edge is gone.
        if (c < this.cols && rowChars[c - 1] !== WIDE_TAIL && oldChars[c] === WIDE_TAIL) {
          rowChars[c - 1] = " ";
        }
      }
      chars.push(rowChars);
      styles.push(rowStyles);
    }
    this.chars = chars;
    this.styles = styles;
    this.cols = c;
    this.rows = r;
    this.cursor = { row: Math.min(this.cursor.row, r - 1), col: Math.min(this.cursor.col, c) };
  }

  /** Everything blank in the default style (what ESC[2J leaves). */
  clear(): void {
    for (let y = 0; y < this.rows; y++) this.eraseRow(y, 0, this.cols);
  }

  write(data: string, fx: WriteEffects): void {
    let s = this.partial + data;
    this.partial = "";
    let i = 0;
    const n = s.length;
    while (i < n) {
      const code = s.charCodeAt(i);
      if (code === 0x1b) {
        const end = this.escape(s, i, fx);
        if (end < 0) {
          this.partial = s.slice(i);
          s = "";
          return;
        }
        i = end;
        continue;
      }
      if (code < 0x20 || code === 0x7f) {
        this.control(code, fx);
        i++;
        continue;
      }
      const cp = s.codePointAt(i) ?? 0;
      const len = cp > 0xffff ? 2 : 1;
      this.print(s.slice(i, i + len), charWidth(cp));
      i += len;
    }
  }

  /** The row as text, for tests and debugging (wide tails left out). */
  rowText(row: number): string {
    return (this.chars[row] ?? []).join("");
  }

  private control(code: number, fx: WriteEffects): void {
    switch (code) {
      case 0x0a: // LF; the tty turns it into CR LF (onlcr)
        this.cursor.col = 0;
        this.lineFeed();
        break;
      case 0x0d:
        this.cursor.col = 0;
        break;
      case 0x08:
        this.cursor.col = Math.max(0, Math.min(this.cursor.col, this.cols - 1) - 1);
        break;
      case 0x09:
        this.cursor.col = Math.min(this.cols - 1, (Math.floor(this.cursor.col / 8) + 1) * 8);
        break;
      case 0x07:
        fx.passthrough.push("\u0007");
        break;
      default:
        break;
    }
  }

  private lineFeed(): void {
    if (this.cursor.row < this.rows - 1) {
      this.cursor.row++;
      return;
    }
    this.chars.shift();
    this.styles.shift();
    this.chars.push(blankRow(this.cols));
    this.styles.push(styleRow(this.cols));
  }

  private print(ch: string, width: number): void {
    const cur = this.cursor;
    if (width === 0) {
      // A combining mark joins the character before it.
      const row = this.chars[cur.row] as string[];
      let x = Math.min(cur.col, this.cols) - 1;
      while (x > 0 && row[x] === WIDE_TAIL) x--;
      if (x >= 0) row[x] += ch;
      return;
    }
    if (cur.col + width > this.cols) {
      // Past the right edge: the terminal wraps to the next row.
      cur.col = 0;
      this.lineFeed();
      if (width > this.cols) return;
    }
    const row = this.chars[cur.row] as string[];
    const styles = this.styles[cur.row] as Style[];
    const style = this.sgr.style();
    this.unsplit(row, cur.col, width);
    row[cur.col] = ch;
    styles[cur.col] = style;
    for (let k = 1; k < width; k++) {
      row[cur.col + k] = WIDE_TAIL;
      styles[cur.col + k] = style;
    }
    cur.col += width;
  }

  /** Writing over part of a wide character blanks the rest of it. */
  private unsplit(row: string[], at: number, width: number): void {
    if (row[at] === WIDE_TAIL && at > 0) row[at - 1] = " ";
    const after = at + width;
    if (after < this.cols && row[after] === WIDE_TAIL) row[after] = " ";
  }

  private eraseRow(y: number, from: number, to: number): void {
    const row = this.chars[y];
    const styles = this.styles[y];
    if (!row || !styles) return;
    const a = Math.max(0, from);
    const b = Math.min(this.cols, to);
    if (a < b) this.unsplit(row, a, b - a);
    for (let x = a; x < b; x++) {
      row[x] = " ";
      styles[x] = "";
    }
  }

  /** Parses the escape sequence at `at`; returns where it ends, or -1 when it is cut short. */
  private escape(s: string, at: number, fx: WriteEffects): number {
    const next = s[at + 1];
    if (next === undefined) return -1;
    if (next === "[") {
      let j = at + 2;
      while (j < s.length) {
        const c = s.charCodeAt(j);
        if (c >= 0x40 && c <= 0x7e) break;
        j++;
      }
      if (j >= s.length) return -1;
      this.csi(s.slice(at + 2, j), s[j] as string, s.slice(at, j + 1), fx);
      return j + 1;
    }
    if (next === "]") {
      // OSC: up to BEL or ST. It draws nothing; the UI writes none of its own.
      for (let j = at + 2; j < s.length; j++) {
        if (s.charCodeAt(j) === 0x07) return j + 1;
        if (s.charCodeAt(j) === 0x1b && s[j + 1] === "\\") return j + 2;
      }
      return -1;
    }
    if (next === "7") this.saved = { ...this.cursor };
    else if (next === "8") this.cursor = { ...this.saved };
    return at + 2;
  }

  private csi(params: string, final: string, whole: string, fx: WriteEffects): void {
    if (params.startsWith("?")) {
      if (params === "?2026" && final === "h") fx.syncStart = true;
      else if (params === "?2026" && final === "l") fx.syncEnd = true;
      else fx.passthrough.push(whole);
      return;
    }
    if (final === "m") {
      this.sgr.apply(params);
      return;
    }
    const nums = params.split(";").map((x) => (x === "" ? Number.NaN : Number(x)));
    const n = Number.isFinite(nums[0]) ? (nums[0] as number) : 0;
    const count = Math.max(1, n);
    const cur = this.cursor;
    const col = Math.min(cur.col, this.cols - 1);
    switch (final) {
      case "A":
        cur.row = Math.max(0, cur.row - count);
        cur.col = col;
        break;
      case "B":
        cur.row = Math.min(this.rows - 1, cur.row + count);
        cur.col = col;
        break;
      case "C":
        cur.col = Math.min(this.cols - 1, col + count);
        break;
      case "D":
        cur.col = Math.max(0, col - count);
        break;
      case "E":
        cur.row = Math.min(this.rows - 1, cur.row + count);
        cur.col = 0;
        break;
      case "F":
        cur.row = Math.max(0, cur.row - count);
        cur.col = 0;
        break;
      case "G":
        cur.col = Math.min(this.cols - 1, count - 1);
        break;
      case "H":
      case "f": {
        const c = Number.isFinite(nums[1]) ? Math.max(1, nums[1] as number) : 1;
        cur.row = Math.min(this.rows - 1, count - 1);
        cur.col = Math.min(this.cols - 1, c - 1);
        break;
      }
      case "K":
        if (n === 0) this.eraseRow(cur.row, col, this.cols);
        else if (n === 1) this.eraseRow(cur.row, 0, col + 1);
        else if (n === 2) this.eraseRow(cur.row, 0, this.cols);
        break;
      case "J":
        if (n === 0) {
          this.eraseRow(cur.row, col, this.cols);
          for (let y = cur.row + 1; y < this.rows; y++) this.eraseRow(y, 0, this.cols);
        } else if (n === 1) {
          for (let y = 0; y < cur.row; y++) this.eraseRow(y, 0, this.cols);
          this.eraseRow(cur.row, 0, col + 1);
        } else this.clear();
        break;
      default:
        break;
    }
  }
}

function blankRow(cols: number): string[] {
  return new Array<string>(cols).fill(" ");
}

function styleRow(cols: number): Style[] {
  return new Array<Style>(cols).fill("");
}
