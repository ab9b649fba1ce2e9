/**
 * A sandbox shell's output, rendered (DESIGN rule 17): its bytes go into a real VT emulator
 * (@xterm/headless, through its public API only) and what comes out are cells, the text and
 * attributes a screen shows. Nothing a remote program prints reaches the user's terminal as a
 * control sequence: the pane and `attach` draw these cells with colours of their own making.
 *
 * What the emulator would do for the remote program beyond drawing is refused and counted:
 * - its answers to device queries (DA, DSR/cursor position, DECRQSS…) come out of xterm's
 *   onData; they are never sent back to the sandbox on the user's behalf;
 * - OSC 52 (clipboard), window titles, hyperlinks (OSC 8) and other OSC strings are taken
 *   here and dropped;
 * - bidi controls in cells are removed (they would reorder what the user's terminal shows).
 *
 * Bounded: the scrollback is capped, and output arriving faster than the emulator parses it
 * is dropped past `maxPendingBytes`, counted and said (`dropped.bytes`), so 1 GB of output
 * costs the same memory as 10 MB. Invalid UTF-8 is the emulator's to replace.
 *
 * Loaded on first use only (the pane or `attach` imports it dynamically): the emulator is not
 * part of the CLI's start-up.
 */
import xterm from "@xterm/headless";
import { ATTR, type Colour, DEFAULT_COLOUR, RGB, type Segment } from "./cells.js";

type XTerminal = InstanceType<typeof xterm.Terminal>;
type XCell = NonNullable<
  ReturnType<NonNullable<ReturnType<XTerminal["buffer"]["active"]["getLine"]>>["getCell"]>
>;

export interface ScreenOptions {
  cols: number;
  rows: number;
  /** Lines kept above the screen (default 5000). */
  scrollback?: number;
  /** Output waiting to be parsed past which more is dropped (default 8 MiB). */
  maxPendingBytes?: number;
}

/** What the emulator was asked to do for the remote program and did not. */
export interface Dropped {
  /** Output bytes dropped because the emulator was this far behind. */
  bytes: number;
  /** Answers to device queries that would have gone back to the sandbox. */
  replies: number;
  /** OSC strings (clipboard, title, hyperlink, …) taken and dropped. */
  osc: number;
}

// Bidi controls and anything that is no printable text, should a cell ever hold it.
const UNSAFE_IN_CELL = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const DROPPED_OSC = [0, 1, 2, 4, 7, 8, 9, 10, 11, 12, 52, 104, 110, 111, 112, 133, 633, 777, 1337];

export class TerminalScreen {
  readonly #term: XTerminal;
  readonly #maxPending: number;
  #pending = 0;
  #cursorHidden = false;
  readonly #listeners = new Set<() => void>();
  readonly dropped: Dropped = { bytes: 0, replies: 0, osc: 0 };
  #cell: XCell | undefined;

