import { EXIT } from "../client/errors.js";
import { toJsonText } from "../text/json.js";
import { createRedactor, type StreamRedaction } from "../text/redact.js";
import { foldLines, sanitize } from "../text/sanitize.js";
import { colorFor } from "./terminalCheck.js";

/** Anything shaped like our typed errors (client errors and credentials errors alike). */
interface ActionableError {
  message: string;
  exitCode: number;
  hint?: string;
}

function isActionable(e: unknown): e is ActionableError {
  return (
    e instanceof Error &&
    typeof (e as Partial<ActionableError>).exitCode === "number" &&
    Number.isInteger((e as Partial<ActionableError>).exitCode)
  );
}

/** The secrets of this process (the keys in use): never printed, whole or in pieces. */
export const secrets = createRedactor();

/**
 * Registers a secret that must never reach the terminal. Everything the CLI prints goes
 * through `redact`, so even a server that echoes the key back cannot make us print it.
 */
export function registerSecret(secret: string): void {
  secrets.add(secret);
}

export function redact(text: string): string {
  return secrets.redact(text);
}

/**
 * One output stream of the process (stdout or stderr) with everything decided once for it:
 * whether it is coloured (src/cli/terminalCheck.ts colorFor: a terminal, no NO_COLOR), and a
 * stream redaction over all that was written to it, so a key a server sends back a few
 * characters at a time, over items, lines or events, is never written whole.
 */
interface Sink {
  stream: NodeJS.WriteStream;
  redaction: StreamRedaction;
  color: boolean | null;
}

const sinks = {
  out: { stream: process.stdout, redaction: secrets.stream(), color: null } as Sink,
  err: { stream: process.stderr, redaction: secrets.stream(), color: null } as Sink,
};

function colored(sink: Sink): boolean {
  sink.color ??= colorFor(sink.stream);
  return sink.color;
}

const KEEP_SGR = { keepSgr: true } as const;

/**
 * The last guard before text reaches a terminal, a file or a pipe: server text is sanitized
 * where it enters, and whatever still carries an escape sequence (any, colours included, when
 * the output is not coloured), a C1 or bidi control, or a piece of the key, loses it here.
 */
function guard(sink: Sink, text: string, color = colored(sink)): string {
  return sanitize(text, color ? KEEP_SGR : undefined);
}

/** Streamed text: its last characters may be held back (see StreamRedaction.push). */
function writeText(sink: Sink, text: string): void {
  const safe = sink.redaction.push(guard(sink, text), true);
  if (safe !== "") sink.stream.write(safe);
}

/** A line: released whole (nothing held), its newline after it. */
function writeLine(sink: Sink, line: string, color?: boolean): void {
  sink.stream.write(`${sink.redaction.push(guard(sink, line, color))}\n`);
}

const closed = new AbortController();

/**
 * Aborted once stdout is closed by its reader (`| head`): commands stop their work, print
 * nothing more, run their usual cleanup and exit 0.
 */
export const stdoutClosed: AbortSignal = closed.signal;

/**
 * Turns EPIPE on stdout into stdoutClosed instead of a crash with a stack trace, and ignores
 * a closed stderr (`2>&1 | head`): nothing can be told to a reader that has gone.
 */
export function handleClosedOutput(): void {
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (!closed.signal.aborted) closed.abort();
    if (e.code !== "EPIPE" && e.code !== "ERR_STREAM_DESTROYED") {
      process.stderr.write(`error: cannot write to stdout (${sanitize(String(e.code))})\n`);
    }
  });
  process.stderr.on("error", () => {});
}

/**
 * One line to stdout. `color`: keep colours even off a terminal (an explicit `--ansi`);
 * default the one rule (colorFor).
 */
export function out(line: string, color?: boolean): void {
  if (closed.signal.aborted) return;
  writeLine(sinks.out, line, color);
}

/**
 * Text as it streams (a prompt's answer): guarded like every line, no newline added; a few
 * characters that may begin the key can wait for the next text or endText.
 */
export function outText(text: string): void {
  if (closed.signal.aborted || text === "") return;
  writeText(sinks.out, text);
}

/** Whatever streamed text still waits (see outText) is written now. */
export function endText(): void {
  const rest = sinks.out.redaction.end();
  if (rest !== "" && !closed.signal.aborted) process.stdout.write(rest);
}

/** An `error:` line was written: the exit code then says the failure, even after `| head`. */
let errorSaid = false;

