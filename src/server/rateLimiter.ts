/**
 * Sliding-window rate limiter: a log of the accepted request times per bucket (one bucket per
 * key, or per remote address for unauthenticated callers). Exact rather than approximate, so
 * tests can predict precisely when capacity comes back.
 *
 * With a burst, a token bucket is checked as well, as the real service documents it ("100
 * requests/min, burst 20"): at most `burst` requests at once, refilled at limit per window,
 * so a client may not spend a whole window's quota in one go.
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

/** Tokens of one bucket: up to `burst`, refilled continuously. */
interface Bucket {
  tokens: number;
  at: number;
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
  private readonly buckets = new Map<string, Bucket>();
  private lastSweep = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    /** Most requests at once (token bucket); null for none beyond the window. */
    readonly burst: number | null = null,
  ) {
    if (!(Number.isInteger(limit) && limit >= 1)) throw new RangeError("rate limit must be >= 1");
    if (!(windowMs >= 1)) throw new RangeError("rate window must be >= 1 ms");
    if (burst !== null && !(Number.isInteger(burst) && burst >= 1)) {
      throw new RangeError("rate burst must be >= 1");
    }
  }

  /** Ms until the bucket has a whole token again (0 when it has one now); takes it when asked. */
  private burstWait(bucket: string, now: number, take: boolean): number {
    if (this.burst === null) return 0;
    const perMs = this.limit / this.windowMs;
    let b = this.buckets.get(bucket);
    if (!b) {
      b = { tokens: this.burst, at: now };
      this.buckets.set(bucket, b);
    }
    b.tokens = Math.min(this.burst, b.tokens + (now - b.at) * perMs);
    b.at = now;
    if (b.tokens >= 1) {
      if (take) b.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - b.tokens) / perMs);
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
    const windowAllows = log.size < this.limit;
    // The bucket is only drawn from when the window lets the request through.
    const burstWaitMs = this.burstWait(bucket, now, windowAllows);
    const allowed = windowAllows && burstWaitMs === 0;
    if (allowed) log.times.push(now);
    const oldest = log.oldest();
    const freeInMs = oldest === undefined ? 0 : oldest + this.windowMs - now;
    const resetSeconds = Math.max(0, Math.ceil(freeInMs / 1000));
    return {
      allowed,
      limit: this.limit,
      remaining: Math.max(0, this.limit - log.size),
      resetSeconds,
      retryAfterSeconds: Math.max(1, windowAllows ? Math.ceil(burstWaitMs / 1000) : resetSeconds),
    };
  }

  /** Drop idle buckets now and then so many one-off callers do not accumulate. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [bucket, log] of this.logs) {
      log.prune(now - this.windowMs);
      if (log.size === 0) {
        this.logs.delete(bucket);
        // Idle a whole window: its bucket has refilled anyway.
        this.buckets.delete(bucket);
      }
    }
  }
}
