import { decodeEvent, payloadTime, type SessionEvent } from "../../protocol/events.js";
import { compactJson, payloadText } from "../../text/payloadText.js";
import { noRedaction, type RedactFn } from "../../text/redact.js";
import { foldLines, isClean, sanitize } from "../../text/sanitize.js";
import type { MarkerKind, TimelineEntry, TimelineKind } from "./entry.js";
import { LAZY_KINDS, type LazyKind, PROMPT } from "./lazySlots.js";
import type { TimelineBuffer } from "./timelineBuffer.js";

/**
 * Session events turned into timeline entries: the store boundary where untrusted text is
 * sanitized, once. Everything downstream (panes, search, export) reads `text` as is. Items
 * kept undecoded (appendItem) are decoded and sanitized here too, by materializeItem, the
 * first time the TimelineBuffer is read there.
 */

/** What writing entries needs of a scrollback (a TimelineBuffer satisfies it). */
export interface EntrySink {
  push(entry: TimelineEntry): void;
  last(): TimelineEntry | undefined;
  setLast(entry: TimelineEntry): boolean;
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
  /**
   * The open prompt entry's text before redaction, once fragments were joined into it (null:
   * its text as written). Each join redacts the whole line again from this, so a key sent a
   * few characters a fragment is masked whole, not only its first half.
   */
  openText: string | null;
  maxEntryChars: number;
  /** Hides the user's key in every entry written (see redactEntry). */
  redact: RedactFn;
}

export function newWriter(
  maxEntryChars = DEFAULT_MAX_ENTRY_CHARS,
  redact: RedactFn = noRedaction,
): TimelineWriter {
  return { nextSeq: 1, openPromptSeq: null, openText: null, maxEntryChars, redact };
}

/**
 * The entry with the user's key (or any piece of it half its length or longer) hidden in every
 * field a pane or a search shows. Done on whole entries, after prompt fragments are joined,
 * so a key split across two fragments is still found.
 */
export function redactEntry(entry: TimelineEntry, redact: RedactFn): TimelineEntry {
  if (redact === noRedaction) return entry;
  const text = redact(entry.text);
  const path = entry.path === undefined ? undefined : redact(entry.path);
  const event = entry.event === undefined ? undefined : redact(entry.event);
  const stream = entry.stream === undefined ? undefined : redact(entry.stream);
  if (
    text === entry.text &&
    path === entry.path &&
    event === entry.event &&
    stream === entry.stream
  ) {
    return entry;
  }
  return { ...entry, text, path, event, stream };
}

const KEEP_SGR = { keepSgr: true } as const;

/** Cut before sanitizing so a sequence split by the cut is removed, not left half-open. */
function cutAndSanitize(text: string, max: number, keepSgr: boolean): string {
  if (text.length <= max) return sanitize(text, keepSgr ? KEEP_SGR : undefined);
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  const more = text.length - end;
  return `${sanitize(text.slice(0, end), { keepSgr })}${keepSgr ? "\x1b[0m" : ""}… [cut: ${more} more characters]`;
}

/** A single-line field (a path, an action, a state, a stream name): newlines folded. */
function clean(v: unknown, max = 1024): string | undefined {
  return typeof v === "string" ? foldLines(cutAndSanitize(v, max, false)) : undefined;
}

function base(
  seq: number,
  kind: TimelineKind,
  id: string | null,
  at: number,
  text: string,
  raw: unknown,
  ts: number | undefined = payloadTime(raw),
): TimelineEntry {
  // Every field up front, so all entries share one shape with every field in the object
  // itself: filling them in later would give each entry a second, out-of-object part.
  return {
    seq,
    id,
    kind,
    at,
    ts,
    text,
    stream: undefined,
    path: undefined,
    action: undefined,
    state: undefined,
    previousState: undefined,
    promptType: undefined,
    event: undefined,
    raw,
  };
}

function push(buf: EntrySink, w: TimelineWriter, entry: TimelineEntry): void {
  buf.push(redactEntry(entry, w.redact));
  w.openPromptSeq = null;
}

