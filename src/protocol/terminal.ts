/**
 * The session terminal, in one place for client and server: `POST …/sessions/{id}/ws-token`
 * `{capability}` → `{token, expires_at}` (a short-lived token for one session and one
 * capability), then a WebSocket at `…/sessions/{id}/terminal?token=…`.
 *
 * The real service documents input and output as text frames (output carries ANSI escapes)
 * and JSON control messages from the client (`resize`); its own CLI also sends and receives
 * binary frames and the control messages `connected`, `ping`/`pong` and `sandbox_expired`.
 * Both forms are accepted both ways: a text frame that is a JSON object with a known `type`
 * is a control message, anything else is terminal data.
 */
import { pathSegment } from "./ids.js";
import * as z from "./schema.js";
import { recordInText } from "./values.js";

/** The capabilities a WebSocket token is asked for (only the terminal is used here). */
export type WsCapability = "terminal" | "prompt" | "collaborate";

/** How long a token lives, as documented (the reference service issues them for this long). */
export const WS_TOKEN_TTL_MS = 5 * 60_000;

/** The server closes a terminal idle this long without input, as documented. */
export const TERMINAL_IDLE_MS = 10 * 60_000;

export const TERMINAL_PATHS = {
  wsToken: (id: string) => `/api/sessions/${pathSegment(id)}/ws-token`,
  terminal: (id: string) => `/api/sessions/${pathSegment(id)}/terminal`,
} as const;

/** WebSocket close codes the documentation gives the terminal. */
export const TERMINAL_CLOSE = {
  /** The token is invalid or expired. */
  badToken: 4001,
  /** Insufficient scope for this channel. */
  forbidden: 4003,
  /** Session not found or not accessible. */
  notFound: 4004,
  /** Another connection took the terminal (or the session is in an invalid state). */
  taken: 4009,
  /** Unexpected server error. */
  serverError: 1011,
  /** A normal close (the shell exited, or the idle timeout: the reason says which). */
  normal: 1000,
} as const;

/** The reason the reference service gives when it closes an idle terminal (code 1000). */
export const IDLE_CLOSE_REASON = "idle timeout: no input";

export const WsTokenAnswerSchema = z.looseObject({
  token: z.string().check(z.minLength(1)),
  expires_at: z.optional(z.nullable(z.string())),
});
export type WsTokenAnswer = z.infer<typeof WsTokenAnswerSchema>;

/** A control message; `type` is open (unknown ones are ignored, never drawn). */
export type TerminalControl =
  | { type: "resize"; cols: number; rows: number }
  | { type: "connected"; [k: string]: unknown }
  | { type: "ping"; [k: string]: unknown }
  | { type: "pong"; [k: string]: unknown }
  | { type: "sandbox_expired"; [k: string]: unknown };

const CONTROL_TYPES = new Set(["resize", "connected", "ping", "pong", "sandbox_expired"]);

/** The largest terminal either side accepts in a resize (a bound on what a peer may ask). */
export const MAX_TERMINAL_COLS = 1000;
export const MAX_TERMINAL_ROWS = 500;

/**
 * A text frame read as a control message, or null when it is terminal data. Only a JSON
 * object with a known `type` counts: a shell printing `{"a":1}` stays output. A `resize`
 * without whole positive sizes within the bounds is no control message either.
 */
export function parseControl(text: string): TerminalControl | null {
  const t = text.trimStart();
  if (t.length > 4096) return null;
  const o = recordInText(t);
  if (o === null) return null;
  if (typeof o.type !== "string" || !CONTROL_TYPES.has(o.type)) return null;
  if (o.type === "resize") {
    const size = terminalSize(o.cols, o.rows);
    return size ? { type: "resize", ...size } : null;
  }
  return o as TerminalControl;
}

/** Cols and rows when both are whole numbers within bounds, else null. */
export function terminalSize(cols: unknown, rows: unknown): { cols: number; rows: number } | null {
  const ok = (n: unknown, max: number): n is number =>
    typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= max;
  return ok(cols, MAX_TERMINAL_COLS) && ok(rows, MAX_TERMINAL_ROWS) ? { cols, rows } : null;
}

export function controlText(msg: TerminalControl): string {
  return JSON.stringify(msg);
}
