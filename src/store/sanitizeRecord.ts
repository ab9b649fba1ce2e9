import { isClean, sanitize } from "../text/sanitize.js";

const MAX_DEPTH = 8;

/**
 * A record from the service with every string in it sanitized (keys too), so fields such as
 * a session title or key name are as safe to print as event text. Objects without anything
 * to clean come back as the same object.
 */
export function sanitizeRecord<T>(value: T, depth = 0): T {
  if (typeof value === "string") return (isClean(value) ? value : sanitize(value)) as T;
  if (value === null || typeof value !== "object" || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const c = sanitizeRecord(v, depth + 1);
      if (c !== v) changed = true;
      return c;
    });
    return (changed ? out : value) as T;
  }
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const ck = isClean(k) ? k : sanitize(k);
    const cv = sanitizeRecord(v, depth + 1);
    if (ck !== k || cv !== v) changed = true;
    out[ck] = cv;
  }
  return (changed ? out : value) as T;
}
