/**
 * Backoff maths shared by the HTTP client and the event stream. The interface recommends:
 * wait Retry-After on the first retry, then double on each later retry, up to a cap (60 s).
 */

export const DEFAULT_MAX_DELAY_MS = 60_000;

export interface BackoffOptions {
  /** Delay before the first retry when the server gave no Retry-After. */
  baseMs: number;
  /** Upper bound for any delay, jitter included. */
  maxMs?: number;
  /** Fraction of the delay added or removed at random (0 = none). */
  jitter?: number;
  /** Source of randomness in [0, 1); injectable for tests. */
  random?: () => number;
}

/**
 * Delay before retry number `attempt` (1-based). `firstMs` (from Retry-After, when the
 * server gave one) replaces the base for the first retry and is doubled after it.
 */
export function backoffDelay(attempt: number, opts: BackoffOptions, firstMs?: number): number {
  const max = opts.maxMs ?? DEFAULT_MAX_DELAY_MS;
  const start = firstMs !== undefined && firstMs >= 0 ? firstMs : opts.baseMs;
  const n = Math.max(1, Math.floor(attempt));
  // 2 ** 30 is far past any cap; avoid Infinity for very large attempt counts.
  const raw = start * 2 ** Math.min(n - 1, 30);
  const capped = Math.min(raw, max);
  const jitter = opts.jitter ?? 0;
  if (jitter <= 0) return capped;
  const r = (opts.random ?? Math.random)();
  const withJitter = capped * (1 - jitter + 2 * jitter * r);
  return Math.max(0, Math.min(max, Math.round(withJitter)));
}

/**
 * Retry-After as milliseconds: delay-seconds or an HTTP-date. Null for a missing or garbage
 * value, so the caller falls back to its own backoff.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | null {
  if (value === null || value === undefined) return null;
  const v = value.trim();
  if (v === "") return null;
  if (/^\d+(\.\d+)?$/.test(v)) {
    const secs = Number(v);
    return Number.isFinite(secs) ? Math.round(secs * 1000) : null;
  }
  const at = httpDate(v);
  return at === null ? null : Math.max(0, at - now);
}

/**
 * An HTTP-date header value (Retry-After, Date) as ms since the epoch, or null when there is
 * none or it is not one: only strings that look like one are read (Date.parse is too forgiving
 * otherwise), and a real one is 29 characters (IMF-fixdate), so anything far longer is not.
 */
export function httpDate(value: string | null | undefined): number | null {
  if (value === null || value === undefined || value.length > 64) return null;
  const v = value.trim();
  if (!/[A-Za-z]{3},? /.test(v) && !/GMT|UTC/.test(v)) return null;
  const at = Date.parse(v);
  return Number.isFinite(at) ? at : null;
}
