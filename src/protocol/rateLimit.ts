/** Rate-limit headers. Only X-RateLimit-Remaining is named by the interface; the others are read when present. */
export const RATE_LIMIT_HEADERS = {
  remaining: "x-ratelimit-remaining",
  limit: "x-ratelimit-limit",
  reset: "x-ratelimit-reset",
  /** Not in the interface or the documentation; read when a server sends it. */
  burst: "x-ratelimit-burst",
  retryAfter: "retry-after",
} as const;

export interface RateLimitInfo {
  remaining: number | null;
  limit: number | null;
  /** Seconds until the window frees capacity, when the server says. */
  resetSeconds: number | null;
  /** When these figures were read (ms since epoch). */
  observedAt: number;
}
