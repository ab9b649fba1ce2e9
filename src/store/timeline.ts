import { processOutputText, type SessionEvent } from "../protocol/events.js";
import type { RingBuffer } from "../text/ringBuffer.js";
import { sanitize } from "../text/sanitize.js";

/**
 * Session events turned into timeline entries: the store boundary where untrusted text is
 * sanitized, once. Everything downstream (panes, search, export) reads `text` as is.
 */

export type TimelineKind =
  | "prompt"
  | "output"
  | "file"
  | "state"
  | "heartbeat"
  | "unknown"
  | "malformed"
  | "notice";

export interface TimelineEntry {
  /** Per-session sequence number, increasing; survives eviction so panes can key rows. */
  seq: number;
  /** SSE id of the (latest) event behind the entry. */
  id: string | null;
  kind: TimelineKind;
  /** Receive time, ms since epoch. */
  at: number;
  /** The server's own timestamp (ts or timestamp field), when the payload had one. */
  ts?: number;
  /** Sanitized text; process output keeps SGR colours, nothing else keeps any escape. */
  text: string;
  /** process_output: which stream (stdout/stderr), when sent. */
  stream?: string;
  /** file_changed */
  path?: string;
  action?: string;
  /** state_changed */
  state?: string;
  previousState?: string;
  /** prompt_progress: the payload's type when it is not "text". */
  promptType?: string;
  /** unknown / malformed: the SSE event name. */
  event?: string;
  /**
   * The original payload, for NDJSON export. Joined prompt text keeps a synthesized
   * {type: "text", content} of the joined (sanitized) text instead of every fragment.
   */
  raw?: unknown;
}

/** A joined prompt entry is closed at a newline or at this many characters. */
export const PROMPT_ENTRY_MAX_CHARS = 4096;
/** Longest text one entry keeps; the rest is cut with a visible marker. */
export const DEFAULT_MAX_ENTRY_CHARS = 16_384;
const UNKNOWN_PREVIEW_CHARS = 2048;

/** Per-session writing position, owned by the store next to the buffer. */
export interface TimelineWriter {
  nextSeq: number;
  /** seq of the prompt entry that further text fragments join, while it is the newest entry. */
  openPromptSeq: number | null;
  maxEntryChars: number;
}

export function newWriter(maxEntryChars = DEFAULT_MAX_ENTRY_CHARS): TimelineWriter {
  return { nextSeq: 1, openPromptSeq: null, maxEntryChars };
}

/** Cut before sanitizing so a sequence split by the cut is removed, not left half-open. */
function cutAndSanitize(text: string, max: number, keepSgr: boolean): string {
  if (text.length <= max) return sanitize(text, { keepSgr });
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  const more = text.length - end;
  return `${sanitize(text.slice(0, end), { keepSgr })}${keepSgr ? "\x1b[0m" : ""}… [cut: ${more} more characters]`;
}

function clean(v: unknown, max = 1024): string | undefined {
  return typeof v === "string" ? cutAndSanitize(v, max, false) : undefined;
}

