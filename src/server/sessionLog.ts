import { recordValue } from "../protocol/values.js";
import type { StoredEvent } from "./eventHistory.js";
import { type OutputPayload, outputField } from "./simulatedContent.js";

/** One entry of a session's log in the documented history shape. */
export type LogEntry = Record<string, unknown> & { type: string };

function parse(data: string): Record<string, unknown> | null {
  try {
    return recordValue(JSON.parse(data));
  } catch {
    return null;
  }
}

/**
 * The body of `GET …/sessions/{id}/history` from a session's kept events, in the real
 * service's documented shape `{events, count}`: the agent's words as `assistant_text` (the
 * stream's text fragments joined into one entry), the user's prompts as `user`, tools as
 * `tool_use`/`tool_result`, process output as `tool_result`, and file and state changes as
 * entries of their own type carrying their fields. Heartbeats are not part of a log.
 */
export function historyBody(stored: readonly StoredEvent[]): { events: LogEntry[]; count: number } {
  const events: LogEntry[] = [];
  let text: LogEntry | null = null;
  for (const e of stored) {
    if (e.event === "heartbeat") continue;
    const d = parse(e.data);
    // The service's log keeps when each entry happened: the event's own time, as ISO 8601.
    let when: { timestamp: string } | Record<string, never> = {};
    if (d !== null && typeof d.ts === "number" && Number.isFinite(d.ts)) {
      when = { timestamp: new Date(d.ts).toISOString() };
      delete d.ts;
    }
    if (e.event === "prompt_progress" && d !== null && typeof d.content === "string") {
      if (d.type === "text") {
        if (text !== null) text.content = `${String(text.content)}${d.content}`;
        else {
          text = { type: "assistant_text", content: d.content, ...when };
          events.push(text);
        }
        continue;
      }
      text = null;
      const type = typeof d.type === "string" ? d.type : "assistant";
      events.push({ type, content: d.content, ...when });
      continue;
    }
    text = null;
    if (d === null) events.push({ type: e.event, content: e.data });
    else if (e.event === "process_output") {
      // The text in whichever field this service sent it ({stream, text}, {content}, {data}):
      // the log keeps what was printed, never the payload's JSON.
      const field = d[outputField(d as OutputPayload)];
      const out = typeof field === "string" ? field : JSON.stringify(d);
      const stream = typeof d.stream === "string" ? { stream: d.stream } : {};
      events.push({ type: "tool_result", content: out, ...stream, ...when });
    } else if (e.event === "file_changed" || e.event === "state_changed") {
      events.push({ ...d, type: e.event, ...when });
    } else events.push({ type: e.event, content: d, ...when });
  }
  return { events, count: events.length };
}
