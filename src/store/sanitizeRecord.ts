import { noRedaction, type RedactFn } from "../text/redact.js";
import { isClean, sanitizeLine } from "../text/sanitize.js";

const MAX_DEPTH = 8;
/** What stands for a value nested deeper than the UI ever shows. */
export const NESTED_TOO_DEEP = "[nested too deeply to show]";

/**
 * A record from the service with every string in it made safe to draw (keys too): sanitized,
 * folded onto one line (a record's fields are shown in rows and cells, where a newline would
 * draw a row of its own), and with the user's key redacted. Values nested deeper than
 * MAX_DEPTH are replaced by a marker, so nothing unsanitized hides down there. Objects
 * without anything to change come back as the same object.
 */
export function sanitizeRecord<T>(value: T, redact: RedactFn = noRedaction): T {
  return clean(value, redact, 0);
}

function cleanString(s: string, redact: RedactFn): string {
  const safe = isClean(s) && !s.includes("\n") && !s.includes("\t") ? s : sanitizeLine(s);
  return redact(safe);
}

function clean<T>(value: T, redact: RedactFn, depth: number): T {
  if (typeof value === "string") return cleanString(value, redact) as T;
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return NESTED_TOO_DEEP as T;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const c = clean(v, redact, depth + 1);
      if (c !== v) changed = true;
      return c;
    });
    return (changed ? out : value) as T;
  }
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const ck = cleanString(k, redact);
    const cv = clean(v, redact, depth + 1);
    if (ck !== k || cv !== v) changed = true;
    // A key named __proto__ (JSON.parse makes it an own field) stays a field: assigning it
    // would set the copy's prototype and let the server slip in inherited fields.
    Object.defineProperty(out, ck, {
      value: cv,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return (changed ? out : value) as T;
}
