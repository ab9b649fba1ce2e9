/**
 * A session's past, as the real service documents it: `GET …/sessions/{id}/history`
 * (scope sessions:read) answers `{events, count}`, the entries of the agent's log. Each entry
 * has a `type` (`user`, `assistant`, `assistant_text`, `tool_use`, `tool_result`,
 * `completion`, others as they come) and its text in `message` or `content`, with a
 * timestamp when the service keeps one. The event stream itself has no history.
 *
 * The client reads the answer leniently (unknown fields kept, an entry of the wrong shape
 * becomes a visible malformed line) and turns each entry into the stream item a live event of
 * the same kind would be, so one path (the streams store) decodes, sanitizes, redacts and
 * draws both.
 */

import { parseTime, recordValue } from "./values.js";

/** Text of the SSE comment (`: history-end`) a server may send after events it replays on open. */
export const HISTORY_END_COMMENT = "history-end";

/** The answer of the history endpoint: its entries as they came, and the count it gave. */
export interface SessionHistory {
  /** Entries of the agent's log, oldest first, unread (see historyItem). */
  events: readonly unknown[];
  /** The service's `count`, when it sent a number; else the number of entries. */
  count: number;
}

/**
 * Reads the history answer: an object with an `events` array (a bare array is taken as the
 * entries). Anything else throws. Entries are not looked at here: reading waits until the
 * caller knows how many it will keep.
 */
export function parseSessionHistory(json: unknown): SessionHistory {
  const events = Array.isArray(json)
    ? json
    : json !== null && typeof json === "object"
      ? (json as Record<string, unknown>).events
      : undefined;
  if (!Array.isArray(events)) throw new Error("events: expected an array");
  const count = Array.isArray(json) ? undefined : (json as Record<string, unknown>).count;
  return {
    events,
    count: typeof count === "number" && Number.isFinite(count) ? count : events.length,
  };
}

/** One history entry as a stream item (event name and data text), or a reason it is malformed. */
export type HistoryItem =
  | { ok: true; event: string; data: string; at: number | undefined }
  | { ok: false; raw: string; error: string };

/** Deepest nesting looked into for an entry's text. */
const TEXT_DEPTH = 4;
/** Most characters of one entry's text taken before it is cut (the store cuts again). */
const TEXT_MAX = 64 * 1024;

/**
 * The text of an entry's `message` or `content`: a string as is; a list of parts (the agent's
 * log keeps `[{type:"text", text}, …]`) joined by newlines; an object by its text field (or its
 * tool's name and input); anything else as compact JSON.
 */
export function historyText(v: unknown, depth = 0): string | null {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return null;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (depth >= TEXT_DEPTH) return compact(v);
  if (Array.isArray(v)) {
    const parts: string[] = [];
    let length = 0;
    for (const p of v) {
      const t = historyText(p, depth + 1);
      if (t === null || t === "") continue;
      parts.push(t);
      length += t.length;
      if (length > TEXT_MAX) break;
    }
    return parts.join("\n");
  }
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    for (const k of ["text", "content", "message", "output", "data"]) {
      const t = historyText(o[k], depth + 1);
      if (t !== null) return t;
    }
    if (typeof o.name === "string") {
      return o.input === undefined ? o.name : `${o.name} ${compact(o.input)}`;
    }
    return compact(v);
  }
  return null;
}

function compact(v: unknown): string {
  try {
    const s = JSON.stringify(v) ?? String(v);
    return s.length > TEXT_MAX ? `${s.slice(0, TEXT_MAX)}…` : s;
  } catch {
    return "[nested too deeply to show]";
  }
}

function entryTime(o: Record<string, unknown>): number | undefined {
  return parseTime(o.timestamp ?? o.created_at ?? o.ts ?? o.time);
}

/** How each documented entry type is drawn: the prompt_progress type it becomes. */
const PROMPT_TYPES: Readonly<Record<string, string>> = {
  user: "user",
  assistant: "text",
  assistant_text: "text",
  text: "text",
  tool_use: "tool_use",
  completion: "completion",
  error: "error",
};

/**
 * One entry of the agent's log as the live event it matches: the user's prompt and the
 * agent's words, tool calls and completion as prompt progress (the user's marked `user`), a
 * tool's result as process output; an entry
 * carrying a state as a state change, a path and action as a file change; any other type with
 * text as prompt progress of that type, and one without text as an event of its own name.
 */
export function historyItem(entry: unknown): HistoryItem {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
    return { ok: false, raw: compact(entry), error: "history entry is not an object" };
  }
  const o = entry as Record<string, unknown>;
  const type = typeof o.type === "string" ? o.type : typeof o.role === "string" ? o.role : null;
  if (type === null) {
    return { ok: false, raw: compact(entry), error: "history entry has no type" };
  }
  const at = entryTime(o);
  const timestamp = typeof o.timestamp === "string" ? { timestamp: o.timestamp } : {};
  const json = (event: string, data: Record<string, unknown>): HistoryItem => ({
    ok: true,
    event,
    data: JSON.stringify({ ...data, ...timestamp }),
    at,
  });
  if (typeof o.state === "string") {
    return json("state_changed", {
      state: o.state,
      previous_state: typeof o.previous_state === "string" ? o.previous_state : null,
    });
  }
  if (typeof o.path === "string" && typeof o.action === "string") {
    return json("file_changed", { path: o.path, action: o.action });
  }
  const body = o.message ?? o.content ?? o.text;
  const fields = recordValue(body);
  if (type === "tool_result" && fields) {
    // A tool's result kept as the payload it was streamed in ({content}, {stream, data}, …):
    // passed on whole, so the pane reads its text as it reads the live event's.
    return json("process_output", {
      ...fields,
      ...(typeof o.stream === "string" ? { stream: o.stream } : {}),
    });
  }
  const text = historyText(body, 0);
  if (type === "tool_result" && text !== null) {
    // What a tool printed: drawn as process output is (its colours kept, the rest sanitized).
    return json("process_output", {
      text,
      ...(typeof o.stream === "string" ? { stream: o.stream } : {}),
    });
  }
  const promptType = PROMPT_TYPES[type] ?? type;
  if (text === null) {
    if (PROMPT_TYPES[type] !== undefined)
      return json("prompt_progress", { type: promptType, content: "" });
    return { ok: true, event: `history:${type}`, data: compact(entry), at };
  }
  // The agent's words end their line: the next entry starts a new one.
  const content = promptType === "text" && !text.endsWith("\n") ? `${text}\n` : text;
  return json("prompt_progress", { type: promptType, content });
}
