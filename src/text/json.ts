/**
 * JSON text of untrusted data, safe to print in a terminal and never a crash.
 *
 * JSON.stringify escapes C0 controls but writes C1 controls (U+0080–U+009F, which some
 * terminals obey as escape introducers), DEL, the line separators U+2028/U+2029 and the bidi
 * controls as they are; here they become \uXXXX escapes, so the JSON means exactly the same
 * and the terminal sees only printable text.
 *
 * JSON.stringify recurses: data nested a hundred thousand levels deep (JSON.parse takes it)
 * overflows the stack. Such values are written with everything below MAX_JSON_DEPTH replaced
 * by a marker string, instead of failing the command.
 */

export const MAX_JSON_DEPTH = 256;
export const TOO_DEEP = "[nested too deeply to show]";

const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

function escapeUnit(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/** A copy of `value` with everything deeper than `depth` levels replaced by TOO_DEEP. */
export function limitDepth(value: unknown, depth = MAX_JSON_DEPTH): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth <= 0) return TOO_DEEP;
  const v = value as { toJSON?: unknown };
  if (typeof v.toJSON === "function") return value;
  if (Array.isArray(value)) return value.map((x) => limitDepth(x, depth - 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(value as Record<string, unknown>)) {
    out[k] = limitDepth(x, depth - 1);
  }
  return out;
}

/** JSON.stringify, but never a stack overflow, and terminal-safe (see the module comment). */
export function toJsonText(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    text = JSON.stringify(limitDepth(value));
  }
  if (text === undefined) return "null";
  return text.replace(UNSAFE_IN_JSON, escapeUnit);
}
