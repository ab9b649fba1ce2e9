import { isAscii } from "node:buffer";
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";

/** One dispatched SSE item, as eventsource-parser reports it. */
export interface SseMessage {
  /** The `event:` field; undefined when the item had none (WHATWG default "message"). */
  event: string | undefined;
  data: string;
  /** undefined: no `id:` field in this item; "": an empty `id:` (clears the last event id). */
  id: string | undefined;
}

/** What was pending when the per-event bound was exceeded. */
export interface OversizedEvent {
  /** The `event:` name seen before the cut, if any. */
  event: string | undefined;
  /** The `id:` seen before the cut, if any: resuming after it skips the cut item. */
  id: string | undefined;
  /** The first characters of the cut item, for display. */
  head: string;
  /** Bytes received for the item when it was cut. */
  bytes: number;
}

export interface SseReaderOptions {
  /** Most bytes one item may take before it is cut off. */
  maxEventBytes: number;
  onMessage: (msg: SseMessage) => void;
  /**
   * An item with an `id:` but no data: eventsource-parser drops it, yet WHATWG sets the last
   * event id from it all the same. Called in stream order relative to onMessage.
   */
  onId?: (id: string) => void;
  onRetry?: (ms: number) => void;
  onComment?: (text: string) => void;
}

export interface SseReader {
  /**
   * Feed raw bytes of the body. Returns a description of the pending item when it outgrew
   * `maxEventBytes`; the reader has then dropped its buffers and must not be fed again.
   */
  push(bytes: Uint8Array): OversizedEvent | null;
  /** End of body: flush the decoder. An unterminated last item is discarded (WHATWG). */
  end(): void;
}

/** How much of a cut-off item is kept to show the user. */
export const OVERSIZED_HEAD_CHARS = 200;

/**
 * The WHATWG "last event ID buffer": it persists across items; an item without `id:` keeps it,
 * an empty `id:` clears it. eventsource-parser reports the field per item only.
 */
export function nextLastEventId(current: string | null, itemId: string | undefined): string | null {
  if (itemId === undefined) return current;
  return itemId === "" ? null : itemId;
}

/** Longest Last-Event-ID sent, in bytes: longer ones would fail the request on most servers. */
export const MAX_LAST_EVENT_ID_BYTES = 4096;

/**
 * The Last-Event-ID header value for an id: its UTF-8 bytes, as the spec says, written one
 * byte per character (undici sends header strings as Latin-1, and refuses characters beyond
 * it, so "☃-1" as it is would fail every reconnect). Null when the id cannot be sent as a
 * header (a control character other than tab, or too long): the stream then resumes without
 * it rather than failing forever.
 */
export function lastEventIdHeader(id: string | null): string | null {
  if (id === null || id === "") return null;
  const bytes = Buffer.from(id, "utf8");
  if (bytes.byteLength > MAX_LAST_EVENT_ID_BYTES) return null;
  const value = bytes.toString("latin1");
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) return null;
  return value;
}

/**
 * Bytes → streaming UTF-8 decoding (characters split across chunks survive) → one line
 * ending → eventsource-parser, with a flat memory bound per item.
 */
