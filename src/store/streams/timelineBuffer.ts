import type { TimelineEntry } from "./entry.js";
import { LazySlots, type Materialize } from "./lazySlots.js";

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

export class TimelineBuffer {
  readonly capacity: number;
  /** Decoded entries; undefined in a slot still undecoded. */
  private entries: (TimelineEntry | undefined)[] = [];
  /** The undecoded slots, column by column (grown lazily like `entries`). */
  private readonly raw: LazySlots;
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
    this.raw = new LazySlots(capacity);
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
      this.raw.reserve(at);
      return at;
    }
    const at = this.head;
    this.head = (this.head + 1) % this.capacity;
    this.evicted++;
    return at;
  }

  push(entry: TimelineEntry): void {
    const at = this.claim();
    this.entries[at] = entry;
    this.raw.release(at);
  }

  /** An undecoded item of kind LAZY_KINDS[code]; `seq` is its entry's sequence number. */
  pushRaw(code: number, data: string, id: string | null, seq: number, at: number): void {
    const slot = this.claim();
    this.entries[slot] = undefined;
    this.raw.write(slot, code, data, id, seq, at);
  }

  private entryAt(slot: number): TimelineEntry {
    const e = this.entries[slot];
    if (e !== undefined) return e;
    const made = this.raw.materialize(slot, this.materialize);
    this.entries[slot] = made;
    return made;
  }

  /** Entry i counted from the oldest (0) to the newest (size - 1); negative i counts back from the newest. */
  get(i: number): TimelineEntry | undefined {
    const idx = i < 0 ? this.count + i : i;
    if (!Number.isInteger(idx) || idx < 0 || idx >= this.count) return undefined;
    return this.entryAt((this.head + idx) % this.capacity);
  }

  /**
   * Entry i as `get` gives it, but an undecoded slot is decoded for this call only and stays
   * undecoded (a search's index reads every entry once without keeping them all).
   */
  peek(i: number): TimelineEntry | undefined {
    const idx = i < 0 ? this.count + i : i;
    if (!Number.isInteger(idx) || idx < 0 || idx >= this.count) return undefined;
    const slot = (this.head + idx) % this.capacity;
    return this.entries[slot] ?? this.raw.decode(slot, this.materialize);
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
    this.raw.release(slot);
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
    this.raw.clear();
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
