import { EventEmitter } from "node:events";
import { toAscii } from "../../ui/context/theme.js";
import type { TerminalStream } from "./diffWriter.js";

/**
 * What the terminal can do, the alternate screen, and the cleanup that restores the
 * terminal. Cleanup runs once, whichever way the process leaves: q, Ctrl-C, SIGTERM/SIGHUP,
 * an uncaught error or exit.
 */

const ENTER_ALT = "\u001b[?1049h\u001b[H";
const LEAVE_ALT = "\u001b[?1049l";
const SHOW_CURSOR = "\u001b[?25h";

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
  /** Leaves the alternate screen and shows the cursor; idempotent. */
  restore(): void;
}

export function enterAlternateScreen(stdout: NodeJS.WriteStream): TerminalSession {
  stdout.write(ENTER_ALT);
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    process.off("exit", restore);
    stdout.write(`${SHOW_CURSOR}${LEAVE_ALT}`);
  };
  process.on("exit", restore);
  return { restore };
}

/** Ink's stdout on an ASCII-only terminal without the alternate screen: text through the glyph table. */
export class AsciiOutput extends EventEmitter {
  readonly isTTY = true;
  private readonly onResize = () => this.emit("resize");

  constructor(private readonly out: TerminalStream) {
    super();
    out.on("resize", this.onResize);
  }

  get columns(): number {
    return this.out.columns || 80;
  }

  get rows(): number {
    return this.out.rows || 24;
  }

  write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    const data = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    this.out.write(toAscii(data));
    rest.find((x): x is () => void => typeof x === "function")?.();
    return true;
  };

  dispose(): void {
    this.out.off("resize", this.onResize);
  }
}
