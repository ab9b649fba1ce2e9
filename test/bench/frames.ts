import { ScreenModel, WIDE_TAIL, type WriteEffects } from "../../src/cli/tui/screenModel.js";
import { stripAnsi } from "../../src/text/sanitize.js";

const SYNC_START = "\x1b[?2026h";
const SYNC_END = "\x1b[?2026l";

/**
 * Turns the writes of Ink into whole frames: inside a synchronized-output block
 * (ESC[?2026h … ESC[?2026l) everything is one frame, finished at the block's end; outside
 * one, each write with content is a frame.
 */
export class FrameAssembler {
  private open: string[] | null = null;
  constructor(private readonly onFrame: (text: string, at: number) => void) {}

  write(data: string, at: number): void {
    if (data === SYNC_START) {
      this.open = [];
      return;
    }
    if (data === SYNC_END) {
      const parts = this.open;
      this.open = null;
      if (parts && parts.length > 0) this.onFrame(parts.join(""), at);
      return;
    }
    if (this.open) this.open.push(data);
    else if (data.length > 0) this.onFrame(data, at);
  }
}

/**
 * The output part of one of Ink's frames as the writer received it: Ink starts a frame with
 * cursor moves and erasing (hiding the cursor, erasing the last frame's lines or clearing the
 * screen: CSI sequences other than SGR) and ends one that does not fill the terminal with a
 * newline; what lies between is the string Ink's renderer built, one line per row.
 */
export function inkOutputLines(frame: string): string[] {
  const body = frame.replace(/^(?:\x1b\[[0-9;?]*[A-Za-ln-z])+/, "").replace(/\n$/, "");
  return body.split("\n");
}

/**
 * What a terminal of `columns` × `rows` shows after `written` (a pty's output from the
 * start, of a process that writes its frames in synchronized-output blocks, as the CLI's
 * terminal writer does), up to the end of the last finished block (a frame cut between two
 * reads is left out; before the first block ends, the screen is blank), read back through the screen model the CLI's
 * terminal writer keeps: one line per row, each cell's SGR style written where it changes,
 * the default-style blanks at a row's end left out (as Ink leaves them out of its frames).
 */
export function screenLines(written: string, columns: number, rows: number): string[] {
  const end = written.lastIndexOf(SYNC_END);
  const model = new ScreenModel(columns, rows);
  const fx: WriteEffects = { passthrough: [], syncStart: false, syncEnd: false };
  if (end !== -1) model.write(written.slice(0, end + SYNC_END.length), fx);
  const lines: string[] = [];
  for (let y = 0; y < model.rows; y++) {
    const chars = model.chars[y] as string[];
    const styles = model.styles[y] as string[];
    let last = chars.length;
    while (last > 0 && chars[last - 1] === " " && styles[last - 1] === "") last--;
    let line = "";
    let style = "";
    for (let x = 0; x < last; x++) {
      const ch = chars[x] as string;
      if (ch === WIDE_TAIL) continue;
      const want = styles[x] as string;
      if (want !== style) {
        line += `${style === "" ? "" : "\x1b[0m"}${want === "" ? "" : `\x1b[${want}m`}`;
        style = want;
      }
      line += ch;
    }
    lines.push(style === "" ? line : `${line}\x1b[0m`);
  }
  return lines;
}

interface Title {
  row: number;
  col: number;
  sessionId: string;
}

/** Pane titles: a box corner followed by "─ N ses_…" (or "═" when focused). */
const TITLE = /[┌╔┏╭][─═━]+ (?:\d+ )?(ses_[0-9a-z]+)/g;
const FLOOD_LINE = /(?:flood line|step) (\d+)/g;

/**
 * The flood numbers each pane shows in a frame (plain text, ANSI stripped): a number belongs
 * to the nearest pane title above it whose box starts at or left of it.
 */
export function shownPerPane(frame: string): Map<string, number[]> {
  const lines = stripAnsi(frame).split("\n");
  const titles: Title[] = [];
  for (const [row, line] of lines.entries()) {
    for (const m of line.matchAll(TITLE)) {
      titles.push({ row, col: m.index ?? 0, sessionId: m[1] as string });
    }
  }
  const out = new Map<string, number[]>();
  for (const [row, line] of lines.entries()) {
    for (const m of line.matchAll(FLOOD_LINE)) {
      const col = m.index ?? 0;
      let best: Title | null = null;
      for (const t of titles) {
        if (t.row >= row || t.col > col) continue;
        if (!best || t.row > best.row || (t.row === best.row && t.col > best.col)) best = t;
      }
      if (!best) continue;
      let list = out.get(best.sessionId);
      if (!list) {
        list = [];
        out.set(best.sessionId, list);
      }
      list.push(Number(m[1]));
    }
  }
  return out;
}

/** Where the focus is drawn: the row and column of the (only) double-line box corner. */
export function focusSignature(frame: string): string | null {
  const lines = stripAnsi(frame).split("\n");
  for (const [row, line] of lines.entries()) {
    const col = line.indexOf("╔");
    if (col !== -1) return `${row}:${col}`;
  }
  return null;
}

/**
 * The frames a child sees, as plain text, and one wait at a time for the first
 * frame that passes a test: `where()` resolves with that frame's time, or null after `ms`.
 */
export class FrameWatch {
  last = "";
  #waiter: { test: (plain: string) => boolean; done: (at: number | null) => void } | null = null;

  /** Hand every frame here (FrameAssembler's callback), as plain text (stripAnsi). */
  seen(plain: string, at: number): void {
    this.last = plain;
    const w = this.#waiter;
    if (w?.test(plain)) {
      this.#waiter = null;
      w.done(at);
    }
  }

  where(test: (plain: string) => boolean, ms: number): Promise<number | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiter = null;
        resolve(null);
      }, ms);
      this.#waiter = {
        test,
        done: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      };
    });
  }
}
