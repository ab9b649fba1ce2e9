import { limitDepth } from "./json.js";
import { sanitize } from "./sanitize.js";

/**
 * The one reading of a payload whose shape the interface leaves open (process output above
 * all): panes, `watch`, the fleet and exports all show such a payload by what this returns.
 *
 * - its text is the first string field among PAYLOAD_TEXT_FIELDS, as sent (the caller
 *   sanitizes it, keeping SGR colours for process output);
 * - `stream` or `fd` says which stream: fd 2, "2", "stderr" or "err" is stderr; fd 1, "1",
 *   "stdout" or "out" is stdout; another stream name is kept as sent (the caller cleans it);
 * - a payload with none of those fields is shown compact: one line of JSON whose keys and
 *   string values are sanitized first, so an escape is removed, never spelled `\u001b`.
 */

/** Where a payload's text is looked for, in this order. */
export const PAYLOAD_TEXT_FIELDS = [
  "text",
  "content",
  "data",
  "output",
  "line",
  "message",
] as const;

export interface PayloadText {
  /** The text field as sent, or the compact JSON (already clean) when there is none. */
  text: string;
  /** True when `text` is the compact JSON of the whole payload. */
  compact: boolean;
  /** "stdout", "stderr", another stream name as sent, or undefined when none is given. */
  stream: string | undefined;
}

function streamOf(o: Record<string, unknown>): string | undefined {
  for (const v of [o.stream, o.fd]) {
    if (typeof v === "number") {
      if (v === 1) return "stdout";
      if (v === 2) return "stderr";
      continue;
    }
    if (typeof v !== "string" || v === "") continue;
    const name = v.trim().toLowerCase();
    if (name === "stderr" || name === "err" || name === "2") return "stderr";
    if (name === "stdout" || name === "out" || name === "1") return "stdout";
    if (v === o.stream) return v;
  }
  return undefined;
}

/** Compact one-line JSON of untrusted data: keys and strings sanitized, no escapes spelled. */
export function compactJson(data: unknown): string {
  const clean = (_key: string, v: unknown): unknown => {
    if (typeof v === "string") return sanitize(v);
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      let dirty = false;
      for (const k of Object.keys(v)) {
        if (sanitize(k) !== k) {
          dirty = true;
          break;
        }
      }
      if (!dirty) return v;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[sanitize(k)] = x;
      return out;
    }
    return v;
  };
  let text: string | undefined;
  try {
    text = JSON.stringify(data, clean);
  } catch (e) {
    if (!(e instanceof RangeError)) return "[payload that cannot be shown]";
    text = JSON.stringify(limitDepth(data), clean);
  }
  return text ?? "null";
}

/** How a payload of open shape is shown (see the module comment). */
export function payloadText(data: unknown): PayloadText {
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return {
      text: typeof data === "string" ? data : compactJson(data),
      compact: typeof data !== "string",
      stream: undefined,
    };
  }
  const o = data as Record<string, unknown>;
  const stream = streamOf(o);
  for (const field of PAYLOAD_TEXT_FIELDS) {
    const v = o[field];
    if (typeof v === "string") return { text: v, compact: false, stream };
  }
  return { text: compactJson(o), compact: true, stream };
}

/**
 * The payload with the text payloadText shows of it (its first text field, or the payload
 * itself when it is a string) passed through `f`, everything else as it was: for redacting
 * one session's payloads over their shown texts in order (the journal, a pane's export), the
 * way the pane shows them one after another.
 */
export function mapShownText(data: unknown, f: (text: string) => string): unknown {
  if (typeof data === "string") return f(data);
  if (data === null || typeof data !== "object" || Array.isArray(data)) return data;
  const o = data as Record<string, unknown>;
  for (const field of PAYLOAD_TEXT_FIELDS) {
    const v = o[field];
    if (typeof v !== "string") continue;
    const next = f(v);
    return next === v ? data : { ...o, [field]: next };
  }
  return data;
}
