/** One event of a session stream as kept by the service: data is the exact text sent. */
export interface StoredEvent {
  id: number;
  event: string;
  data: string;
}

/**
 * The bounded replay buffer of one session: the newest `capacity` events, oldest first.
 * A ring, so appending never copies the whole history.
 */
export class EventHistory {
  private readonly buf: (StoredEvent | undefined)[];
  private start = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!(Number.isInteger(capacity) && capacity >= 1)) {
      throw new RangeError("historyLimit must be a positive integer");
    }
    this.buf = new Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  push(e: StoredEvent): void {
    if (this.count < this.capacity) {
      this.buf[(this.start + this.count) % this.capacity] = e;
      this.count++;
    } else {
      this.buf[this.start] = e;
      this.start = (this.start + 1) % this.capacity;
    }
  }

  private at(i: number): StoredEvent {
    return this.buf[(this.start + i) % this.capacity] as StoredEvent;
  }

  /** The newest n events (all when fewer), oldest first. */
  last(n: number): StoredEvent[] {
    const k = Math.max(0, Math.min(this.count, Math.floor(n)));
    const out: StoredEvent[] = [];
    for (let i = this.count - k; i < this.count; i++) out.push(this.at(i));
    return out;
  }

  /** Events with id greater than lastId, oldest first (ids ascend, possibly with gaps). */
  since(lastId: number): StoredEvent[] {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).id <= lastId) lo = mid + 1;
      else hi = mid;
    }
    const out: StoredEvent[] = [];
    for (let i = lo; i < this.count; i++) out.push(this.at(i));
    return out;
  }
}
