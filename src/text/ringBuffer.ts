/**
 * A fixed-capacity ring buffer: the scrollback of a pane. Push is O(1) and never copies the
 * backing array; once full, each push evicts the oldest item. `version` changes on every
 * mutation so a reader can tell cheaply whether anything it rendered is out of date.
 */
export class RingBuffer<T> {
  readonly capacity: number;
  private items: (T | undefined)[] = [];
  /** Index in `items` of the oldest item. */
  private head = 0;
  private count = 0;
  private evicted = 0;
  private mutations = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`ring buffer capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
  }

  get size(): number {
    return this.count;
  }

  /** How many items were evicted since creation (clear() does not count). */
  get dropped(): number {
    return this.evicted;
  }

  /** Increments on every push, setLast and clear. */
  get version(): number {
    return this.mutations;
  }

  push(item: T): void {
    this.mutations++;
    if (this.count < this.capacity) {
      // Grows lazily up to capacity, so thousands of idle panes cost nothing up front.
      const at = (this.head + this.count) % this.capacity;
      if (at === this.items.length) this.items.push(item);
      else this.items[at] = item;
      this.count++;
      return;
    }
    this.items[this.head] = item;
    this.head = (this.head + 1) % this.capacity;
    this.evicted++;
  }

  /** Item i counted from the oldest (0) to the newest (size - 1); negative i counts back from the newest. */
  get(i: number): T | undefined {
    const idx = i < 0 ? this.count + i : i;
    if (!Number.isInteger(idx) || idx < 0 || idx >= this.count) return undefined;
    return this.items[(this.head + idx) % this.capacity];
  }

  /** The newest item. */
  last(): T | undefined {
    return this.count === 0 ? undefined : this.get(this.count - 1);
  }

  /** Replace the newest item (joining a fragment onto it); no-op when empty. */
  setLast(item: T): boolean {
    if (this.count === 0) return false;
    this.items[(this.head + this.count - 1) % this.capacity] = item;
    this.mutations++;
    return true;
  }

  /** Items from oldest to newest in [start, end), with Array.prototype.slice's index rules. */
  slice(start = 0, end = this.count): T[] {
    const from = clampIndex(start, this.count);
    const to = clampIndex(end, this.count);
    const out: T[] = [];
    for (let i = from; i < to; i++) out.push(this.items[(this.head + i) % this.capacity] as T);
    return out;
  }

  toArray(): T[] {
    return this.slice(0, this.count);
  }

  clear(): void {
    this.items = [];
    this.head = 0;
    this.count = 0;
    this.mutations++;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = 0; i < this.count; i++) yield this.items[(this.head + i) % this.capacity] as T;
  }
}

function clampIndex(i: number, length: number): number {
  const n = Math.trunc(i);
  if (Number.isNaN(n)) return 0;
  if (n < 0) return Math.max(0, length + n);
  return Math.min(n, length);
}
