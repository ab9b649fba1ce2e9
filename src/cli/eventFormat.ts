import type { SessionEvent } from "../protocol/events.js";
import { formatTime, gapNotice } from "../text/format.js";
import { compactJson, PAYLOAD_TEXT_FIELDS, payloadText } from "../text/payloadText.js";
import type { StreamRedaction } from "../text/redact.js";
import { sanitize, sanitizeLine } from "../text/sanitize.js";

/** Tags shown for each kind, shared by `watch` and anything else printing events as lines. */
export const KIND_TAGS: Record<SessionEvent["kind"], string> = {
  prompt_progress: "prompt",
  file_changed: "file",
  process_output: "output",
  state_changed: "state",
  heartbeat: "beat",
  unknown: "event",
  malformed: "bad",
};

/** HH:MM:SS (UTC) of a time, as every watch line starts. */
export function clock(at: number): string {
  return formatTime(at, { utc: true });
}

/** The gap marker of a watch line (UTC, like the lines' own times). */
export function gapText(from: number, to: number): string {
  return gapNotice(from, to, { utc: true });
}

/** The sanitized text of an event, without tag or time. */
export function eventText(ev: SessionEvent, keepSgr = false): string {
  switch (ev.kind) {
    case "prompt_progress": {
      // Text flows into lines (WatchPrinter); any other type is named, as a pane names it,
      // so an end-of-answer marker with no content reads "[done]", never an empty line.
      const content = sanitize(ev.data.content);
      if (ev.data.type === "text") return content;
      const type = `[${sanitizeLine(ev.data.type)}]`;
      return content.trim() === "" ? type : `${type} ${content}`;
    }
    case "file_changed":
      return `${sanitizeLine(ev.data.action)} ${sanitizeLine(ev.data.path)}`;
    case "process_output": {
      const shown = payloadText(ev.data);
      const text = sanitize(shown.text, { keepSgr });
      return shown.stream ? `[${sanitizeLine(shown.stream)}] ${text}` : text;
    }
    case "state_changed":
      return `${sanitizeLine(ev.data.previous_state ?? "?")} → ${sanitizeLine(ev.data.state)}`;
    case "heartbeat":
      return sanitizeLine(ev.data.timestamp);
    case "unknown":
      return `${sanitizeLine(ev.event)} ${compactJson(ev.data)}`;
    case "malformed":
      return `${sanitizeLine(ev.event)}: ${sanitize(ev.error)}: ${sanitize(ev.raw)}`;
  }
}

/**
 * The --json form of one event: session_id, event, id, data (+ error/raw for malformed), and
 * received_at when given (what `replay` plays the recording by).
 */
export function eventToJson(
  sessionId: string,
  ev: SessionEvent,
  receivedAt?: number,
): Record<string, unknown> {
  const at = receivedAt === undefined ? {} : { received_at: new Date(receivedAt).toISOString() };
  switch (ev.kind) {
    case "unknown":
      return { session_id: sessionId, event: ev.event, id: ev.id, data: ev.data, ...at };
    case "malformed":
      return {
        session_id: sessionId,
        event: ev.event,
        id: ev.id,
        data: null,
        malformed: true,
        error: ev.error,
        raw: ev.raw,
        ...at,
      };
    default:
      return { session_id: sessionId, event: ev.kind, id: ev.id, data: ev.data, ...at };
  }
}

/**
 * The event with its streamed text (a prompt's text, a process's output: what a service sends
 * a few characters at a time) passed through the session's stream redaction, for the --json
 * form; the line form redacts the text it prints (WatchPrinter).
 */
export function redactStreamed(ev: SessionEvent, redaction: StreamRedaction): SessionEvent {
  if (ev.kind === "prompt_progress") {
    const content = redaction.push(ev.data.content);
    return content === ev.data.content ? ev : { ...ev, data: { ...ev.data, content } };
  }
  if (ev.kind === "process_output" && typeof ev.data === "object" && ev.data !== null) {
    const o = ev.data as Record<string, unknown>;
    for (const field of PAYLOAD_TEXT_FIELDS) {
      const v = o[field];
      if (typeof v !== "string") continue;
      const text = redaction.push(v);
      return text === v ? ev : { ...ev, data: { ...o, [field]: text } as typeof ev.data };
    }
  }
  return ev;
}
