import { RATE_LIMIT_HEADERS, type RateLimitInfo } from "../protocol/rateLimit.js";
import { parseTime } from "../protocol/values.js";
import type { NetworkFailureKind } from "./networkFailure.js";

/** Why a request waits to be tried again. */
export type RetryCause =
  | { kind: "rate_limited" }
  | { kind: "service_error"; status: number }
  | { kind: "network"; failure: NetworkFailureKind }
  /** Not a retry: the key's request budget paces this request to the service's limits. */
  | { kind: "budget" };

/** A retry wait in progress: what the UI shows as "connection reset: retry in N s (attempt 2/5)". */
export interface RetryWait {
  /** The attempt that will run once the wait ends (2 for the first retry). */
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  /** When the wait ends (ms since epoch): the countdown target. */
  until: number;
  /** What happened, in a few words: "rate limited (HTTP 429)", "connection reset". */
  reason: string;
  cause: RetryCause;
  /** The server's Retry-After, when it gave one: longer than delayMs when it was capped. */
  requestedMs?: number | null;
}

/** Response headers as undici (plain record) or fetch (Headers) hand them over. */
export type HeaderSource = Headers | Record<string, string | string[] | number | undefined | null>;

/** One header's value, first one when repeated; undefined when absent. */
export function headerValue(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") {
    return (headers as Headers).get(name) ?? undefined;
  }
  const record = headers as Record<string, unknown>;
  let v = record[name];
  if (v === undefined) {
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    v = key === undefined ? undefined : record[key];
  }
  if (Array.isArray(v)) v = v[0];
  if (typeof v === "number") return String(v);
  return typeof v === "string" ? v : undefined;
}

function nonNegativeNumber(v: string | undefined): number | null {
  if (v === undefined) return null;
  const t = v.trim();
  if (!/^\d+(\.\d+)?$/.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/**
 * Values this large are a moment, not a delay: services disagree on which one
 * X-RateLimit-Reset carries, and no window lasts 30 years. A moment is read by the one time
 * parser (epoch seconds or milliseconds).
 */
const RESET_IS_A_MOMENT_FROM = 1_000_000_000;

/** What one response says about the limits; see readRateLimitHeaders. */
export interface RateLimitHeaders {
  remaining: number | null;
  limit: number | null;
  /** Seconds until capacity frees, as a delay (an epoch value is converted). */
  resetSeconds: number | null;
  /** Most requests at once, when the server names it (X-RateLimit-Burst, not documented). */
  burst: number | null;
}

/**
 * X-RateLimit-Remaining/-Limit/-Reset (and -Burst, which some gateways send) of one response,
 * or null when it carries none of them. The one reading of these headers: the tracker shows
 * them, the request budget paces by them.
 */
export function readRateLimitHeaders(
  headers: HeaderSource,
  now: number = Date.now(),
): RateLimitHeaders | null {
  const remaining = nonNegativeNumber(headerValue(headers, RATE_LIMIT_HEADERS.remaining));
  const limit = nonNegativeNumber(headerValue(headers, RATE_LIMIT_HEADERS.limit));
  let reset = nonNegativeNumber(headerValue(headers, RATE_LIMIT_HEADERS.reset));
  const burst = nonNegativeNumber(headerValue(headers, RATE_LIMIT_HEADERS.burst));
  if (remaining === null && limit === null && reset === null && burst === null) return null;
  if (reset !== null && reset >= RESET_IS_A_MOMENT_FROM) {
    const at = parseTime(reset);
    reset = at === undefined ? null : Math.max(0, Math.ceil((at - now) / 1000));
  }
  return { remaining, limit, resetSeconds: reset, burst };
}

/**
 * Rate-limit figures and retry waits, published to whoever shows them (the UI's status bar,
 * the headless commands' stderr). Both values are replaced, never mutated, so a subscriber
 * can compare references.
 */
export class RateLimitTracker {
  #info: RateLimitInfo | null = null;
  #waits: RetryWait[] = [];
  #waiting: RetryWait | null = null;
  readonly #listeners = new Set<() => void>();
  readonly #now: () => number;

  constructor(opts: { now?: () => number } = {}) {
    this.#now = opts.now ?? Date.now;
  }

  /** Figures from the latest response that carried any rate-limit header. */
  get info(): RateLimitInfo | null {
    return this.#info;
  }

  /** The wait that ends last among those in progress (requests may wait concurrently). */
  get waiting(): RetryWait | null {
    return this.#waiting;
  }

  subscribe(fn: () => void): () => void {
    this.#listeners.add(fn);
    return () => {
      this.#listeners.delete(fn);
    };
  }

  /**
   * Read X-RateLimit-Remaining/-Limit/-Reset. A response without any of them leaves the last
   * figures in place; one that carries some replaces all three (absent ones become null) so
   * stale numbers from an older response are never mixed in.
   */
  update(headers: HeaderSource): void {
    const now = this.#now();
    const figures = readRateLimitHeaders(headers, now);
    if (figures === null) return;
    const { remaining, limit, resetSeconds } = figures;
    if (remaining === null && limit === null && resetSeconds === null) return;
    this.#info = { remaining, limit, resetSeconds, observedAt: now };
    this.#emit();
  }

  beginWait(w: RetryWait): void {
    this.#waits.push(w);
    this.#refreshWaiting();
  }

  /** End one wait (the object given to beginWait), or every wait when called without one. */
  endWait(w?: RetryWait): void {
    if (w === undefined) this.#waits = [];
    else this.#waits = this.#waits.filter((x) => x !== w);
    this.#refreshWaiting();
  }

  #refreshWaiting(): void {
    let latest: RetryWait | null = null;
    for (const w of this.#waits) if (latest === null || w.until > latest.until) latest = w;
    this.#waiting = latest;
    this.#emit();
  }

  #emit(): void {
    for (const fn of [...this.#listeners]) fn();
  }
}
