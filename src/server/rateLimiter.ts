/**
 * Sliding-window rate limiter: a log of the accepted request times per bucket (one bucket per
 * key, or per remote address for unauthenticated callers). Exact rather than approximate, so
 * tests can predict precisely when capacity comes back.
 */

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /** Seconds until the oldest counted request leaves the window (capacity frees up). */
  resetSeconds: number;
  /** Seconds to wait before retrying (only meaningful when not allowed). */
  retryAfterSeconds: number;
}

class Log {
  times: number[] = [];
  head = 0;

  prune(cutoff: number): void {
    while (this.head < this.times.length && (this.times[this.head] as number) <= cutoff) {
      this.head++;
    }
    // Compact once the dead prefix dominates, so the array does not grow forever.
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }

  get size(): number {
    return this.times.length - this.head;
  }

  oldest(): number | undefined {
    return this.times[this.head];
  }
}

export class RateLimiter {
  private readonly logs = new Map<string, Log>();
  private lastSweep = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {
    if (!(Number.isInteger(limit) && limit >= 1)) throw new RangeError("rate limit must be >= 1");
    if (!(windowMs >= 1)) throw new RangeError("rate window must be >= 1 ms");
  }

  /** Count a request in bucket at time now, unless over the limit (refused requests are not counted). */
  hit(bucket: string, now: number): RateDecision {
    this.sweep(now);
    let log = this.logs.get(bucket);
    if (!log) {
      log = new Log();
      this.logs.set(bucket, log);
    }
    log.prune(now - this.windowMs);
    const allowed = log.size < this.limit;
    if (allowed) log.times.push(now);
    const oldest = log.oldest();
    const freeInMs = oldest === undefined ? 0 : oldest + this.windowMs - now;
    const resetSeconds = Math.max(0, Math.ceil(freeInMs / 1000));
    return {
      allowed,
      limit: this.limit,
      remaining: Math.max(0, this.limit - log.size),
      resetSeconds,
      retryAfterSeconds: Math.max(1, resetSeconds),
    };
  }

  /** Drop idle buckets now and then so many one-off callers do not accumulate. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [bucket, log] of this.logs) {
      log.prune(now - this.windowMs);
      if (log.size === 0) this.logs.delete(bucket);
    }
  }
}