export function err(line: string): void {
  if (line.startsWith("error:")) errorSaid = true;
  writeLine(sinks.err, line);
}

/**
 * Null when stdout and stderr take more now; else a promise of when they have drained (or
 * closed). A streaming command awaits it before reading more from the service, so a reader
 * that stops reading (`| less`) stops the socket too, and memory stays bounded.
 */
export function outputRoom(): Promise<void> | null {
  const full = [process.stdout, process.stderr].filter(
    (s) => s.writableNeedDrain && !s.destroyed && !(s === process.stdout && closed.signal.aborted),
  );
  if (full.length === 0) return null;
  return Promise.all(full.map(drained)).then(() => undefined);
}

function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      stream.off("error", done);
      if (stream === process.stdout) closed.signal.removeEventListener("abort", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
    stream.on("error", done);
    if (stream === process.stdout) closed.signal.addEventListener("abort", done);
  });
}

/**
 * Prints an error as one or two lines (what happened; what to do) and returns its exit code.
 * A `hint` given here says what to do instead of the error's own.
 */
export function reportError(e: unknown, hint?: string | null): number {
  // The reader went away (`| head`): the command was cut short on purpose, quietly.
  if (closed.signal.aborted) return EXIT.ok;
  if (isActionable(e)) {
    err(`error: ${foldLines(sanitize(e.message))}`);
    const what = hint || e.hint;
    if (what) err(`hint: ${foldLines(sanitize(what))}`);
    return e.exitCode;
  }
  const message = e instanceof Error ? e.message : String(e);
  err(`error: ${foldLines(sanitize(message))}`);
  if (process.env.AGENT_SESSIONS_DEBUG && e instanceof Error && e.stack) err(e.stack);
  return EXIT.error;
}

/**
 * Runs a whole invocation (the program, or the bare UI) with the process-wide handlers: a
 * reader that goes away (`agent-sessions … | head`) ends it quietly with exit 0, and an
 * unhandled rejection is reported like any error. Returns the exit code.
 */
export async function runCommand(run: () => Promise<number>): Promise<number> {
  handleClosedOutput();
  process.on("unhandledRejection", (reason) => {
    process.exitCode = reportError(reason);
  });
  const code = await run();
  endText();
  // A reader gone ends the command quietly with 0; a failure already said on stderr (before
  // the reader went) keeps its code, so an `error:` line never comes with exit 0.
  return stdoutClosed.aborted && !errorSaid ? EXIT.ok : code;
}

/** The exit code a command's action set, else 0. */
export function exitCodeSet(): number {
  return typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
}

/** Sets the exit code from an error without exiting, so pending output is flushed. */
export function fail(e: unknown, hint?: string | null): void {
  process.exitCode = reportError(e, hint);
}

/** One JSON value on one line; C1, bidi and line separators escaped, any depth (toJsonText). */
export function printJson(value: unknown): void {
  out(toJsonText(value));
}

/** Column widths fitting the headers and these rows (a loop: rows may number in the 100,000s). */
export function columnWidths(headers: string[], rows: readonly string[][]): number[] {
  const widths = headers.map((h) => h.length);
  for (const r of rows) {
    for (let i = 0; i < widths.length; i++) {
      const n = foldLines(r[i] ?? "").length;
      if (n > (widths[i] ?? 0)) widths[i] = n;
    }
  }
  return widths;
}

/**
 * The lines of a plain left-aligned table. Cells are a single-line place: whatever newline or
 * tab a cell still holds is folded, so no cell can print a row of its own.
 */
export function tableLines(widths: readonly number[], rows: readonly string[][]): string[] {
  return rows.map((cells) =>
    cells
      .map((c, i) => {
        const cell = foldLines(c);
        return i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0);
      })
      .join("  ")
      .trimEnd(),
  );
}

/** A plain left-aligned table with a header row; cells are sanitized by the caller. */
export function table(headers: string[], rows: string[][]): string {
  const widths = columnWidths(headers, rows);
  return tableLines(widths, [headers, ...rows]).join("\n");
}

/**
 * Bytes to stdout exactly as given, for a pipe or a file (`cat`, `diff`): nothing is
 * sanitized, so a patch still applies and a file is byte for byte. Text has the key redacted
 * (`redactText`); only a caller that knows stdout is not a terminal writes this way.
 */
export function outRaw(data: string | Uint8Array): void {
  if (closed.signal.aborted) return;
  process.stdout.write(data);
}
