import { writeSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import type { ApiClient } from "../client/apiClient.js";
import {
  TerminalConnection,
  type TerminalEnd,
  type TerminalStatus,
} from "../client/terminalConnection.js";
import { formatSeconds } from "../text/format.js";
import { DETACH_BYTE, DETACH_KEY, keysForRemote } from "../text/terminal/keys.js";
import { hasTerminal } from "./terminalCheck.js";

/**
 * The session's shell on the whole terminal, like ssh: the one implementation behind
 * `agent-sessions attach` and the UI's `@` (which stops Ink's drawing and reading first and
 * paints itself again after). Keys go to the shell raw; Ctrl-] detaches (said when the
 * connection opens); the shell is resized with the terminal (SIGWINCH); the output is drawn
 * through the emulator (src/text/terminal/): only cells reach the terminal, with colours of
 * our own making; `raw` passes the output through with OSC/DCS strings (clipboard, title)
 * dropped. The terminal is restored on every way out: detach, the service closing, a signal,
 * a crash (the process's exit).
 *
 * Without a terminal (a pipe) stdin is sent as typed input; `raw` streams the output, and the
 * emulated view gives the screen's text once the terminal ends.
 */

export interface AttachTerminalOptions {
  raw: boolean;
  /** Lines said outside the shell's screen (announcement, reconnects, a signal): stderr. */
  say: (line: string) => void;
  /**
   * A signal (SIGTERM, SIGINT, SIGHUP): the terminal is restored and then this runs. The
   * headless command exits with 128 + the signal's number here; without it the connection is
   * closed and the attach returns (the UI ends itself on the same signal).
   */
  onSignal?: (signal: NodeJS.Signals, code: number) => void;
  /** An uncaught error: restored, then this runs (the headless command exits). */
  onCrash?: (e: unknown) => void;
}

export interface AttachResult {
  end: TerminalEnd;
  /** Output bytes that came faster than they could be drawn. */
  droppedBytes: number;
  /** The screen's text at the end, when it was emulated without a terminal to draw on. */
  lines: string[] | null;
}

const ALT_SCREEN_ON = "\x1b[?1049h\x1b[H\x1b[2J";
const RESTORE = "\x1b[0m\x1b[?25h\x1b[?1049l";

function statusLine(s: TerminalStatus, sessionId: string): string | null {
  if (s.kind === "reconnecting") {
    return `${sessionId}: ${s.reason}; reconnecting in ${formatSeconds(s.delayMs)} (attempt ${s.attempt + 1} of ${s.maxAttempts})`;
  }
  return null;
}

export async function attachTerminal(
  client: ApiClient,
  sessionId: string,
  opts: AttachTerminalOptions,
): Promise<AttachResult> {
  const stdin = process.stdin;
  const stdout = process.stdout;
  const tty = hasTerminal(stdin, stdout);
  const raw = opts.raw;
  const size = () => ({
    cols: stdout.columns && stdout.columns > 1 ? stdout.columns : 80,
    rows: stdout.rows && stdout.rows > 1 ? stdout.rows : 24,
  });
  // Loaded here, on first use: the emulator is no part of the CLI's start-up.
  const { TerminalScreen } = await import("../text/terminal/screen.js");
  const { FramePainter } = await import("../text/terminal/ansiFrame.js");
  const { RawFilter } = await import("../text/terminal/rawFilter.js");
  const screen = raw ? null : new TerminalScreen({ ...size(), scrollback: tty ? 1000 : 5000 });
  const filter = raw ? new RawFilter() : null;
  const painter = new FramePainter();
  const write = (text: string | Uint8Array) => {
    if (!stdout.destroyed) stdout.write(text);
  };

  let restored = !tty;
  const restore = () => {
    if (restored) return;
    restored = true;
    try {
      stdin.setRawMode?.(false);
    } catch {
      // stdin already closed
    }
    try {
      // Synchronous: this also runs from the process's exit handler.
      writeSync(1, raw ? "\x1b[0m\x1b[?25h" : RESTORE);
    } catch {
      // The terminal went away: nothing is left to restore.
    }
  };

  let paintQueued = false;
  const paint = () => {
    paintQueued = false;
    if (screen && tty) write(painter.paint(screen));
  };
  screen?.onUpdate(() => {
    if (paintQueued) return;
    paintQueued = true;
    setImmediate(paint);
  });
  /** A line on the bottom row, until the shell draws on that row. */
  const banner = (line: string) => {
    if (!screen) return;
    write(`\x1b[${screen.rows};1H\x1b[0;7m${line.slice(0, screen.cols)}\x1b[0m\x1b[K`);
    painter.forgetRow(screen.rows - 1);
  };

  let announced = false;
  const conn = new TerminalConnection(client, sessionId, {
    ...size(),
    onData: (chunk) => {
      if (screen) screen.write(chunk);
      else if (filter) write(filter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
    },
    onStatus: (s) => {
      if (s.kind === "open") {
        if (!announced) {
          announced = true;
          const line = `attached to ${sessionId}: detach with ${DETACH_KEY}`;
          if (tty && screen) {
            painter.invalidate();
            paint();
            banner(line);
          } else opts.say(line);
        } else if (tty && screen) {
          painter.invalidate();
          paint();
        }
        return;
      }
      const line = statusLine(s, sessionId);
      if (!line) return;
      if (tty && screen) banner(line);
      else opts.say(line);
    },
  });

  const onSignal = (signal: NodeJS.Signals, code: number) => () => {
    restore();
    if (opts.onSignal) opts.onSignal(signal, code);
    else conn.close();
  };
  const handlers: [NodeJS.Signals, () => void][] = [
    ["SIGTERM", onSignal("SIGTERM", 143)],
    ["SIGINT", onSignal("SIGINT", 130)],
    ["SIGHUP", onSignal("SIGHUP", 129)],
  ];
  for (const [sig, h] of handlers) process.on(sig, h);
  const onCrash = (e: unknown) => {
    restore();
    opts.onCrash?.(e);
  };
  if (opts.onCrash) process.on("uncaughtException", onCrash);
  process.on("exit", restore);

  const decoder = new StringDecoder("utf8");
  // Ink (the UI) leaves stdin set to utf8: its reads are then strings.
  const onInput = (data: Buffer | string) => {
    const chunk = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    const at = tty ? chunk.indexOf(DETACH_BYTE) : -1;
    const typed = decoder.write(at === -1 ? chunk : chunk.subarray(0, at));
    if (typed && !conn.send(screen ? keysForRemote(typed, screen.applicationCursorKeys) : typed)) {
      if (!tty)
        opts.say(
          "warning: input typed before the terminal opened was more than 64 KiB; the rest was not sent",
        );
    }
    if (at !== -1) conn.close();
  };
  // Read as Ink reads ('readable', not 'data'): a stream once switched to flowing mode and
  // paused again never tells a later 'readable' reader of input, and the UI reads next.
  const onReadable = () => {
    for (
      let chunk = stdin.read() as Buffer | string | null;
      chunk !== null;
      chunk = stdin.read() as Buffer | string | null
    ) {
      onInput(chunk);
    }
  };
  stdin.on("readable", onReadable);
  if (tty) {
    // Raw at once: Ctrl-] gives up while connecting, and keys typed meanwhile wait for the shell.
    stdin.setRawMode?.(true);
    if (screen) {
      write(ALT_SCREEN_ON);
      banner(`connecting to ${sessionId}… (${DETACH_KEY} gives up)`);
    }
  }
  const onResize = () => {
    const s = size();
    screen?.resize(s.cols, s.rows);
    painter.invalidate();
    conn.resize(s.cols, s.rows);
  };
  if (tty) stdout.on("resize", onResize);

  let end: TerminalEnd;
  try {
    end = await conn.run();
  } finally {
    stdin.off("readable", onReadable);
    // Reading stdin no longer keeps the process alive (pausing it would leave a later
    // 'readable' reader deaf); the UI takes it again with ref().
    (stdin as { unref?: () => void }).unref?.();
    stdout.off("resize", onResize);
    restore();
    for (const [sig, h] of handlers) process.off(sig, h);
    process.off("uncaughtException", onCrash);
    process.off("exit", restore);
  }
  let lines: string[] | null = null;
  if (screen && !tty) {
    await screen.flush();
    lines = [];
    for (let i = 0; i < screen.lineCount; i++) lines.push(screen.lineText(i));
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  }
  const droppedBytes = screen?.dropped.bytes ?? 0;
  screen?.dispose();
  return { end, droppedBytes, lines };
}
