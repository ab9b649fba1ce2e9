import { isAscii } from "node:buffer";

/** One dispatched SSE item. */
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
   * An item with an `id:` but no data: it is not dispatched, yet WHATWG sets the last event id
   * from it all the same. Called in stream order relative to onMessage.
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
 * an empty `id:` clears it. The reader reports the field per item only.
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

const LF = 10;
const CR = 13;
const SPACE = 32;
const COLON = 58;

/** Fields of an item that is being read (between two blank lines). */
interface Pending {
  event: string | undefined;
  /** The item's own `id:` field (the last one without a NUL); undefined when it had none. */
  id: string | undefined;
  data: string;
  /** `data` lines so far: an item with none is not dispatched. */
  dataLines: number;
}

/**
 * Bytes → streaming UTF-8 decoding (characters split across chunks survive) → the WHATWG
 * event-stream interpretation, in one pass over each chunk, with a flat memory bound per item.
 *
 * Lines end in LF, CRLF or CR (a CR that ends a chunk ends its line at once, and an LF opening
 * the next chunk is then the rest of that CRLF, not a blank line). A line is a comment
 * (`:` first), or `name: value` (one space after the colon dropped; a line without a colon is
 * a name with an empty value). `data` lines are joined with LF; `event` names the item;
 * `id` sets its id unless the value holds a NUL; `retry` is taken when it is all digits;
 * other names are ignored. A blank line ends the item: it is dispatched when it had a data
 * line, else an `id` it had is still reported (onId), as it moves the last event id.
 * A leading BOM is dropped by the decoder. An unterminated last item is discarded.
 *
 * The bound counts the bytes received since the last blank line (the item being read, its
 * comments included). Past `maxEventBytes` the item is cut, whether it ends in the same chunk
 * or not, so a line that never ends holds at most the bound and one chunk.
 */