/** The newest entry while it is an open prompt line that text may join. */
function openPrompt(buf: EntrySink, w: TimelineWriter): TimelineEntry | null {
  if (w.openPromptSeq === null) return null;
  const last = buf.last();
  if (last === undefined || last.seq !== w.openPromptSeq) return null;
  // An undecoded prompt fragment was taken as open when it came; decoded, it may be another
  // type of prompt, or malformed, which no text joins.
  if (last.kind !== "prompt" || last.promptType !== undefined) {
    w.openPromptSeq = null;
    return null;
  }
  return last;
}

/**
 * Text fragments flow into one entry per line: a fragment joins the newest entry while that
 * is an open prompt line, a newline closes the line, and a line longer than
 * PROMPT_ENTRY_MAX_CHARS continues in a new entry. Any other entry in between closes it.
 */
function appendPromptText(
  buf: EntrySink,
  w: TimelineWriter,
  text: string,
  id: string | null,
  at: number,
  data: unknown,
): void {
  const ts = payloadTime(data);
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    appendPromptLine(buf, w, nl === -1 ? text.slice(start) : text.slice(start, nl), id, at, ts);
    if (nl === -1) return;
    start = nl + 1;
    if (openPrompt(buf, w)) {
      w.openPromptSeq = null;
    } else if (buf.last()?.kind === "prompt") {
      // A newline right after a finished line is a blank line in the prose: keep it.
      push(buf, w, base(w.nextSeq++, "prompt", id, at, "", { type: "text", content: "" }));
    }
  }
}

/** Text without a newline, joined onto the open prompt line or starting new ones. */
function appendPromptLine(
  buf: EntrySink,
  w: TimelineWriter,
  line: string,
  id: string | null,
  at: number,
  ts: number | undefined,
): void {
  let rest = line;
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
    let piece = rest;
    if (room >= rest.length) rest = "";
    else {
      piece = rest.slice(0, room);
      rest = rest.slice(room);
    }
    if (open) {
      const whole = (w.openText ?? open.text) + piece;
      w.openText = whole;
      const joined = w.redact(whole);
      buf.setLast({
        ...open,
        id: id ?? open.id,
        text: joined,
        raw: { type: "text", content: joined },
      });
    } else {
      const entry = base(
        w.nextSeq++,
        "prompt",
        id,
        at,
        piece,
        { type: "text", content: piece },
        ts,
      );
      push(buf, w, entry);
      w.openPromptSeq = entry.seq;
      w.openText = null;
    }
  }
}

/**
 * The entry of one event that is not prompt text (those flow into lines, see
 * appendPromptText) and not a heartbeat (never in the timeline).
 */
function entryFor(seq: number, ev: SessionEvent, at: number, max: number): TimelineEntry | null {
  switch (ev.kind) {
    case "heartbeat":
      return null;
    case "prompt_progress": {
      const entry = base(
        seq,
        "prompt",
        ev.id,
        at,
        cutAndSanitize(ev.data.content, max, false),
        ev.data,
      );
      entry.promptType = clean(ev.data.type, 64) ?? "";
      return entry;
    }
    case "process_output": {
      // One trailing newline ends the line; it is not an empty line of its own.
      // The one reading of an open payload: its text field, its stream (payloadText).
      const shown = payloadText(ev.data);
      let text = cutAndSanitize(shown.text, max, true);
      if (text.endsWith("\n")) text = text.slice(0, -1);
      const entry = base(seq, "output", ev.id, at, text, ev.data);
      entry.stream = clean(shown.stream, 64);
      return entry;
    }
    case "file_changed": {
      const path = clean(ev.data.path, max) ?? "";
      const action = clean(ev.data.action, 64) ?? "";
      const entry = base(seq, "file", ev.id, at, `${action} ${path}`, ev.data);
      entry.path = path;
      entry.action = action;
      return entry;
    }
    case "state_changed": {
      const state = clean(ev.data.state, 64) ?? "";
      const prev = clean(ev.data.previous_state, 64);
      const entry = base(seq, "state", ev.id, at, `${prev ?? "?"} → ${state}`, ev.data);
      entry.state = state;
      entry.previousState = prev;
      return entry;
    }
    case "unknown": {
      // Compact, its strings sanitized before they are written (no escape spelled out).
      const text = cutAndSanitize(compactJson(ev.data), UNKNOWN_PREVIEW_CHARS, false);
      const entry = base(seq, "unknown", ev.id, at, text, ev.data);
      entry.event = clean(ev.event, 128) ?? "";
      return entry;
    }
    case "malformed": {
      const text = cutAndSanitize(`${ev.error}: ${ev.raw}`, max, false);
      const entry = base(seq, "malformed", ev.id, at, text, ev.raw);
      entry.event = clean(ev.event, 128) ?? "";
      return entry;
    }
  }
}

