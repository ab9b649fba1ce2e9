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
