import { EXIT } from "../client/errors.js";

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

const secrets = new Set<string>();

/**
 * Registers a secret that must never reach the terminal. Everything the CLI prints goes
 * through `redact`, so even a server that echoes the key back cannot make us print it.
 */
export function registerSecret(secret: string): void {
  if (secret.length >= 8) secrets.add(secret);
}

export function redact(text: string): string {
  let out = text;
  for (const s of secrets) {
    if (out.includes(s)) out = out.split(s).join("[redacted key]");
  }
  return out;
}

export function out(line: string): void {
  process.stdout.write(`${redact(line)}\n`);
}

export function err(line: string): void {
  process.stderr.write(`${redact(line)}\n`);
}

/** Prints an error as one or two lines (what happened; what to do) and returns its exit code. */
export function reportError(e: unknown): number {
  if (isActionable(e)) {
    err(`error: ${e.message}`);
    if (e.hint) err(`hint: ${e.hint}`);
    return e.exitCode;
  }
  const message = e instanceof Error ? e.message : String(e);
  err(`error: ${message}`);
  if (process.env.AGENT_SESSIONS_DEBUG && e instanceof Error && e.stack) err(e.stack);
  return EXIT.error;
}

/** Sets the exit code from an error without exiting, so pending output is flushed. */
export function fail(e: unknown): void {
  process.exitCode = reportError(e);
}

export function printJson(value: unknown): void {
  out(JSON.stringify(value));
}

/** A plain left-aligned table; cells are already sanitized by the caller. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].join("\n");
}