export function createSseReader(opts: SseReaderOptions): SseReader {
  // fatal: false turns invalid UTF-8 into U+FFFD instead of killing the stream; the decoder
  // also drops a leading BOM, which the parser only recognises in its byte form.
  const decoder = new TextDecoder("utf-8");
  const onMessage = opts.onMessage as (m: EventSourceMessage) => void;
  const ids = opts.onId ? new DatalessIds(opts.onId) : null;
  const parser: EventSourceParser = createParser({
    // The parser's message already has the three fields, all of them always set: handing it
    // on as is saves an object per event.
    onEvent: ids
      ? (m) => {
          ids.message(m.id);
          onMessage(m);
        }
      : onMessage,
    onRetry: (ms) => opts.onRetry?.(ms),
    onComment: (c) => opts.onComment?.(c),
    // Unknown fields and bad `retry:` values are ignored, as WHATWG says.
    onError: () => {},
  });
  let pendingCr = false;
  // The last character fed, so a blank line split across chunks is still seen. A stream
  // starts at the beginning of a line.
  let lastChar = "\n";
  let pendingBytes = 0;
  let pendingHead = "";
  let dead = false;
  /** The unfinished last line of what was fed so far (see feedLines). */
  let partialLine = "";

  /**
   * The parser waits for the byte after a trailing CR (it could be CRLF), so a CR-only server's
   * last item would sit there until the next heartbeat. Turning CR and CRLF into LF here,
   * remembering a CR at the end of a chunk, delivers it at once.
   */
  function normalize(text: string): string {
    let t = text;
    if (t === "") return t;
    if (pendingCr && t.charCodeAt(0) === 10) t = t.slice(1);
    if (t === "") {
      pendingCr = false;
      return t;
    }
    pendingCr = t.charCodeAt(t.length - 1) === 13;
    return t.includes("\r") ? t.replace(/\r\n?/g, "\n") : t;
  }

  /** Bytes since the last blank line: that is everything the parser may be holding. */
  function track(t: string): void {
    // A blank line either lies inside t or straddles the previous chunk and this one.
    let restStart = t.lastIndexOf("\n\n");
    if (restStart !== -1) restStart += 2;
    else if (lastChar === "\n" && t.charCodeAt(0) === 10) restStart = 1;
    if (restStart !== -1) {
      if (restStart === t.length) {
        pendingBytes = 0;
        pendingHead = "";
      } else {
        const rest = t.slice(restStart);
        pendingBytes = Buffer.byteLength(rest);
        pendingHead = rest.slice(0, OVERSIZED_HEAD_CHARS);
      }
    } else {
      pendingBytes += Buffer.byteLength(t);
      if (pendingHead.length < OVERSIZED_HEAD_CHARS) {
        pendingHead += t.slice(0, OVERSIZED_HEAD_CHARS - pendingHead.length);
      }
    }
    lastChar = t.charAt(t.length - 1);
  }

  function field(name: string): string | undefined {
    // Only complete lines: a field cut in the middle could be misread.
    const lines = pendingHead.split("\n").slice(0, -1);
    let value: string | undefined;
    for (const line of lines) {
      if (line.startsWith(`${name}:`)) {
        const v = line.slice(name.length + 1);
        value = v.startsWith(" ") ? v.slice(1) : v;
      }
    }
    return value;
  }

  /**
   * The parser is fed whole lines only. Given a chunk that ends inside a line, it keeps the
   * rest and, when the next chunk comes, joins it to that whole chunk: a copy of every chunk,
   * since lines rarely end where chunks do. Here only the unfinished line is joined to the
   * start of the next chunk; the rest of the chunk goes to the parser as a slice of itself.
   */
  function feedLines(t: string): void {
    const lastNl = t.lastIndexOf("\n");
    if (lastNl === -1) {
      partialLine += t;
      return;
    }
    let from = 0;
    if (partialLine !== "") {
      from = t.indexOf("\n") + 1;
      feedParser(partialLine + t.slice(0, from));
      partialLine = "";
    }
    if (lastNl + 1 > from) {
      feedParser(from === 0 && lastNl === t.length - 1 ? t : t.slice(from, lastNl + 1));
    }
    if (lastNl < t.length - 1) partialLine = t.slice(lastNl + 1);
  }

  /**
   * A complete item larger than the bound inside `t`: where it starts (0 when it began before
   * `t`) and its size. The check after feeding sees only the unfinished item, so one that
   * also ends inside the chunk (a socket read can be megabytes long) needs this look first.
   * A chunk too short to hold that many bytes costs one comparison (UTF-8 takes at most 3
   * bytes per UTF-16 unit).
   */
  function oversizedItemIn(t: string): { start: number; bytes: number } | null {
    const max = opts.maxEventBytes;
    if (pendingBytes + 3 * t.length <= max) return null;
    let start = 0;
    let carried = pendingBytes;
    if (lastChar === "\n" && t.charCodeAt(0) === 10) {
      // A blank line straddling the previous chunk and this one ends the pending item.
      if (carried > max) return { start: 0, bytes: carried };
      carried = 0;
      start = 1;
    }
    for (let end = t.indexOf("\n\n", start); end !== -1; end = t.indexOf("\n\n", start)) {
      const bytes = carried + Buffer.byteLength(t.slice(start, end + 1));
      if (bytes > max) return { start: carried > 0 ? 0 : start, bytes };
      carried = 0;
      start = end + 2;
    }
    return null;
  }

  /** Whole lines to the parser, data-less ids found on the side (see DatalessIds). */
  function feedParser(lines: string): void {
    if (ids === null) {
      parser.feed(lines);
      return;
    }
    ids.begin(lines);
    parser.feed(lines);
    ids.end();
  }

  function feed(text: string): OversizedEvent | null {
    const t = normalize(text);
    if (t === "") return null;
    const whole = oversizedItemIn(t);
    if (whole) {
      // The items before it go on as usual; it is cut as if it were still unfinished.
      if (whole.start > 0) {
        const before = t.slice(0, whole.start);
        track(before);
        feedLines(before);
        pendingHead = "";
      }
      const rest = t.slice(whole.start);
      if (pendingHead.length < OVERSIZED_HEAD_CHARS) {
        pendingHead += rest.slice(0, OVERSIZED_HEAD_CHARS - pendingHead.length);
      }
      pendingBytes = whole.bytes;
    } else {
      track(t);
      feedLines(t);
      if (pendingBytes <= opts.maxEventBytes) return null;
    }
    const cut: OversizedEvent = {
      event: field("event") || undefined,
      id: field("id"),
      head: pendingHead,
      bytes: pendingBytes,
    };
    dead = true;
    parser.reset();
    ids?.reset();
    partialLine = "";
    pendingHead = "";
    pendingBytes = 0;
    return cut;
  }

  // Set once the decoder has stripped (or not met) a leading BOM and holds no partial
  // character: from then on an all-ASCII chunk needs no UTF-8 decoding at all, and turning its
  // bytes into a string as they are is several times cheaper.
  let decoderIdle = false;

  function decode(bytes: Uint8Array): string {
    if (decoderIdle && isAscii(bytes)) {
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
    }
    const text = decoder.decode(bytes, { stream: true });
    decoderIdle = text !== "" && (bytes[bytes.length - 1] ?? 0x80) < 0x80;
    return text;
  }

  return {
    push(bytes) {
      if (dead) throw new Error("SSE reader used after an oversized item");
      return feed(decode(bytes));
    },
    end() {
      if (dead) return;
      feed(decoder.decode());
      dead = true;
      parser.reset();
    },
  };
}

