import type { TimelineEntry } from "./entry.js";
import type { StreamsState, StreamsStore } from "./streamsStore.js";

/**
 * The events of every streamed session interleaved in time order, as one scrollback (stern's
 * core view): each entry is the session's own entry with a sequence number of the merged
 * timeline and the session it came from. It reads only what the sessions added since it last
 * looked, and only while something shows it (attach/detach). A prompt line still growing is
 * replaced in place as its session's timeline joins more text onto it. Bounded: the oldest
 * entries go first.
 */

export const MERGED_CAPACITY = 5_000;

interface Cursor {
  /** The newest entry taken from the session, and its place in the merged timeline. */
  seq: number;
  entry: TimelineEntry | null;
  mergedSeq: number;
}

export class MergedTimeline {
  readonly capacity: number;
  readonly #streams: Pick<StreamsStore, "getState" | "subscribe">;
  #entries: TimelineEntry[] = [];
  /** Seq of #entries[0]. */
  #firstSeq = 1;
  #nextSeq = 1;
  readonly #cursors = new Map<string, Cursor>();
  /** Sessions in the order they first brought an entry (their colour follows it). */
  readonly #order: string[] = [];
  #version = 0;
  #attached = 0;
  #off: (() => void) | null = null;
  readonly #listeners = new Set<() => void>();
  #lastSessions: StreamsState["sessions"] | null = null;

  constructor(streams: Pick<StreamsStore, "getState" | "subscribe">, capacity = MERGED_CAPACITY) {
    this.#streams = streams;
    this.capacity = capacity;
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Changes whenever entries are added or replaced. */
  get version(): number {
    return this.#version;
  }

  get(i: number): TimelineEntry | undefined {
    const idx = i < 0 ? this.#entries.length + i : i;
    return this.#entries[idx];
  }

  toArray(): TimelineEntry[] {
    return this.#entries.slice();
  }

  /** Sessions that brought entries, in order of their first one. */
  get sessions(): readonly string[] {
    return this.#order;
  }

  subscribe(fn: () => void): () => void {
    this.#listeners.add(fn);
    return () => {
      this.#listeners.delete(fn);
    };
  }

  /** Start following the streams (counted: the last detach stops it). */
  attach(): () => void {
    this.#attached++;
    if (this.#attached === 1) {
      const notify = () => {
        for (const fn of [...this.#listeners]) fn();
      };
      if (this.sync()) notify();
      this.#off = this.#streams.subscribe(() => {
        if (this.sync()) notify();
      });
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#attached--;
      if (this.#attached === 0) {
        this.#off?.();
        this.#off = null;
      }
    };
  }

  /** Take in what the sessions added since the last call; true when anything changed. */
  sync(): boolean {
    const s = this.#streams.getState();
    if (s.sessions === this.#lastSessions) return false;
    this.#lastSessions = s.sessions;
    const fresh: TimelineEntry[] = [];
    let changed = false;
    for (const id of s.order) {
      const buf = s.sessions[id]?.timeline;
      if (!buf || buf.size === 0) continue;
      let cur = this.#cursors.get(id);
      if (!cur) {
        cur = { seq: 0, entry: null, mergedSeq: 0 };
        this.#cursors.set(id, cur);
      }
      const newest = buf.get(buf.size - 1);
      if (!newest || (newest.seq === cur.seq && newest === cur.entry)) continue;
      // From the end back to what was taken last: usually a handful of entries.
      let i = buf.size - 1;
      while (i > 0 && (buf.get(i - 1)?.seq ?? 0) > cur.seq) i--;
      const last = buf.get(i - 1);
      if (i > 0 && last && last.seq === cur.seq && last !== cur.entry) {
        changed = this.#replace(cur, last, id) || changed;
      }
      if ((buf.get(i)?.seq ?? 0) <= cur.seq) {
        // Only the last one changed (a prompt line grew).
        if (newest.seq === cur.seq && newest !== cur.entry) {
          changed = this.#replace(cur, newest, id) || changed;
        }
        continue;
      }
      for (; i < buf.size; i++) {
        const e = buf.get(i);
        if (!e) continue;
        fresh.push({ ...e, sessionId: id });
      }
      cur.seq = newest.seq;
      cur.entry = newest;
    }
    if (fresh.length > 0) {
      // Time order across sessions; a session's own order is kept for equal times.
      fresh.sort((a, b) => a.at - b.at);
      for (const e of fresh) {
        const id = e.sessionId as string;
        if (!this.#order.includes(id)) this.#order.push(id);
        const seq = this.#nextSeq++;
        e.seq = seq;
        this.#entries.push(e);
        const cur = this.#cursors.get(id);
        if (cur) cur.mergedSeq = seq;
      }
      this.#evict();
      changed = true;
    }
    if (changed) this.#version++;
    return changed;
  }

  /** The session's newest taken entry was replaced (joined text): replace its merged copy. */
  #replace(cur: Cursor, entry: TimelineEntry, sessionId: string): boolean {
    cur.entry = entry;
    const idx = cur.mergedSeq - this.#firstSeq;
    const old = this.#entries[idx];
    if (idx < 0 || !old || old.sessionId !== sessionId) return false;
    this.#entries[idx] = { ...entry, seq: old.seq, sessionId };
    return true;
  }

  #evict(): void {
    const over = this.#entries.length - this.capacity;
    if (over <= 0) return;
    this.#entries = this.#entries.slice(over);
    this.#firstSeq += over;
  }
}

const timelines = new WeakMap<object, MergedTimeline>();

/** The one merged timeline of a streams store (made on first use). */
export function mergedTimelineOf(
  streams: Pick<StreamsStore, "getState" | "subscribe">,
): MergedTimeline {
  let m = timelines.get(streams);
  if (!m) {
    m = new MergedTimeline(streams);
    timelines.set(streams, m);
  }
  return m;
}
