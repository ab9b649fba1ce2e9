import { asciiGlyph } from "../../ui/context/theme.js";
import { InkStdout, type TerminalStream } from "./inkStdout.js";
import { ScreenModel, type Style, WIDE_TAIL, type WriteEffects } from "./screenModel.js";

export type { TerminalStream } from "./inkStdout.js";

/**
 * The stdout Ink writes to, in front of the real terminal. Ink repaints the whole frame on
 * every render (about 12 KB at 200×50); this writer applies what Ink wrote to a model of the
 * screen and sends the terminal only the cells that differ from what it already shows, with
 * absolute cursor moves (it owns the alternate screen, so positions are known). A frame ends
 * where Ink ends its synchronized-output block; anything written outside one is sent on the
 * next tick. With `ascii`, every character goes out through the theme's ASCII glyph table.
 *
 * It also counts bytes both ways: what Ink wrote (full-frame repainting) and what reached the
 * terminal, for `npm run bench` (B12).
 */

const BSU = "\u001b[?2026h";
const ESU = "\u001b[?2026l";
const RESET = "\u001b[0m";
/** Unchanged cells shorter than this between two changed runs are rewritten, not skipped. */
const MAX_GAP = 6;

export interface DiffWriterOptions {
  /** Draw with the ASCII glyph table (TERM=dumb, a locale without UTF-8). */
  ascii?: boolean;
  /** Sees every write of Ink as it came (the benchmarks assemble frames from it). */
  tap?: (data: string) => void;
}

export interface WriterStats {
  /** Bytes Ink wrote: the cost of repainting the whole frame every time. */
  bytesIn: number;
  /** Bytes written to the terminal. */
  bytesOut: number;
  /** Frames that changed at least one cell. */
  frames: number;
}

export class DiffWriter extends InkStdout {
  readonly stats: WriterStats = { bytesIn: 0, bytesOut: 0, frames: 0 };
  private readonly model: ScreenModel;
  /** What the terminal shows, as far as this writer wrote it. */
  private readonly shown: ScreenModel;
  /** The terminal's content is unknown (start, resize): clear it before the next frame. */
  private dirty = true;
  private inSync = false;
  private timer: NodeJS.Timeout | null = null;
  private disposed = false;
  /** The terminal is lent out (hold): frames go into the model only. */
  private held = false;
  private readonly ascii: boolean;
  private readonly tap: ((data: string) => void) | null;

  constructor(out: TerminalStream, opts: DiffWriterOptions = {}) {
    super(out);
    this.ascii = opts.ascii ?? false;
    this.tap = opts.tap ?? null;
    this.model = new ScreenModel(this.columns, this.rows);
    this.shown = new ScreenModel(this.columns, this.rows);
  }

  protected take(data: string): void {
    if (this.disposed) return;
    this.tap?.(data);
    this.stats.bytesIn += Buffer.byteLength(data);
    const fx: WriteEffects = { passthrough: [], syncStart: false, syncEnd: false };
    this.model.write(data, fx);
    if (fx.passthrough.length > 0 && !this.held) this.send(fx.passthrough.join(""));
    if (fx.syncStart) this.inSync = true;
    if (fx.syncEnd) {
      this.inSync = false;
      this.flush();
    } else if (!this.inSync) this.schedule();
  }

  /** Sends what changed since the last flush, now. */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.disposed || this.held) return;
    const update = this.diff();
    if (update === "") return;
    this.stats.frames++;
    this.send(`${BSU}${update}${ESU}`);
  }

  /** The terminal was taken over (an editor ran): paint the whole frame again. */
  repaint(): void {
    this.dirty = true;
    this.schedule();
  }

  /** The terminal is lent to something else (attach): nothing is written until `release`. */
  hold(): void {
    this.held = true;
  }

  /** The terminal is back: the whole frame is painted again. */
  release(): void {
    this.held = false;
    this.repaint();
  }

  /** Flushes and stops: later writes are dropped (the caller restores the terminal next). */
  override dispose(): void {
    this.flush();
    this.disposed = true;
    super.dispose();
  }

  private schedule(): void {
    if (this.timer || this.disposed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, 0);
  }

  private send(data: string): void {
    this.stats.bytesOut += Buffer.byteLength(data);
    this.out.write(data);
  }

  protected override resized(): void {
    const cols = this.columns;
    const rows = this.rows;
    this.model.resize(cols, rows);
    this.shown.resize(cols, rows);
    // The terminal re-flowed or cropped what it showed: repaint all of it.
    this.dirty = true;
    super.resized();
    this.schedule();
  }

  /** The bytes that turn what the terminal shows into the model, and the model's cells copied. */
  private diff(): string {
    const m = this.model;
    const shown = this.shown;
    let out = "";
    if (this.dirty) {
      this.dirty = false;
      shown.clear();
      out += `${RESET}\u001b[H\u001b[2J`;
    }
    let style: Style = "";
    let row = -1;
    let col = -1;
    for (let y = 0; y < m.rows; y++) {
      const want = m.chars[y] as string[];
      const wantStyle = m.styles[y] as Style[];
      const have = shown.chars[y] as string[];
      const haveStyle = shown.styles[y] as Style[];
      let x = 0;
      while (x < m.cols) {
        if (want[x] === have[x] && wantStyle[x] === haveStyle[x]) {
          x++;
          continue;
        }
        // A run of changed cells, short unchanged gaps included.
        let start = x;
        while (start > 0 && want[start] === WIDE_TAIL) start--;
        let end = x + 1;
        let gap = 0;
        while (end < m.cols && gap <= MAX_GAP) {
          if (want[end] === have[end] && wantStyle[end] === haveStyle[end]) gap++;
          else gap = 0;
          end++;
        }
        end -= gap;
        while (end < m.cols && want[end] === WIDE_TAIL) end++;
        if (row !== y || col !== start) {
          out +=
            row === y && start > col
              ? `\u001b[${start - col === 1 ? "" : start - col}C`
              : `\u001b[${y + 1}${start > 0 ? `;${start + 1}` : ""}H`;
        }
        for (let k = start; k < end; k++) {
          const ch = want[k] as string;
          const st = wantStyle[k] as Style;
          have[k] = ch;
          haveStyle[k] = st;
          if (ch === WIDE_TAIL) continue;
          if (st !== style) {
            out += st === "" ? RESET : `\u001b[0;${st}m`;
            style = st;
          }
          out += this.ascii ? asciiCell(ch, k + 1 < end && want[k + 1] === WIDE_TAIL ? 2 : 1) : ch;
        }
        row = y;
        // At the right edge the terminal holds a pending wrap: the next move is absolute.
        col = end >= m.cols ? -1 : end;
        x = end;
      }
    }
    if (style !== "") out += RESET;
    return out;
  }
}

/** A cell for an ASCII-only terminal: its character through the glyph table, marks dropped. */
function asciiCell(ch: string, width: number): string {
  const cp = ch.codePointAt(0) ?? 0x3f;
  return asciiGlyph(String.fromCodePoint(cp), width);
}
