import { mapShownText } from "../../text/payloadText.js";
import type { Redactor, StreamRedaction } from "../../text/redact.js";
import type { TimelineEntry } from "./entry.js";

/**
 * A timeline as NDJSON: one JSON object per line with the entry's fields and the original
 * payload, for a pane's `e` (save).
 *
 * The key is redacted from everything written, over the sequence: each session's entries
 * (a merged export holds several) pass one stream redaction over their texts and one over
 * their payloads' shown texts, in order, so a key sent a few characters an event is not
 * written in pieces of half its length or more; every other string of a payload is redacted
 * on its own.
 */

function iso(ms: number | undefined): string | undefined {
  if (ms === undefined || !Number.isFinite(ms)) return undefined;
  return new Date(ms).toISOString();
}

/** One entry as an NDJSON record (keys with undefined values are dropped by JSON). */
function entryRecord(e: TimelineEntry, text: string, data: unknown): Record<string, unknown> {
  return {
    session_id: e.sessionId,
    seq: e.seq,
    id: e.id,
    kind: e.kind,
    at: iso(e.at),
    ts: iso(e.ts),
    text,
    stream: e.stream,
    path: e.path,
    action: e.action,
    state: e.state,
    previous_state: e.previousState,
    prompt_type: e.promptType,
    event: e.event,
    data,
  };
}

/** One session's two stream redactions (see the module comment). */
interface SessionRedaction {
  text: StreamRedaction;
  data: StreamRedaction;
}

export function toNdjson(
  entries: readonly TimelineEntry[],
  secrets?: Pick<Redactor, "redact" | "stream">,
): string {
  const bySession = new Map<string, SessionRedaction>();
  const redaction = (e: TimelineEntry): SessionRedaction | null => {
    if (!secrets) return null;
    const key = e.sessionId ?? "";
    let r = bySession.get(key);
    if (!r) {
      r = { text: secrets.stream(), data: secrets.stream() };
      bySession.set(key, r);
    }
    return r;
  };
  const everyString = (_key: string, v: unknown) =>
    typeof v === "string" && secrets ? secrets.redact(v) : v;
  let out = "";
  for (const e of entries) {
    const r = redaction(e);
    const text = r ? r.text.push(e.text) : e.text;
    const data = r ? mapShownText(e.raw, (t) => r.data.push(t)) : e.raw;
    out += `${JSON.stringify(entryRecord(e, text, data), everyString)}\n`;
  }
  return out;
}
