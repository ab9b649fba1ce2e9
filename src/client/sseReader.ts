import { createParser, type EventSourceParser } from "eventsource-parser";

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
    onEvent: (m) => opts.onMessage({ event: m.event, data: m.data, id: m.id }),
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
    const joined = lastChar + t;
    const blank = joined.lastIndexOf("\n\n");
    if (blank !== -1) {
      const rest = joined.slice(blank + 2);
      pendingBytes = Buffer.byteLength(rest);
      pendingHead = rest.slice(0, OVERSIZED_HEAD_CHARS);
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

  function feed(text: string): OversizedEvent | null {
    const t = normalize(text);
    if (t === "") return null;
    track(t);
    parser.feed(t);
    if (pendingBytes <= opts.maxEventBytes) return null;
    const cut: OversizedEvent = {
      event: field("event") || undefined,
      id: field("id"),
      head: pendingHead,
      bytes: pendingBytes,
    };
    dead = true;
    parser.reset();
    pendingHead = "";
    pendingBytes = 0;
    return cut;
  }

  return {
    push(bytes) {
      if (dead) throw new Error("SSE reader used after an oversized item");
      return feed(decoder.decode(bytes, { stream: true }));
    },
    end() {
      if (dead) return;
      feed(decoder.decode());
      dead = true;
      parser.reset();
    },
  };
}