  constructor(opts: ScreenOptions) {
    this.#term = new xterm.Terminal({
      cols: opts.cols,
      rows: opts.rows,
      scrollback: opts.scrollback ?? 5000,
      allowProposedApi: true,
    });
    this.#maxPending = opts.maxPendingBytes ?? 8 * 1024 * 1024;
    // Replies to queries (and anything else the emulator would "type"): never sent anywhere.
    this.#term.onData(() => {
      this.dropped.replies++;
    });
    this.#term.onBinary(() => {
      this.dropped.replies++;
    });
    for (const id of DROPPED_OSC) {
      this.#term.parser.registerOscHandler(id, () => {
        this.dropped.osc++;
        return true;
      });
    }
    // Cursor shown or hidden (DECTCEM): watched, and left to the emulator as well.
    for (const final of ["h", "l"]) {
      this.#term.parser.registerCsiHandler({ prefix: "?", final }, (params) => {
        if (params.includes(25)) this.#cursorHidden = final === "l";
        return false;
      });
    }
    this.#term.onWriteParsed(() => {
      for (const l of this.#listeners) l();
    });
  }

  get cols(): number {
    return this.#term.cols;
  }

  get rows(): number {
    return this.#term.rows;
  }

  /** Full-screen programs (top, less, vim) draw on the alternate screen: no scrollback there. */
  get alternate(): boolean {
    return this.#term.buffer.active.type === "alternate";
  }

  /** Lines above the screen that can be scrolled back to. */
  get scrollbackLines(): number {
    return this.#term.buffer.active.baseY;
  }

  /** The sandbox asked for application cursor keys (arrows as ESC O A…). */
  get applicationCursorKeys(): boolean {
    return this.#term.modes.applicationCursorKeysMode;
  }

  /** Where the cursor is on the screen, and whether the program hid it. */
  get cursor(): { x: number; y: number; visible: boolean } {
    const b = this.#term.buffer.active;
    return { x: b.cursorX, y: b.cursorY, visible: !this.#cursorHidden };
  }

  /** Called after output has been parsed (coalesce: it may come many times a frame). */
  onUpdate(fn: () => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Output from the sandbox; past the pending bound it is dropped and counted. */
  write(chunk: string | Uint8Array): void {
    const size = typeof chunk === "string" ? chunk.length : chunk.byteLength;
    if (size === 0) return;
    if (this.#pending + size > this.#maxPending) {
      this.dropped.bytes += size;
      return;
    }
    this.#pending += size;
    this.#term.write(chunk, () => {
      this.#pending -= size;
    });
  }

  /** Resolves once everything written so far is parsed. */
  flush(): Promise<void> {
    return new Promise((resolve) => this.#term.write("", resolve));
  }

  resize(cols: number, rows: number): void {
    if (cols === this.cols && rows === this.rows) return;
    this.#term.resize(Math.max(2, cols), Math.max(1, rows));
  }

  /**
   * The screen's rows as styled segments; `scrolledBack` lines above the live screen (0: the
   * live screen). Each row's segments fill exactly `cols` cells.
   */
  view(scrolledBack = 0): Segment[][] {
    const b = this.#term.buffer.active;
    const top = Math.max(0, b.baseY - Math.max(0, Math.min(scrolledBack, b.baseY)));
    const out: Segment[][] = [];
    for (let r = 0; r < this.rows; r++) out.push(this.#row(top + r));
    return out;
  }

  /** The plain text of a buffer line (0 = the oldest kept line). */
  lineText(index: number): string {
    const line = this.#term.buffer.active.getLine(index);
    return line ? line.translateToString(true).replace(UNSAFE_IN_CELL, "") : "";
  }

  /** Every kept line (scrollback and screen) in order. */
  get lineCount(): number {
    return this.#term.buffer.active.length;
  }

  /** The screen's visible text, one string per row (tests, search). */
  text(scrolledBack = 0): string[] {
    return this.view(scrolledBack).map((row) =>
      row
        .map((s) => s.text)
        .join("")
        .trimEnd(),
    );
  }

  /**
   * Lines holding `query` (case-insensitive), newest last, as how far back to scroll to show
   * each at the top of the screen (0 when it is already on the live screen).
   */
  search(query: string): number[] {
    const q = query.toLowerCase();
    if (q === "") return [];
    const b = this.#term.buffer.active;
    const hits: number[] = [];
    for (let i = 0; i < b.length; i++) {
      if (this.lineText(i).toLowerCase().includes(q)) hits.push(Math.max(0, b.baseY - i));
    }
    return hits;
  }

  dispose(): void {
    this.#listeners.clear();
    this.#term.dispose();
  }

  #row(index: number): Segment[] {
    const cols = this.cols;
    const line = this.#term.buffer.active.getLine(index);
    const blank: Segment = {
      text: " ".repeat(cols),
      fg: DEFAULT_COLOUR,
      bg: DEFAULT_COLOUR,
      attrs: 0,
    };
    if (!line) return [blank];
    const out: Segment[] = [];
    let cur: Segment | null = null;
    for (let x = 0; x < cols; x++) {
      const cell = line.getCell(x, this.#cell);
      if (!cell) break;
      this.#cell = cell;
      const width = cell.getWidth();
      // The second half of a wide character: its first half holds the text.
      if (width === 0) continue;
      const raw = cell.getChars();
      const chars = raw === "" ? " " : raw.replace(UNSAFE_IN_CELL, "") || " ";
      const fg = colourOf(cell.isFgDefault(), cell.isFgRGB(), cell.getFgColor());
      const bg = colourOf(cell.isBgDefault(), cell.isBgRGB(), cell.getBgColor());
      const attrs =
        (cell.isBold() ? ATTR.bold : 0) |
        (cell.isDim() ? ATTR.dim : 0) |
        (cell.isItalic() ? ATTR.italic : 0) |
        (cell.isUnderline() ? ATTR.underline : 0) |
        (cell.isInverse() ? ATTR.inverse : 0) |
        (cell.isStrikethrough() ? ATTR.strike : 0) |
        (cell.isInvisible() ? ATTR.invisible : 0);
      const text = attrs & ATTR.invisible ? " ".repeat(width) : chars;
      if (cur && cur.fg === fg && cur.bg === bg && cur.attrs === attrs) cur.text += text;
      else {
        cur = { text, fg, bg, attrs };
        out.push(cur);
      }
    }
    return out.length > 0 ? out : [blank];
  }
}

function colourOf(isDefault: boolean, isRgb: boolean, value: number): Colour {
  if (isDefault) return DEFAULT_COLOUR;
  return isRgb ? RGB | (value & 0xffffff) : value & 0xff;
}
