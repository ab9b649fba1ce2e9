import { backoffDelay, DEFAULT_MAX_DELAY_MS } from "./backoff.js";

/**
 * When an event stream reconnects: the floor under every reconnect, whatever the server says.
 *
 * - The delay never drops below the client's base delay (default 1 s, jitter included): a
 *   server's `retry:` may lengthen the base, never shorten it, and `Retry-After: 0` or a date
 *   in the past is no reason to hurry.
 * - Failures in a row double the delay up to the cap. A connection counts as a failure unless
 *   it was useful: a stream that stayed open for `healthyMs`, or that brought new events. One
 *   that ends within a few seconds with nothing new (no event, only heartbeats, or the same
 *   last id again) is a failure like a refused one, so a server that accepts and hangs up at
 *   once gets the same growing backoff as one that answers 503.
 * - Retry-After is honoured up to the cap; a longer one is cut to the cap and the plan says so,
 *   for the caller to announce.
 *
 * So a stream starts at most one connection per base delay (test/unit/reconnectFloor.property
 * holds it to that for any sequence of server behaviour), and far fewer while it keeps failing.
 */

export const DEFAULT_RECONNECT_BASE_MS = 1000;
/** A stream open at least this long was useful, even if it brought nothing new. */
export const DEFAULT_HEALTHY_CONNECTION_MS = 5000;
/** Below this no base delay is accepted, whatever the options say. */
export const MIN_RECONNECT_MS = 1;

export interface ReconnectPolicyOptions {
  /** The floor and the first delay (default 1000 ms). */
  baseMs?: number;
  /** Cap of any delay, Retry-After included (default 60 s). */
  maxMs?: number;
  /** A connection open this long counts as useful (default 5000 ms). */
  healthyMs?: number;
  /** Fraction of a delay randomised upwards or downwards (never below the floor). */
  jitter?: number;
  random?: () => number;
}

/** How one connection ended, as far as the schedule cares. */
export interface ConnectionEnd {
  /** The server answered with an event stream (status 200, text/event-stream). */
  live: boolean;
  /** How long the connection was open, request to end, in ms. */
  openMs: number;
  /** It delivered events not seen before (heartbeats and a repeated last id do not count). */
  progress: boolean;
  /** The server's Retry-After in ms, when it sent one. */
  retryAfterMs: number | null;
}

export interface ReconnectPlan {
  /** Failures in a row, this one included (1 after a useful connection). */
  failures: number;
  delayMs: number;
  /** The server asked for longer than the cap (Retry-After), and the wait was cut to it. */
  cappedFromMs: number | null;
}

export class ReconnectPolicy {
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #healthyMs: number;
  readonly #jitter: number;
  readonly #random: (() => number) | undefined;
  #serverRetryMs = 0;
  #failures = 0;

  constructor(opts: ReconnectPolicyOptions = {}) {
    this.#baseMs = Math.max(MIN_RECONNECT_MS, opts.baseMs ?? DEFAULT_RECONNECT_BASE_MS);
    this.#maxMs = Math.max(this.#baseMs, opts.maxMs ?? DEFAULT_MAX_DELAY_MS);
    this.#healthyMs = opts.healthyMs ?? DEFAULT_HEALTHY_CONNECTION_MS;
    this.#jitter = opts.jitter ?? 0;
    this.#random = opts.random;
  }

  /** The floor: no two connection starts are closer than this (plus the connection's time). */
  get floorMs(): number {
    return this.#baseMs;
  }

  get failures(): number {
    return this.#failures;
  }

  /** The server's `retry:` field: a longer base from now on, never a shorter one. */
  serverRetry(ms: number): void {
    if (Number.isFinite(ms) && ms >= 0) this.#serverRetryMs = ms;
  }

  /** The wait before the next connection, after this one ended. */
  next(end: ConnectionEnd): ReconnectPlan {
    const useful = end.live && (end.progress || end.openMs >= this.#healthyMs);
    this.#failures = useful ? 1 : this.#failures + 1;
    const base = Math.min(this.#maxMs, Math.max(this.#baseMs, this.#serverRetryMs));
    let delayMs = backoffDelay(this.#failures, {
      baseMs: base,
      maxMs: this.#maxMs,
      jitter: this.#jitter,
      ...(this.#random ? { random: this.#random } : {}),
    });
    delayMs = Math.max(this.#baseMs, delayMs);
    let cappedFromMs: number | null = null;
    if (end.retryAfterMs !== null) {
      if (end.retryAfterMs > this.#maxMs) cappedFromMs = end.retryAfterMs;
      delayMs = Math.max(delayMs, Math.min(end.retryAfterMs, this.#maxMs));
    }
    return { failures: this.#failures, delayMs, cappedFromMs };
  }
}
