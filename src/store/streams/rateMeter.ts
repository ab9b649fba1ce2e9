/**
 * Events per second over a short sliding window, in fixed time buckets so recording is O(1)
 * and memory is constant however fast events arrive. Readers pass the current time, so a
 * rate decays to zero when a session falls quiet even if nothing is recorded.
 */
export class RateMeter {
  readonly windowMs: number;
  readonly bucketMs: number;
  private readonly counts: Float64Array;
  /** Bucket number (time / bucketMs) each slot currently holds. */
  private readonly slots: Float64Array;

  constructor(windowMs = 2000, buckets = 8) {
    this.windowMs = windowMs;
    this.bucketMs = windowMs / buckets;
    this.counts = new Float64Array(buckets);
    this.slots = new Float64Array(buckets).fill(-1);
  }

  record(now: number, n = 1): void {
    const bucket = Math.floor(now / this.bucketMs);
    const i = bucket % this.counts.length;
    if (this.slots[i] !== bucket) {
      this.slots[i] = bucket;
      this.counts[i] = 0;
    }
    this.counts[i] = (this.counts[i] ?? 0) + n;
  }

  /** Events per second over the window ending at `now`. */
  rate(now: number): number {
    const current = Math.floor(now / this.bucketMs);
    const oldest = current - this.counts.length + 1;
    let sum = 0;
    for (let i = 0; i < this.counts.length; i++) {
      const b = this.slots[i] ?? -1;
      if (b >= oldest && b <= current) sum += this.counts[i] ?? 0;
    }
    return sum / (this.windowMs / 1000);
  }
}