export function createSseReader(opts: SseReaderOptions): SseReader {
  const max = opts.maxEventBytes;
  const { onMessage, onId, onRetry, onComment } = opts;
  // fatal: false turns invalid UTF-8 into U+FFFD instead of killing the stream; the decoder
  // also drops a leading BOM (ignoreBOM false).
  const decoder = new TextDecoder("utf-8");
  const item: Pending = { event: undefined, id: undefined, data: "", dataLines: 0 };
  /** The last event name seen: the same name again is not sliced out once more. */
  let lastEvent = "";
  /** The previous chunk ended in CR: an LF opening this one completes that CRLF. */
  let pendingCr = false;
  /** The unfinished last line of the previous chunks (its bytes are in carriedBytes). */
  let partial = "";
  /** Bytes of the current item received in earlier chunks, and its first characters. */
  let carriedBytes = 0;
  let carriedHead = "";
  let dead = false;

  // Per chunk: where the current item's part of the chunk starts, and how many of its bytes
  // up to `exactAt` were counted exactly (only needed when a non-ASCII chunk nears the bound).
  let itemStart = 0;
  let exactAt = 0;
  let exactBytes = 0;

  function resetItem(): void {
    item.event = undefined;
    item.id = undefined;
    item.data = "";
    item.dataLines = 0;
  }

  function dispatch(): void {
    if (item.dataLines > 0) {
      // A fresh object per message: a receiver may keep it.
      onMessage({ event: item.event, data: item.data, id: item.id });
    } else if (item.id !== undefined) onId?.(item.id);
    resetItem();
  }

  /** Interprets one line, s[start, end), which is not blank. */
  function line(s: string, start: number, end: number): void {
    const c = s.charCodeAt(start);
    let v: number;
    if (c === COLON) {
      if (onComment) {
        v = start + 1;
        if (v < end && s.charCodeAt(v) === SPACE) v++;
        onComment(s.slice(v, end));
      }
      return;
    }
    if (c === 100 /* d */) {
      v = valueStart(s, start, end, "data");
      if (v === -1) return;
      const value = s.slice(v, end);
      item.data = item.dataLines === 0 ? value : `${item.data}\n${value}`;
      item.dataLines++;
    } else if (c === 105 /* i */) {
      v = valueStart(s, start, end, "id");
      if (v === -1) return;
      const value = s.slice(v, end);
      if (!value.includes("\0")) item.id = value;
    } else if (c === 101 /* e */) {
      v = valueStart(s, start, end, "event");
      if (v === -1) return;
      if (v === end) item.event = undefined;
      else {
        // Names repeat from item to item: reuse the string instead of slicing it again.
        if (end - v !== lastEvent.length || !s.startsWith(lastEvent, v)) {
          lastEvent = s.slice(v, end);
        }
        item.event = lastEvent;
      }
    } else if (c === 114 /* r */) {
      v = valueStart(s, start, end, "retry");
      if (v === -1 || v === end) return;
      for (let k = v; k < end; k++) {
        const d = s.charCodeAt(k);
        if (d < 48 || d > 57) return;
      }
      onRetry?.(Number.parseInt(s.slice(v, end), 10));
    }
    // Any other field name is ignored.
  }

  /** Bytes of the current item up to `pos` of this chunk (see the bound above). */
  function itemBytes(text: string, pos: number, ascii: boolean): number {
    const chars = pos - itemStart;
    if (ascii) return carriedBytes + chars;
    // UTF-8 takes at most 3 bytes per UTF-16 unit: below the bound, no need to count.
    if (carriedBytes + 3 * chars <= max) return carriedBytes + chars;
    exactBytes += Buffer.byteLength(text.slice(exactAt, pos));
    exactAt = pos;
    return carriedBytes + exactBytes;
  }

  function cutAt(text: string, pos: number, bytes: number): OversizedEvent {
    let head = carriedHead;
    if (head.length < OVERSIZED_HEAD_CHARS) {
      head += text.slice(itemStart, Math.min(pos, itemStart + OVERSIZED_HEAD_CHARS - head.length));
    }
    const cut: OversizedEvent = {
      event: item.event,
      id: item.id,
      head: head.replace(/\r\n?/g, "\n"),
      bytes,
    };
    dead = true;
    partial = "";
    carriedHead = "";
    carriedBytes = 0;
    resetItem();
    return cut;
  }

  function feed(text: string, ascii: boolean): OversizedEvent | null {
    const len = text.length;
    if (len === 0) return null;
    let pos = 0;
    if (pendingCr) {
      pendingCr = false;
      if (text.charCodeAt(0) === LF) pos = 1;
    }
    itemStart = pos;
    exactAt = pos;
    exactBytes = 0;
    // Most streams end lines in LF only: then one search per line.
    const crs = text.indexOf("\r", pos) !== -1;
    let nextCr = crs ? text.indexOf("\r", pos) : -1;
    let nextLf = text.indexOf("\n", pos);
    while (pos < len) {
      // The end of the line that starts at pos.
      let end: number;
      if (!crs) end = nextLf;
      else {
        if (nextCr !== -1 && nextCr < pos) nextCr = text.indexOf("\r", pos);
        if (nextLf !== -1 && nextLf < pos) nextLf = text.indexOf("\n", pos);
        end = nextCr === -1 ? nextLf : nextLf === -1 || nextCr < nextLf ? nextCr : nextLf;
      }
      if (end === -1) break;
      let next = end + 1;
      if (text.charCodeAt(end) === CR) {
        if (next === len) pendingCr = true;
        else if (text.charCodeAt(next) === LF) next++;
      }
      if (partial !== "") {
        // The line began in an earlier chunk: the only join of two texts.
        const whole = partial + text.slice(pos, end);
        partial = "";
        line(whole, 0, whole.length);
      } else if (end === pos) {
        dispatch();
        itemStart = next;
        exactAt = next;
        exactBytes = 0;
        carriedBytes = 0;
        carriedHead = "";
      } else line(text, pos, end);
      pos = next;
      if (!crs) nextLf = text.indexOf("\n", pos);
      if (itemStart < pos || carriedBytes > 0) {
        const bytes = itemBytes(text, pos, ascii);
        if (bytes > max) return cutAt(text, pos, bytes);
      }
    }
    // What is left belongs to the next chunk: the item's bytes and head so far, and the
    // unfinished line.
    if (pos < len) partial += pos === 0 ? text : text.slice(pos);
    if (itemStart < len) {
      const bytes = ascii
        ? carriedBytes + (len - itemStart)
        : carriedBytes + exactBytes + Buffer.byteLength(text.slice(exactAt));
      if (bytes > max) return cutAt(text, len, bytes);
      if (carriedHead.length < OVERSIZED_HEAD_CHARS) {
        carriedHead += text.slice(itemStart, itemStart + OVERSIZED_HEAD_CHARS - carriedHead.length);
      }
      carriedBytes = bytes;
    }
    return null;
  }

  // Set once the decoder has stripped (or not met) a leading BOM and holds no partial
  // character: from then on an all-ASCII chunk needs no UTF-8 decoding at all, and turning its
  // bytes into a string as they are is several times cheaper.
  let decoderIdle = false;

  return {
    push(bytes) {
      if (dead) throw new Error("SSE reader used after an oversized item");
      const ascii = isAscii(bytes);
      if (decoderIdle && ascii) {
        return feed(
          Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1"),
          true,
        );
      }
      const text = decoder.decode(bytes, { stream: true });
      decoderIdle = text !== "" && (bytes[bytes.length - 1] ?? 0x80) < 0x80;
      return feed(text, ascii && text.length === bytes.byteLength);
    },
    end() {
      if (dead) return;
      feed(decoder.decode(), false);
      dead = true;
      // An unterminated last item is discarded (WHATWG).
      partial = "";
      resetItem();
    },
  };
}

/**
 * Where the value of the field `name` starts when the line s[start, end) is that field
 * ("name:…", or "name" alone), else -1. One space after the colon is not part of the value.
 */
function valueStart(s: string, start: number, end: number, name: string): number {
  const n = name.length;
  if (end - start < n || !s.startsWith(name, start)) return -1;
  let v = start + n;
  if (v === end) return v;
  if (s.charCodeAt(v) !== COLON) return -1;
  v++;
  if (v < end && s.charCodeAt(v) === SPACE) v++;
  return v;
}
