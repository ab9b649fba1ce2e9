import type { TimelineEntry } from "./entry.js";

/**
 * A session's scrollback: a fixed-capacity ring of timeline entries, oldest first (push is
 * O(1): the columns grow up to the capacity, and once there each push overwrites the oldest
 * slot; `version` changes on every mutation).
 *
 * Most slots start undecoded: the SSE item's kind, data text, id, sequence number and receive
 * time, kept in flat columns. Decoding, checking and sanitizing happen the first time a slot
 * is read (get, last, slice, toArray, iteration), and the entry then replaces the raw text.
 * A pane reads only what it shows, so at a flood's rate nearly nothing is decoded, and the
 * columns hold two strings per item instead of a parsed payload and an entry object: the
 * garbage collector, which copies every young object still referenced, has far less to copy.
 * Readers see plain TimelineEntry objects, and the same object every time.
 */

/** SSE items a slot may hold undecoded (see timeline.ts for which ones are). */
export const LAZY_KINDS = ["process_output", "prompt_progress", "file_changed"] as const;
export type LazyKind = (typeof LAZY_KINDS)[number];
/** Index in LAZY_KINDS. */
export const OUTPUT = 0;
export const PROMPT = 1;
export const FILE = 2;

/**
 * The LAZY_KINDS index of an SSE event name, or -1. The three names differ in length, so one
 * comparison decides: the name is a fresh string cut from the stream, and comparing it with
 * each constant in turn took a visible share of a flood's time.
 */
export function lazyKindCode(event: string | undefined): number {
  if (event === undefined) return -1;
  switch (event.length) {
    case 14:
      return event === "process_output" ? OUTPUT : -1;
    case 15:
      return event === "prompt_progress" ? PROMPT : -1;
    case 12:
      return event === "file_changed" ? FILE : -1;
    default:
      return -1;
  }
}

/** Builds the entry of an undecoded slot, exactly as decoding it on arrival would have. */
export type Materialize = (
  kind: LazyKind,
  data: string,
  id: string | null,
  seq: number,
  at: number,
) => TimelineEntry;

export class TimelineBuffer {
  readonly capacity: number;
  /** Decoded entries; undefined in a slot still undecoded. */
  private entries: (TimelineEntry | undefined)[] = [];
  // The undecoded slots, column by column (grown lazily like `entries`).
  private data: (string | undefined)[] = [];
  private ids: (string | null)[] = [];
  private kinds: Uint8Array;
  private seqs: Float64Array;
  private ats: Float64Array;
  private head = 0;
  private count = 0;
  private evicted = 0;
  private mutations = 0;

  constructor(
    capacity: number,
    private readonly materialize: Materialize,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`timeline capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
    // Typed columns start small, so thousands of idle panes cost little up front.
    const initial = Math.min(capacity, 64);
    this.kinds = new Uint8Array(initial);
    this.seqs = new Float64Array(initial);
    this.ats = new Float64Array(initial);
  }

  get size(): number {
    return this.count;
  }

  /** How many entries were evicted since creation (clear() does not count). */
  get dropped(): number {
    return this.evicted;
  }

  /** Increments on every push, setLast and clear. */
  get version(): number {
    return this.mutations;
  }

  /** The slot the next push writes, evicting the oldest entry when full. */
  private claim(): number {
    this.mutations++;
    if (this.count < this.capacity) {
      const at = (this.head + this.count) % this.capacity;
      this.count++;
      if (at >= this.kinds.length) this.grow(at + 1);
      return at;
    }
    const at = this.head;
    this.head = (this.head + 1) % this.capacity;
    this.evicted++;
    return at;
  }

  private grow(min: number): void {
    const size = Math.min(this.capacity, Math.max(min, this.kinds.length * 2));
    const kinds = new Uint8Array(size);
    kinds.set(this.kinds);
    this.kinds = kinds;
    const seqs = new Float64Array(size);
    seqs.set(this.seqs);
    this.seqs = seqs;
    const ats = new Float64Array(size);
    ats.set(this.ats);
    this.ats = ats;
  }

  push(entry: TimelineEntry): void {
    const at = this.claim();
    this.entries[at] = entry;
    this.data[at] = undefined;
    this.ids[at] = null;
  }

  /** An undecoded item of kind LAZY_KINDS[code]; `seq` is its entry's sequence number. */
  pushRaw(code: number, data: string, id: string | null, seq: number, at: number): void {
    const slot = this.claim();
    this.entries[slot] = undefined;
    this.data[slot] = data;
    this.ids[slot] = id;
    this.kinds[slot] = code;
    this.seqs[slot] = seq;
    this.ats[slot] = at;
  }

  private entryAt(slot: number): TimelineEntry {
    const e = this.entries[slot];
    if (e !== undefined) return e;
    const made = this.materialize(
      LAZY_KINDS[this.kinds[slot] as number] as LazyKind,
      this.data[slot] as string,
      this.ids[slot] as string | null,
      this.seqs[slot] as number,
      this.ats[slot] as number,
    );
    this.entries[slot] = made;
    this.data[slot] = undefined;
    this.ids[slot] = null;
    return made;
  }

  /** Entry i counted from the oldest (0) to the newest (size - 1); negative i counts back from the newest. */
  get(i: number): TimelineEntry | undefined {
    const idx = i < 0 ? this.count + i : i;
    if (!Number.isInteger(idx) || idx < 0 || idx >= this.count) return undefined;
    return this.entryAt((this.head + idx) % this.capacity);
  }

  /** The newest entry. */
  last(): TimelineEntry | undefined {
    return this.count === 0 ? undefined : this.get(this.count - 1);
  }

  /** Replace the newest entry (joining a fragment onto it); no-op when empty. */
  setLast(entry: TimelineEntry): boolean {
    if (this.count === 0) return false;
    const slot = (this.head + this.count - 1) % this.capacity;
    this.entries[slot] = entry;
    this.data[slot] = undefined;
    this.ids[slot] = null;
    this.mutations++;
    return true;
  }

  /** Entries from oldest to newest in [start, end), with Array.prototype.slice's index rules. */
  slice(start = 0, end = this.count): TimelineEntry[] {
    const from = clampIndex(start, this.count);
    const to = clampIndex(end, this.count);
    const out: TimelineEntry[] = [];
    for (let i = from; i < to; i++) out.push(this.entryAt((this.head + i) % this.capacity));
    return out;
  }

  toArray(): TimelineEntry[] {
    return this.slice(0, this.count);
  }

  clear(): void {
    this.entries = [];
    this.data = [];
    this.ids = [];
    this.head = 0;
    this.count = 0;
    this.mutations++;
  }

  *[Symbol.iterator](): IterableIterator<TimelineEntry> {
    for (let i = 0; i < this.count; i++) yield this.entryAt((this.head + i) % this.capacity);
  }
}

function clampIndex(i: number, length: number): number {
  const n = Math.trunc(i);
  if (Number.isNaN(n)) return 0;
  if (n < 0) return Math.max(0, length + n);
  return Math.min(n, length);
}
