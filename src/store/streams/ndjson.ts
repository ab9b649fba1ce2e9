import type { TimelineEntry } from "./entry.js";

/**
 * A timeline as NDJSON: one JSON object per line with the entry's fields and the original
 * payload, for a pane's `e` (save).
 */

function iso(ms: number | undefined): string | undefined {
  if (ms === undefined || !Number.isFinite(ms)) return undefined;
  return new Date(ms).toISOString();
}

/** One entry as an NDJSON record (keys with undefined values are dropped by JSON). */
function entryRecord(e: TimelineEntry): Record<string, unknown> {
  return {
    session_id: e.sessionId,
    seq: e.seq,
    id: e.id,
    kind: e.kind,
    at: iso(e.at),
    ts: iso(e.ts),
    text: e.text,
    stream: e.stream,
    path: e.path,
    action: e.action,
    state: e.state,
    previous_state: e.previousState,
    prompt_type: e.promptType,
    event: e.event,
    data: e.raw,
  };
}

export function toNdjson(entries: readonly TimelineEntry[]): string {
  let out = "";
  for (const e of entries) out += `${JSON.stringify(entryRecord(e))}\n`;
  return out;
}
