import { payloadTime } from "../../protocol/events.js";
import { parseTime } from "../../protocol/values.js";

/**
 * Recorded events as NDJSON: what the journal writes, and what `replay` reads. One reader
 * takes the three shapes a user may have on disk:
 *
 * - a journal line and a `watch --json` line:
 *   `{session_id, event, id, data, received_at?}`, or for data that was not JSON
 *   `{session_id, event, id, data: null, malformed: true, raw, error?}`;
 * - a line of the pane's `e` export: `{seq, id, kind, at, ts, text, …, data}`.
 *
 * Lines that are JSON but no event (a `watch --json` status line, the client's own notice and
 * marker lines of an export) are "other"; anything else is "bad", and the caller skips it.
 */

export interface RecordedEvent {
  /** The session it belongs to, when the line says. */
  sessionId: string | null;
  /** The SSE event name. */
  event: string;
  id: string | null;
  /** The data text, as the stream store takes it. */
  data: string;
  /** When the client received it (ms since epoch), when the line says. */
  at: number | null;
}

export type ParsedLine =
  | { kind: "event"; record: RecordedEvent }
  | { kind: "other" }
  | { kind: "bad"; reason: string };

/** Cleans one untrusted string for storage: the sanitizer, then the key's redaction. */
export type TextCleaner = (text: string, keepSgr: boolean) => string;

/** Longest journal line; a bigger event is kept as a cut `malformed` line. */
export const MAX_JOURNAL_LINE_CHARS = 64 * 1024;
/** What a cut or non-JSON event keeps of its data. */
const MAX_RAW_CHARS = 4096;
/** Nesting kept in a stored payload; deeper values become a placeholder. */
const MAX_DEPTH = 32;

const EXPORT_EVENTS: Record<string, string> = {
  prompt: "prompt_progress",
  output: "process_output",
  file: "file_changed",
  state: "state_changed",
};

/** Kinds of export lines the client wrote itself: not events of the session. */
const CLIENT_KINDS = new Set(["notice", "divider", "unwatched", "heartbeat"]);

function timeOf(v: unknown): number | null {
  return parseTime(v) ?? null;
}

function idOf(v: unknown): string | null {
  if (typeof v === "string" && v !== "") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return null;
}

function stringOrNull(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

function dataText(v: unknown): string {
  return JSON.stringify(v === undefined ? null : v);
}

/** One line of any of the three shapes. */
export function parseRecordLine(line: string): ParsedLine {
  const text = line.trim();
  if (text === "") return { kind: "other" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "bad", reason: "not JSON" };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { kind: "bad", reason: "not a JSON object" };
  }
  const o = value as Record<string, unknown>;
  if (typeof o.kind === "string" && "seq" in o) return exportLine(o);
  if (typeof o.event === "string" && o.event !== "" && ("data" in o || o.malformed === true)) {
    const data = o.malformed === true ? (typeof o.raw === "string" ? o.raw : "") : dataText(o.data);
    return {
      kind: "event",
      record: {
        sessionId: stringOrNull(o.session_id),
        event: o.event,
        id: idOf(o.id),
        data,
        at: timeOf(o.received_at),
      },
    };
  }
  if (typeof o.status === "string" || o.gap === true) return { kind: "other" };
  return { kind: "bad", reason: "not an event record" };
}

function exportLine(o: Record<string, unknown>): ParsedLine {
  const kind = o.kind as string;
  if (CLIENT_KINDS.has(kind)) return { kind: "other" };
  const at = timeOf(o.at);
  const id = idOf(o.id);
  const sessionId = stringOrNull(o.session_id);
  let event = EXPORT_EVENTS[kind];
  let data: string;
  if (event === "prompt_progress") {
    const d = o.data as Record<string, unknown> | undefined;
    // A text line of the export is a whole line: its newline closes it again on replay, or
    // the next line would join it.
    if (d && d.type === "text" && typeof d.content === "string" && !d.content.endsWith("\n")) {
      data = dataText({ ...d, content: `${d.content}\n` });
    } else data = dataText(d);
  } else if (event !== undefined) {
    data = dataText(o.data);
  } else if (kind === "unknown" || kind === "malformed") {
    event = stringOrNull(o.event) ?? "message";
    data = kind === "malformed" && typeof o.data === "string" ? o.data : dataText(o.data);
  } else {
    return { kind: "bad", reason: `unknown entry kind ${JSON.stringify(kind.slice(0, 40))}` };
  }
  return { kind: "event", record: { sessionId, event, id, data, at } };
}

/** A record's time: when received, else the server's own timestamp in the payload. */
export function recordTime(r: RecordedEvent): number | null {
  if (r.at !== null) return r.at;
  try {
    return payloadTime(JSON.parse(r.data)) ?? null;
  } catch {
    return null;
  }
}

function cleanValue(v: unknown, clean: TextCleaner, sgr: boolean, depth: number): unknown {
  if (typeof v === "string") return clean(v, sgr);
  if (v === null || typeof v !== "object") return v;
  if (depth >= MAX_DEPTH) return "[…]";
  if (Array.isArray(v)) return v.map((x) => cleanValue(x, clean, sgr, depth + 1));
  // No prototype: a "__proto__" key from the server stays a plain key.
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, x] of Object.entries(v))
    out[clean(k, false)] = cleanValue(x, clean, sgr, depth + 1);
  return out;
}

/** What a journal keeps of an event's data: JSON with every string cleaned, or raw text. */
export type StoredData = { json: true; value: unknown } | { json: false; raw: string };

/** The data of an event cleaned as the journal stores it (process output keeps colours). */
export function storedData(event: string, data: string, clean: TextCleaner): StoredData {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return { json: false, raw: clean(data.slice(0, MAX_RAW_CHARS), false) };
  }
  return { json: true, value: cleanValue(parsed, clean, event === "process_output", 0) };
}

/**
 * An event's name and cleaned data as one string, the way a journal holds them: with its id,
 * what identifies an event read again (protocol/sameEvent.ts). The data holds the server's
 * own timestamp when it sends one.
 */
export function contentKey(event: string, stored: StoredData): string {
  return stored.json ? `${event}\n${JSON.stringify(stored.value)}` : `${event}\n!${stored.raw}`;
}

/** contentKey of an event read back from a journal (its data is already clean). */
export function recordContentKey(r: Pick<RecordedEvent, "event" | "data">): string {
  try {
    return `${r.event}\n${JSON.stringify(JSON.parse(r.data))}`;
  } catch {
    return `${r.event}\n!${r.data}`;
  }
}

/** One journal line (no newline): the `watch --json` shape plus `received_at`. */
export function journalLine(
  sessionId: string,
  event: string,
  id: string | null,
  stored: StoredData,
  at: number,
): string {
  const receivedAt = new Date(at).toISOString();
  const line = stored.json
    ? JSON.stringify({
        session_id: sessionId,
        event,
        id,
        data: stored.value,
        received_at: receivedAt,
      })
    : JSON.stringify({
        session_id: sessionId,
        event,
        id,
        data: null,
        malformed: true,
        raw: stored.raw,
        received_at: receivedAt,
      });
  if (line.length <= MAX_JOURNAL_LINE_CHARS) return line;
  const whole = stored.json ? JSON.stringify(stored.value) : stored.raw;
  return JSON.stringify({
    session_id: sessionId,
    event,
    id,
    data: null,
    malformed: true,
    error: `${whole.length} characters, too large for the journal: cut`,
    raw: whole.slice(0, MAX_RAW_CHARS),
    received_at: receivedAt,
  });
}
