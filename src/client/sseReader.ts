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

/**
 * Bytes → streaming UTF-8 decoding (characters split across chunks survive) → one line
 * ending → eventsource-parser, with a flat memory bound per item.
 */
export function createSseReader(opts: SseReaderOptions): SseReader {
  // fatal: false turns invalid UTF-8 into U+FFFD instead of killing the stream; the decoder
  // also drops a leading BOM, which the parser only recognises in its byte form.
  const decoder = new TextDecoder("utf-8");
  const parser: EventSourceParser = createParser({
    // The parser's message already has the three fields, all of them always set: handing it
    // on as is saves an object per event.
    onEvent: opts.onMessage as (m: EventSourceMessage) => void,
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
      parser.feed(partialLine + t.slice(0, from));
      partialLine = "";
    }
    if (lastNl + 1 > from) {
      parser.feed(from === 0 && lastNl === t.length - 1 ? t : t.slice(from, lastNl + 1));
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
