import { writeSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import type { Command } from "commander";
import { EXIT, type ExitCode } from "../../client/errors.js";
import {
  TerminalConnection,
  type TerminalEnd,
  type TerminalStatus,
} from "../../client/terminalConnection.js";
import { formatSeconds } from "../../text/format.js";
import { DETACH_BYTE, DETACH_KEY, keysForRemote } from "../../text/terminal/keys.js";
import { commandContext } from "../context.js";
import { err, fail } from "../output.js";
import { inputIsTerminal, outputIsTerminal } from "../terminalCheck.js";

export interface AttachOptions {
  raw?: boolean;
}

const ALT_SCREEN_ON = "\x1b[?1049h\x1b[H\x1b[2J";
const RESTORE = "\x1b[0m\x1b[?25h\x1b[?1049l";

/** The exit code and the line that say how an attach ended. */
function ending(end: TerminalEnd, sessionId: string): { code: ExitCode; line: string | null } {
  switch (end.kind) {
    case "detached":
      return { code: EXIT.ok, line: `detached from ${sessionId}` };
    case "closed":
      return { code: EXIT.ok, line: end.message };
    case "taken":
      return { code: EXIT.terminalTaken, line: `error: ${end.message}` };
    case "idle":
      return { code: EXIT.terminalIdle, line: `error: ${end.message}` };
    case "sandbox_expired":
      return { code: EXIT.sandboxExpired, line: `error: ${end.message}` };
    case "lost":
      return { code: EXIT.network, line: `error: ${end.message}` };
    case "refused":
      return { code: EXIT.error, line: null };
  }
}

function statusLine(s: TerminalStatus, sessionId: string): string | null {
  if (s.kind === "reconnecting") {
    return `${sessionId}: ${s.reason}; reconnecting in ${formatSeconds(s.delayMs)} (attempt ${s.attempt + 1} of ${s.maxAttempts})`;
  }
  return null;
}

/**
 * `agent-sessions attach SESSION [--raw]`: the session's shell takes the whole terminal, like
 * ssh. Keys go to the shell raw; Ctrl-] detaches. The shell's output is drawn through the
 * emulator (src/text/terminal/): only cells reach the terminal, with colours of our own
 * making; `--raw` passes the output through with OSC/DCS strings (clipboard, title) dropped.
 * The terminal is restored on every way out: detach, the service closing, a signal, a crash.
 *
 * Without a terminal (a pipe) stdin is sent as typed input; `--raw` streams the output, and
 * the emulated view prints the screen's text once the terminal ends.
 */
export async function runAttach(
  cmd: Command,
  sessionId: string,
  opts: AttachOptions,
): Promise<void> {
  const ctx = await commandContext(cmd).catch((e: unknown) => {
    fail(e);
    return null;
  });
  if (!ctx) return;
  const tty = inputIsTerminal() && outputIsTerminal();
  const raw = opts.raw === true;
  const size = () => ({
    cols: process.stdout.columns && process.stdout.columns > 1 ? process.stdout.columns : 80,
    rows: process.stdout.rows && process.stdout.rows > 1 ? process.stdout.rows : 24,
  });
  // Loaded here, on first use: the emulator is no part of the CLI's start-up.
  const { TerminalScreen } = await import("../../text/terminal/screen.js");
  const { FramePainter } = await import("../../text/terminal/ansiFrame.js");
  const { RawFilter } = await import("../../text/terminal/rawFilter.js");
  const screen = raw ? null : new TerminalScreen({ ...size(), scrollback: tty ? 1000 : 5000 });
  const filter = raw ? new RawFilter() : null;
  const painter = new FramePainter();
  const write = (text: string | Uint8Array) => {
    if (!process.stdout.destroyed) process.stdout.write(text);
  };

  let restored = !tty;
  const restore = () => {
    if (restored) return;
    restored = true;
    try {
      process.stdin.setRawMode?.(false);
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

  let conn: TerminalConnection | null = null;
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

  conn = new TerminalConnection(ctx.client, sessionId, {
    ...size(),
    onData: (chunk) => {
      if (screen) screen.write(chunk);
      else if (filter) write(filter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
    },
    onStatus: (s) => {
      if (s.kind === "open") {
        if (!announced) {
          announced = true;
          err(`attached to ${sessionId}: detach with ${DETACH_KEY}`);
          if (tty) {
            process.stdin.setRawMode?.(true);
            if (!raw) write(ALT_SCREEN_ON);
            painter.invalidate();
            paint();
          }
        } else if (tty && screen) {
          painter.invalidate();
          paint();
        }
        return;
      }
      const line = statusLine(s, sessionId);
      if (!line) return;
      if (tty && announced && screen) {
        // Said on the bottom row until the next frame draws over it.
        write(`\x1b[${screen.rows};1H\x1b[0;7m${line.slice(0, screen.cols)}\x1b[0m\x1b[K`);
        painter.invalidate();
      } else err(line);
    },
  });
  let announced = false;

  const onSignal = (signal: NodeJS.Signals, code: number) => () => {
    restore();
    err(`${signal}: detached from ${sessionId}`);
    conn?.close();
    process.exit(code);
  };
  const handlers: [NodeJS.Signals, () => void][] = [
    ["SIGTERM", onSignal("SIGTERM", 143)],
    ["SIGINT", onSignal("SIGINT", 130)],
    ["SIGHUP", onSignal("SIGHUP", 129)],
  ];
  for (const [sig, h] of handlers) process.on(sig, h);
  const onCrash = (e: unknown) => {
    restore();
    fail(e);
    process.exit(EXIT.error);
  };
  process.on("uncaughtException", onCrash);
  process.on("exit", restore);

  const decoder = new StringDecoder("utf8");
  const onInput = (chunk: Buffer) => {
    const at = tty ? chunk.indexOf(DETACH_BYTE) : -1;
    const typed = decoder.write(at === -1 ? chunk : chunk.subarray(0, at));
    if (typed && !conn?.send(screen ? keysForRemote(typed, screen.applicationCursorKeys) : typed)) {
      if (!tty)
        err(
          "warning: input typed before the terminal opened was more than 64 KiB; the rest was not sent",
        );
    }
    if (at !== -1) conn?.close();
  };
  process.stdin.on("data", onInput);
  const onResize = () => {
    const s = size();
    screen?.resize(s.cols, s.rows);
    painter.invalidate();
    conn?.resize(s.cols, s.rows);
  };
  if (tty) process.stdout.on("resize", onResize);

  let end: TerminalEnd;
  try {
    end = await conn.run();
  } finally {
    process.stdin.off("data", onInput);
    process.stdin.pause();
    process.stdout.off("resize", onResize);
    restore();
    for (const [sig, h] of handlers) process.off(sig, h);
    process.off("uncaughtException", onCrash);
    process.off("exit", restore);
  }
  if (screen && !tty) {
    await screen.flush();
    const lines: string[] = [];
    for (let i = 0; i < screen.lineCount; i++) lines.push(screen.lineText(i));
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    if (lines.length > 0) write(`${lines.join("\n")}\n`);
  }
  screen?.dispose();
  const dropped = screen?.dropped;
  if (dropped && dropped.bytes > 0) {
    err(
      `warning: ${dropped.bytes} bytes of output came faster than they could be drawn and were dropped`,
    );
  }
  await ctx.client.close();
  if (end.kind === "refused") {
    fail(end.error ?? new Error(end.message), refusalHint(end.message, sessionId));
    return;
  }
  const { code, line } = ending(end, sessionId);
  if (line) err(line);
  if (code !== EXIT.ok) process.exitCode = code;
}

function refusalHint(message: string, sessionId: string): string | null {
  if (/not active/i.test(message)) {
    return `A paused session has no running sandbox: resume it first (agent-sessions resume ${sessionId}).`;
  }
  return null;
}