/**
 * Finds items that carry an `id:` field but no data line, which eventsource-parser drops, and
 * reports their ids in order with the parser's messages.
 *
 * Such an id can only matter to a message with no id of its own (WHATWG gives it the last
 * event id buffer) or, when no message follows it, to the buffer itself: a message with an
 * id replaces whatever came before it. So a run of whole lines is walked item by item only
 * when it needs to be:
 * - when the parser dispatches a message without an id, before that message: every item of
 *   the run is walked (blank-line separated), data items only counted, and the ids of the
 *   others queued behind the number of data items before them, to be released as the parser
 *   dispatches (`message`) and the rest once it has taken the run (`end`);
 * - when the run's last complete item had no data: the run is walked after the parser took
 *   it, and the ids after its last message are released.
 * Otherwise (every message with an id, the last item a message: nearly every busy stream) a
 * run costs a few searches near its end, for that last item and the item left open.
 */
class DatalessIds {
  /** The open item (started in an earlier run): has it a data line yet, and its id. */
  private hasData = false;
  private id: string | undefined = undefined;
  /** The run the parser is being fed. */
  private t = "";
  /** Messages the parser dispatched from this run so far. */
  private messages = 0;
  private walked = false;
  /** Data-less ids of this run from `queued` on: [data items before it, id]. */
  private readonly queue: [number, string][] = [];
  private queued = 0;

  constructor(private readonly onId: (id: string) => void) {}

  begin(t: string): void {
    this.t = t;
    this.messages = 0;
    this.walked = false;
  }

  /** The parser is about to dispatch a message with this id field. */
  message(id: string | undefined): void {
    if (!this.walked && id === undefined) this.walk();
    // The ids queued behind this many data items come before this message.
    if (this.walked) this.release(this.messages);
    this.messages++;
  }

  /** The parser took the whole run. */
  end(): void {
    if (this.walked) this.release(Number.POSITIVE_INFINITY);
    else this.settle();
    this.t = "";
  }

  reset(): void {
    this.hasData = false;
    this.id = undefined;
    this.queue.length = 0;
    this.queued = 0;
    this.t = "";
  }

