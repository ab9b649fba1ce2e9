import type { Redactor } from "../../text/redact.js";
import { toAscii } from "../../ui/context/theme.js";
import { DiffWriter } from "./diffWriter.js";
import { guardStream } from "./frameGuard.js";
import { InkStdout, type TerminalStream } from "./inkStdout.js";

/**
 * What the terminal can do, the alternate screen, and the cleanup that restores the
 * terminal. Cleanup runs once, whichever way the process leaves: q, Ctrl-C, SIGTERM/SIGHUP,
 * an uncaught error or exit.
 */

const ENTER_ALT = "\u001b[?1049h\u001b[H";
const LEAVE_ALT = "\u001b[?1049l";
const SHOW_CURSOR = "\u001b[?25h";

/**
 * Most frames a second Ink may draw. The stores already pace what changes on their own (the
 * streams flush once a frame, the fleet's rows ten times a second), so Ink's throttle mostly
 * delays the frame that shows a key press: at 30 a press waited up to 33 ms behind the last
 * frame, and the fleet's slowest press took 70–100 ms; at 60 it takes about 30 ms (npm run
 * bench, B5 and B10), while a flood still draws what the CPU allows (B4).
 */
export const MAX_FPS = 60;

export interface TerminalCaps {
  /** Only ASCII can be shown: TERM=dumb, or a locale (LC_ALL, LC_CTYPE, LANG) without UTF-8. */
  ascii: boolean;
  /** The alternate screen (and with it, writing only the cells that changed); not on TERM=dumb. */
  altScreen: boolean;
}

/**
 * The locale in force for characters is the first of LC_ALL, LC_CTYPE and LANG that is set;
 * one that names no UTF-8 (C, POSIX, en_US.ISO-8859-1) shows ASCII only. With none set the
 * terminal is taken to be UTF-8, as nearly every terminal is today.
 */
export function terminalCaps(env: NodeJS.ProcessEnv = process.env): TerminalCaps {
  const dumb = env.TERM === "dumb";
  const locale = [env.LC_ALL, env.LC_CTYPE, env.LANG].find((v) => v !== undefined && v !== "");
  const utf8 = locale === undefined || /utf-?8/i.test(locale);
  return { ascii: dumb || !utf8, altScreen: !dumb };
}

export interface TerminalSession {
  /**
   * Runs `fn` just before the alternate screen is left, however the process leaves. The UI
   * unmounts here: its last frame then lands on the alternate screen, never on the user's
   * screen after it was given back (an uncaught error leaves through `exit`, where the UI's
   * own exit hook would otherwise draw once more).
   */
  beforeLeave(fn: () => void): void;
  /** Leaves the alternate screen and shows the cursor; idempotent. */
  restore(): void;
}

export function enterAlternateScreen(stdout: NodeJS.WriteStream): TerminalSession {
  stdout.write(ENTER_ALT);
  return session(() => stdout.write(`${SHOW_CURSOR}${LEAVE_ALT}`));
}

/**
 * The UI on the normal screen (TERM=dumb, no alternate screen): the same teardown, however
 * the process leaves, with only the cursor to give back.
 */
export function stayOnNormalScreen(stdout: NodeJS.WriteStream): TerminalSession {
  return session(() => stdout.write(SHOW_CURSOR));
}

function session(leave: () => void): TerminalSession {
  const before: (() => void)[] = [];
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    process.off("exit", restore);
    for (const fn of before) {
      try {
        fn();
      } catch {
        // Giving the screen back matters more than a failed teardown.
      }
    }
    leave();
  };
  process.on("exit", restore);
  return { beforeLeave: (fn) => before.push(fn), restore };
}

/** Ink's stdout on an ASCII-only terminal without the alternate screen: text through the glyph table. */
export class AsciiOutput extends InkStdout {
  protected take(data: string): void {
    this.out.write(toAscii(data));
  }
}

export interface TerminalOutput {
  /** What Ink writes its frames to. */
  stream: TerminalStream;
  /** The diff writer behind the guard, when there is one (its byte and frame counts). */
  writer: DiffWriter | null;
  /** Sends what is held back and stops writing (before the screen is given back). */
  dispose(): void;
}

/**
 * Ink's stdout on this terminal. Every frame first passes the frame guard (no piece of a key,
 * no OSC/C1/bidi control) and only then reaches the diff writer (alternate screen) or the
 * ASCII table (TERM=dumb on an ASCII locale): the writer compares guarded frames, so the cells
 * it sends are guarded too, however a change cuts a key. `tap` sees every guarded write of Ink
 * before the writer compares it (the benchmarks assemble Ink's frames from it).
 */
export function terminalOutput(
  stdout: TerminalStream,
  caps: TerminalCaps,
  secrets: Pick<Redactor, "mask">,
  opts: { tap?: (data: string) => void } = {},
): TerminalOutput {
  const diff = caps.altScreen ? new DiffWriter(stdout, { ascii: caps.ascii, ...opts }) : null;
  const writer = diff ?? (caps.ascii ? new AsciiOutput(stdout) : null);
  return {
    stream: guardStream(writer ?? stdout, secrets),
    writer: diff,
    dispose: () => writer?.dispose(),
  };
}