/** Append one event (not a heartbeat: those never enter the timeline). */
export function appendEvent(buf: EntrySink, w: TimelineWriter, ev: SessionEvent, at: number): void {
  if (ev.kind === "prompt_progress" && ev.data.type === "text") {
    const text = cutAndSanitize(ev.data.content, w.maxEntryChars, false);
    appendPromptText(buf, w, text, ev.id, at, ev.data);
    return;
  }
  if (ev.kind === "heartbeat") return;
  const entry = entryFor(w.nextSeq, ev, at, w.maxEntryChars);
  if (entry === null) return;
  w.nextSeq++;
  push(buf, w, entry);
}

/**
 * Longest data text kept undecoded in the timeline; a longer item is decoded on arrival. An
 * undecoded item's text is a slice of the chunk it came in (at most one network read), which
 * stays in memory while any item of it is kept: small items only, so that costs no more than
 * the decoded entries and payloads would.
 */
export const RAW_ITEM_MAX_CHARS = 4096;

/**
 * Append one SSE item of a kind the timeline may keep undecoded (LAZY_KINDS[code], see
 * TimelineBuffer). It is kept raw when that cannot change what the timeline shows: an output
 * or file item always makes exactly one entry; a prompt fragment only when it cannot join the
 * line before it, and its text (no escapes, hence no newline; no empty string; nothing to
 * sanitize; short) makes exactly one entry, which then stays open for the next fragment.
 * Anything else is decoded now. test/unit/lazyTimeline.property.test.ts holds the result to
 * that of decoding every item on arrival.
 */
export function appendItem(
  buf: TimelineBuffer,
  w: TimelineWriter,
  code: number,
  data: string,
  id: string | null,
  at: number,
): void {
  if (data.length <= RAW_ITEM_MAX_CHARS) {
    if (code !== PROMPT) {
      buf.pushRaw(code, data, id, w.nextSeq++, at);
      w.openPromptSeq = null;
      return;
    }
    if (
      w.openPromptSeq === null &&
      data.length <= PROMPT_ENTRY_MAX_CHARS &&
      data.length <= w.maxEntryChars &&
      data.indexOf("\\") === -1 &&
      data.indexOf('""') === -1 &&
      isClean(data)
    ) {
      const seq = w.nextSeq++;
      buf.pushRaw(code, data, id, seq, at);
      w.openPromptSeq = seq;
      w.openText = null;
      return;
    }
  }
  appendEvent(buf, w, decodeEvent(LAZY_KINDS[code], data, id ?? undefined), at);
}

/** What an undecoded item decodes to: the same entry appendItem would have made at once. */
export function materializeItem(
  kind: LazyKind,
  data: string,
  id: string | null,
  seq: number,
  at: number,
  maxEntryChars: number,
  redact: RedactFn = noRedaction,
): TimelineEntry {
  const ev = decodeEvent(kind, data, id ?? undefined);
  if (ev.kind === "prompt_progress" && ev.data.type === "text") {
    // Short, clean and without a newline (see appendItem): the text is the content as is.
    const content = ev.data.content;
    const entry = base(
      seq,
      "prompt",
      ev.id,
      at,
      content,
      { type: "text", content },
      payloadTime(ev.data),
    );
    return redactEntry(entry, redact);
  }
  return redactEntry(entryFor(seq, ev, at, maxEntryChars) as TimelineEntry, redact);
}

/** A line the client itself writes (connection lost, reconnected, stopped). */
export function appendNotice(buf: EntrySink, w: TimelineWriter, text: string, at: number): void {
  appendMarker(buf, w, "notice", text, at);
}

/** A marker line of the client's own (see MarkerKind). */
export function appendMarker(
  buf: EntrySink,
  w: TimelineWriter,
  kind: MarkerKind,
  text: string,
  at: number,
): void {
  push(buf, w, base(w.nextSeq++, kind, null, at, sanitize(text), undefined));
}