  /**
   * A run nobody walked: every message in it had an id. If its last complete item was one
   * of them, that id is the buffer now; else the ids after the last message still count.
   * Either way the item left open is read for the next run.
   */
  private settle(): void {
    const t = this.t;
    const k = t.lastIndexOf("\n\n");
    // A run starts at a line start, so a leading LF is a blank line too.
    const lastBlank = k !== -1 ? k + 1 : t.charCodeAt(0) === 10 ? 0 : -1;
    if (lastBlank === -1) {
      this.extend(t, 0, t.length, new FieldFinder(t, "data"), new FieldFinder(t, "id"));
      return;
    }
    const p = lastBlank >= 2 ? t.lastIndexOf("\n\n", lastBlank - 2) : -1;
    const start = p !== -1 ? p + 2 : lastBlank > 0 && t.charCodeAt(0) === 10 ? 1 : 0;
    const data = new FieldFinder(t, "data");
    const hadData = (start === 0 && this.hasData) || data.next(start, lastBlank) !== -1;
    if (!hadData) {
      this.walk();
      this.release(Number.POSITIVE_INFINITY);
      return;
    }
    this.hasData = false;
    this.id = undefined;
    if (lastBlank + 1 < t.length) {
      this.extend(t, lastBlank + 1, t.length, data, new FieldFinder(t, "id"));
    }
  }

  /** Reads the open item's lines in [from, end) (no blank line among them). */
  private extend(t: string, from: number, end: number, data: FieldFinder, idField: FieldFinder) {
    if (!this.hasData && data.next(from, end) !== -1) this.hasData = true;
    if (this.hasData) return;
    let p = idField.next(from, end);
    while (p !== -1) {
      const nl = t.indexOf("\n", p);
      const lineEnd = nl === -1 || nl > end ? end : nl;
      let v = p + 2 < lineEnd && t.charCodeAt(p + 2) === 58 ? p + 3 : p + 2;
      if (v < lineEnd && t.charCodeAt(v) === 32) v++;
      const value = t.slice(v, lineEnd);
      if (!value.includes("\0")) this.id = value;
      p = idField.next(lineEnd, end);
    }
  }

  /**
   * Walks every item of the run from its start, queuing the ids of the data-less ones. The
   * messages dispatched before the walk all had ids: the ids queued before the last of them
   * are dropped, as that message replaced them.
   */
  private walk(): void {
    this.walked = true;
    this.queue.length = 0;
    this.queued = 0;
    const t = this.t;
    const data = new FieldFinder(t, "data");
    const idField = new FieldFinder(t, "id");
    let dataItems = 0;
    let i = 0;
    for (;;) {
      // The next empty line (t always starts at a line start, after a line end).
      let blank: number;
      if (t.charCodeAt(i) === 10) blank = i;
      else {
        const k = t.indexOf("\n\n", i === 0 ? 0 : i - 1);
        blank = k === -1 ? -1 : k + 1;
      }
      this.extend(t, i, blank === -1 ? t.length : blank, data, idField);
      if (blank === -1) break;
      if (this.hasData) dataItems++;
      else if (this.id !== undefined) this.queue.push([dataItems, this.id]);
      this.hasData = false;
      this.id = undefined;
      i = blank + 1;
      if (i >= t.length) break;
    }
    const q = this.queue;
    while (this.queued < q.length && (q[this.queued] as [number, string])[0] < this.messages) {
      this.queued++;
    }
  }

  private release(upTo: number): void {
    const q = this.queue;
    while (this.queued < q.length) {
      const head = q[this.queued] as [number, string];
      if (head[0] > upTo) return;
      this.queued++;
      this.onId(head[1]);
    }
    q.length = 0;
    this.queued = 0;
  }
}

/**
 * Lines that are the field `name` ("name:…" or "name" alone) in one run of whole lines,
 * searched with the starting point only moving forward, so a run costs one pass per name
 * however many items it holds.
 */
class FieldFinder {
  /** The last raw match of `name` (maybe not at a line start); -1 when there is none left. */
  private at = -2;

  constructor(
    private readonly t: string,
    private readonly name: string,
  ) {}

  /** First such line starting in [from, end), or -1. `from` only grows between calls. */
  next(from: number, end: number): number {
    const { t, name } = this;
    for (;;) {
      if (this.at === -1) return -1;
      if (this.at < from) this.at = t.indexOf(name, from);
      const p = this.at;
      if (p === -1 || p >= end) return -1;
      const atLineStart = p === 0 || t.charCodeAt(p - 1) === 10;
      const after = t.charCodeAt(p + name.length);
      if (atLineStart && (after === 58 || after === 10)) return p;
      this.at = t.indexOf(name, p + 1);
    }
  }
}