/** ts / timestamp of a payload as ms since epoch (numbers under 1e12 are taken as seconds). */
export function serverTime(data: unknown): number | undefined {
  if (data === null || typeof data !== "object") return undefined;
  const o = data as Record<string, unknown>;
  const v = o.ts ?? o.timestamp;
  if (typeof v === "number" && Number.isFinite(v)) return v < 1e12 ? v * 1000 : v;
  if (typeof v === "string") {
    const n = Date.parse(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

function base(
  w: TimelineWriter,
  kind: TimelineKind,
  id: string | null,
  at: number,
  text: string,
  raw: unknown,
): TimelineEntry {
  const entry: TimelineEntry = { seq: w.nextSeq++, id, kind, at, text };
  const ts = serverTime(raw);
  if (ts !== undefined) entry.ts = ts;
  if (raw !== undefined) entry.raw = raw;
  return entry;
}

function push(buf: RingBuffer<TimelineEntry>, w: TimelineWriter, entry: TimelineEntry): void {
  buf.push(entry);
  w.openPromptSeq = null;
}

function openPrompt(buf: RingBuffer<TimelineEntry>, w: TimelineWriter): TimelineEntry | null {
  if (w.openPromptSeq === null) return null;
  const last = buf.last();
  return last !== undefined && last.seq === w.openPromptSeq ? last : null;
}

/**
 * Text fragments flow into one entry per line: a fragment joins the newest entry while that
 * is an open prompt line, a newline closes the line, and a line longer than
 * PROMPT_ENTRY_MAX_CHARS continues in a new entry. Any other entry in between closes it.
 */
function appendPromptText(
  buf: RingBuffer<TimelineEntry>,
  w: TimelineWriter,
  text: string,
  id: string | null,
  at: number,
  data: unknown,
): void {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (i > 0) {
      if (openPrompt(buf, w)) {
        w.openPromptSeq = null;
      } else if (buf.last()?.kind === "prompt") {
        // A newline right after a finished line is a blank line in the prose: keep it.
        push(buf, w, base(w, "prompt", id, at, "", { type: "text", content: "" }));
      }
    }
    let rest = lines[i] ?? "";
    while (rest.length > 0) {
      const open = openPrompt(buf, w);
      const used = open?.text.length ?? 0;
      let room = PROMPT_ENTRY_MAX_CHARS - used;
      if (room <= 0) {
        w.openPromptSeq = null;
        continue;
      }
      if (room < rest.length) {
        const code = rest.charCodeAt(room - 1);
        if (code >= 0xd800 && code <= 0xdbff) room--;
        if (room <= 0) {
          w.openPromptSeq = null;
          continue;
        }
      }
      const piece = rest.slice(0, room);
      rest = rest.slice(piece.length);
      if (open) {
        const joined = open.text + piece;
        buf.setLast({
          ...open,
          id: id ?? open.id,
          text: joined,
          raw: { type: "text", content: joined },
        });
      } else {
        const entry = base(w, "prompt", id, at, piece, { type: "text", content: piece });
        const ts = serverTime(data);
        if (ts !== undefined) entry.ts = ts;
        push(buf, w, entry);
        w.openPromptSeq = entry.seq;
      }
    }
  }
}

/** Append one event (not a heartbeat: those never enter the timeline). */
export function appendEvent(
  buf: RingBuffer<TimelineEntry>,
  w: TimelineWriter,
  ev: SessionEvent,
  at: number,
): void {
  const max = w.maxEntryChars;
  switch (ev.kind) {
    case "heartbeat":
      return;
    case "prompt_progress": {
      const type = ev.data.type;
      if (type === "text") {
        appendPromptText(buf, w, cutAndSanitize(ev.data.content, max, false), ev.id, at, ev.data);
        return;
      }
      const entry = base(
        w,
        "prompt",
        ev.id,
        at,
        cutAndSanitize(ev.data.content, max, false),
        ev.data,
      );
      entry.promptType = clean(type, 64) ?? "";
      push(buf, w, entry);
      return;
    }
    case "process_output": {
      // One trailing newline ends the line; it is not an empty line of its own.
      let text = cutAndSanitize(processOutputText(ev.data), max, true);
      if (text.endsWith("\n")) text = text.slice(0, -1);
      const entry = base(w, "output", ev.id, at, text, ev.data);
      const stream = clean(ev.data.stream, 64);
      if (stream !== undefined) entry.stream = stream;
      push(buf, w, entry);
      return;
    }
    case "file_changed": {
      const path = clean(ev.data.path, max) ?? "";
      const action = clean(ev.data.action, 64) ?? "";
      const entry = base(w, "file", ev.id, at, `${action} ${path}`, ev.data);
      entry.path = path;
      entry.action = action;
      push(buf, w, entry);
      return;
    }
    case "state_changed": {
      const state = clean(ev.data.state, 64) ?? "";
      const prev = clean(ev.data.previous_state, 64);
      const entry = base(w, "state", ev.id, at, `${prev ?? "?"} → ${state}`, ev.data);
      entry.state = state;
      if (prev !== undefined) entry.previousState = prev;
      push(buf, w, entry);
      return;
    }
    case "unknown": {
      let json: string;
      try {
        json = JSON.stringify(ev.data) ?? String(ev.data);
      } catch {
        json = String(ev.data);
      }
      const entry = base(
        w,
        "unknown",
        ev.id,
        at,
        cutAndSanitize(json, UNKNOWN_PREVIEW_CHARS, false),
        ev.data,
      );
      entry.event = clean(ev.event, 128) ?? "";
      push(buf, w, entry);
      return;
    }
    case "malformed": {
      const text = `${ev.error}: ${ev.raw}`;
      const entry = base(w, "malformed", ev.id, at, cutAndSanitize(text, max, false), ev.raw);
      entry.event = clean(ev.event, 128) ?? "";
      push(buf, w, entry);
      return;
    }
  }
}

/** A line the client itself writes (connection lost, reconnected, stopped). */
export function appendNotice(
  buf: RingBuffer<TimelineEntry>,
  w: TimelineWriter,
  text: string,
  at: number,
): void {
  push(buf, w, base(w, "notice", null, at, sanitize(text), undefined));
}
