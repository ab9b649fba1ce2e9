import { CancelledError } from "./errors.js";
import { type HeaderSource, readRateLimitHeaders } from "./rateLimit.js";

/**
 * One request budget per key (DESIGN rule 10): every request and every stream opening of
 * that key draws from it, so ten panes or a fleet of fifty streams never cause a 429 storm.
 *
 * It is a token bucket shaped like the server's limit: at most `burst` requests at once,
 * refilled at `limit` per window. The figures start at what the real service documents
 * (100 requests a minute, burst 20) and follow what responses say: X-RateLimit-Limit sets the
 * rate, X-RateLimit-Burst (when a server sends it) the burst, X-RateLimit-Remaining caps what
 * may go now (another process may share the key), and Remaining 0 holds everything for two
 * tokens' time; the request after it shows whether the figure is true (a 429, whose
 * Retry-After then holds everything) or only a hint (served anyway: from then on Remaining is
 * ignored and only 429s slow us down). The refill clock restarts with the first answer. The window is taken as a minute unless a Reset says it is longer.
 *
 * A 429 anywhere slows everything: nothing goes until its Retry-After has passed (then one
 * request may go, as the server said it would take one), the tokens are spent, and the
 * refill rate halves (down to an eighth), doubling back every quarter window without another
 * 429.
 *
 * Requests go before stream openings (a key press should not wait behind fifty streams), and
 * streams leave a couple of tokens for them. A request never waits longer than its caller
 * allows (the client's longest retry delay); then it goes, and the server decides.
 */

export type BudgetUse = "request" | "stream";

export interface BudgetFigures {
  /** Requests per window. */
  limit: number;
  windowMs: number;
  /** Most requests at once. */
  burst: number;
  /** "default": nothing learned from the server yet. */
  source: "default" | "server";
}

export interface BudgetState {
  readonly figures: BudgetFigures;
  /** Whole tokens available now. */
  readonly available: number;
  /** Callers waiting for a token, by use. */
  readonly waitingRequests: number;
  readonly waitingStreams: number;
  /** Nothing goes before this time (after a 429 or Remaining 0), or null. */
  readonly heldUntil: number | null;
  /** Share of the normal refill rate (1 normally; less after a 429). */
  readonly pace: number;
  /** Tokens handed out so far. */
  readonly granted: number;
  /** 429 answers seen so far. */
  readonly limited: number;
}

/** The clock and timers the budget runs on (injectable: tests drive it by hand). */
export interface BudgetClock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const DEFAULT_BUDGET: Readonly<Pick<BudgetFigures, "limit" | "windowMs" | "burst">> = {
  limit: 100,
  windowMs: 60_000,
  burst: 20,
};

const MIN_PACE = 1 / 8;

const REAL_CLOCK: BudgetClock = {
  now: Date.now,
  // Ref'd: the timer exists only while someone waits, and a waiting caller is work. Were it
  // unref'd, a headless command waiting for its next page would be dropped by Node mid-output.
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (h) => clearTimeout(h as NodeJS.Timeout),
};

interface Waiter {
  use: BudgetUse;
  /** Goes anyway at this time (null: waits as long as it takes). */
  deadline: number | null;
  resolve: (ticket: number) => void;
  reject: (e: unknown) => void;
  cleanup: () => void;
}

export interface RequestBudgetOptions {
  /** Figures before any response has said otherwise. */
  defaults?: Partial<Pick<BudgetFigures, "limit" | "windowMs" | "burst">>;
  clock?: BudgetClock;
}

/** Past this many requests a window, the window's count is left to the bucket alone. */
const MAX_WINDOW_KEPT = 1000;
const WINDOW_MARGIN_MS = 250;

export class RequestBudget {
  #figures: BudgetFigures;
  #tokens: number;
  #at: number;
  #heldUntil = 0;
  #pace = 1;
  #recoverAt = 0;
  /** After a 429: when its hold ends, one request may go (the server said it would take it). */
  #oneAfterHold = false;
  /**
   * That one may be anyone's, a stream opening's too: the reserve streams leave for requests
   * does not apply to it, or a lone stream after a 429 would wait for tokens nobody uses.
   */
  #oneForAnyone = false;
  #granted = 0;
  #limited = 0;
  /**
   * X-RateLimit-Remaining 0 holds everything until the reset, unless the service has shown
   * the figure is only a hint: a request granted after a "0 left" answer succeeded anyway.
   * From then on only its 429s slow us down.
   */
  #trustZero = true;
  /** The ticket of the last grant when a "0 left" answer came, or -1. */
  #zeroAtTicket = -1;
  /** When the service said that "0 left" ends (its X-RateLimit-Reset). */
  #zeroResetAt = 0;
  /** The last ticket granted after a "0 left" answer but before its reset. */
  #lastEarlyTicket = -1;
  /**
   * The refill clock restarts with the first answer: the service's own bucket starts draining
   * when our first request reaches it, which is later than when we made the budget (a
   * connection, a TLS handshake). Refilling from our start would run ahead of it and earn a
   * 429 on the first token after the burst.
   */
  #started = false;
  /**
   * When the last `limit` grants went, oldest first: the service allows at most `limit`
   * requests in any window, which a bucket refilling at limit per window alone would pass
   * (its burst on top of a window's refill). Not kept for limits past MAX_WINDOW_KEPT.
   */
  readonly #grants: number[] = [];
  readonly #clock: BudgetClock;
  readonly #queue: Waiter[] = [];
  #timer: unknown = null;
  #timerAt = Number.POSITIVE_INFINITY;
  readonly #listeners = new Set<() => void>();

  constructor(opts: RequestBudgetOptions = {}) {
    this.#clock = opts.clock ?? REAL_CLOCK;
    const d = { ...DEFAULT_BUDGET, ...opts.defaults };
    this.#figures = { ...d, burst: Math.min(d.burst, d.limit), source: "default" };
    this.#tokens = this.#figures.burst;
    this.#at = this.#clock.now();
  }

  /** Tokens a stream opening leaves for requests. */
  get #reserve(): number {
    return Math.min(2, Math.floor(this.#figures.burst / 10));
  }

  /** As of now (tokens refill as time passes, so this is read afresh each time). */
  get state(): BudgetState {
    const now = this.#clock.now();
    this.#refill(now);
    let requests = 0;
    for (const w of this.#queue) if (w.use === "request") requests++;
    return {
      figures: this.#figures,
      available: Math.max(0, Math.floor(this.#tokens)),
      waitingRequests: requests,
      waitingStreams: this.#queue.length - requests,
      heldUntil: this.#heldUntil > now ? this.#heldUntil : null,
      pace: this.#pace,
      granted: this.#granted,
      limited: this.#limited,
    };
  }

  subscribe(fn: () => void): () => void {
    this.#listeners.add(fn);
    return () => {
      this.#listeners.delete(fn);
    };
  }

  /**
   * Roughly how long a caller asking now would wait (0: it goes at once): for announcing a
   * wait before it starts. Callers already waiting go first.
   */
  expectedWaitMs(use: BudgetUse): number {
    const now = this.#clock.now();
    this.#refill(now);
    if (this.#queue.length === 0 && this.#canGrant(use, now)) return 0;
    // Requests go before stream openings: a request waits only for the requests ahead of it.
    let ahead = this.#queue.length;
    if (use === "request") ahead = this.#queue.filter((w) => w.use === "request").length;
    const tokens = this.#oneAfterHold ? Math.max(this.#tokens, 1) : this.#tokens;
    const need = ahead + this.#need(use) - tokens;
    const perMs = (this.#figures.limit / this.#figures.windowMs) * this.#pace;
    const bucket = Math.max(0, this.#heldUntil - now) + Math.max(0, Math.ceil(need / perMs));
    return Math.max(bucket, this.#windowFreeAt() - now);
  }

  /**
   * Wait for a token. `maxWaitMs` bounds the wait (the request then goes anyway); a signal
   * that aborts rejects with CancelledError and gives the place up. Resolves to the grant's
   * ticket, which observe() is given with the answer.
   */
  acquire(use: BudgetUse, signal?: AbortSignal, maxWaitMs?: number): Promise<number> {
    if (signal?.aborted) return Promise.reject(new CancelledError("cancelled while pacing"));
    const now = this.#clock.now();
    this.#refill(now);
    if (this.#queue.length === 0 && this.#canGrant(use, now)) {
      return Promise.resolve(this.#take());
    }
    return new Promise<number>((resolve, reject) => {
      const w: Waiter = {
        use,
        deadline: maxWaitMs === undefined ? null : now + Math.max(0, maxWaitMs),
        resolve,
        reject,
        cleanup: () => {},
      };
      if (signal) {
        const onAbort = () => {
          const i = this.#queue.indexOf(w);
          if (i >= 0) this.#queue.splice(i, 1);
          reject(new CancelledError("cancelled while pacing"));
          this.#changed();
          this.#pump();
        };
        signal.addEventListener("abort", onAbort, { once: true });
        w.cleanup = () => signal.removeEventListener("abort", onAbort);
      }
      // Requests before streams; first come, first served within each.
      const at =
        use === "request" ? this.#queue.findIndex((x) => x.use === "stream") : this.#queue.length;
      this.#queue.splice(at < 0 ? this.#queue.length : at, 0, w);
      this.#changed();
      this.#pump();
    });
  }

  /**
   * Learn from a response's rate-limit headers. On a 429 (`limited`) the Retry-After given to
   * penalize() decides the wait, not Remaining and Reset. `ticket` is the grant the request
   * went with (acquire's result), when known.
   */
  observe(headers: HeaderSource, limited = false, ticket?: number): void {
    const now = this.#clock.now();
    if (!this.#started) {
      // What accrued before the first answer is dropped: the service's bucket only started
      // when our first request reached it.
      this.#started = true;
      this.#at = Math.max(this.#at, now);
    }
    if (
      !limited &&
      this.#trustZero &&
      ticket !== undefined &&
      ticket > this.#zeroAtTicket &&
      ticket <= this.#lastEarlyTicket
    ) {
      // Sent while the service said "0 left", and served: the figure is only a hint.
      this.#trustZero = false;
    }
    const h = readRateLimitHeaders(headers, now);
    if (h === null) {
      this.#changed();
      this.#pump();
      return;
    }
    this.#refill(now);
    const f = { ...this.#figures };
    let learned = false;
    if (h.limit !== null && h.limit >= 1) {
      f.limit = h.limit;
      learned = true;
    }
    if (h.resetSeconds !== null && h.resetSeconds * 1000 > f.windowMs) {
      f.windowMs = h.resetSeconds * 1000;
    }
    if (h.burst !== null && h.burst >= 1) {
      f.burst = h.burst;
      learned = true;
    } else if (learned) f.burst = DEFAULT_BUDGET.burst;
    f.burst = Math.max(1, Math.min(f.burst, f.limit));
    if (learned) f.source = "server";
    if (
      f.limit !== this.#figures.limit ||
      f.windowMs !== this.#figures.windowMs ||
      f.burst !== this.#figures.burst ||
      f.source !== this.#figures.source
    ) {
      this.#figures = f;
      this.#tokens = Math.min(this.#tokens, f.burst);
    }
    if (h.remaining !== null && this.#trustZero) {
      this.#tokens = Math.min(this.#tokens, h.remaining);
      if (h.remaining === 0 && !limited) {
        // A short hold, not the whole way to the reset: the next request then goes while the
        // service still says "0 left". A 429 (with its Retry-After) proves the figure right; a
        // success shows it is only a hint (a service that keeps saying 0), trusted no more.
        const resetMs = h.resetSeconds !== null ? h.resetSeconds * 1000 : this.#interval();
        this.#heldUntil = Math.max(this.#heldUntil, now + Math.min(resetMs, 2 * this.#interval()));
        this.#zeroAtTicket = this.#granted;
        this.#zeroResetAt = now + resetMs;
      }
    }
    this.#changed();
    this.#pump();
  }

  /** A 429: hold everything for its Retry-After (or a while), then go slower for a while. */
  penalize(retryAfterMs: number | null): void {
    const now = this.#clock.now();
    this.#refill(now);
    this.#limited++;
    const wait = retryAfterMs !== null ? retryAfterMs : Math.max(1000, 2 * this.#interval());
    this.#heldUntil = Math.max(this.#heldUntil, now + wait);
    this.#tokens = Math.min(this.#tokens, 0);
    this.#oneAfterHold = true;
    this.#pace = Math.max(MIN_PACE, this.#pace / 2);
    this.#recoverAt = this.#heldUntil + this.#figures.windowMs / 4;
    this.#changed();
    this.#pump();
  }

  /** Ms between two tokens at the normal rate. */
  #interval(): number {
    return this.#figures.windowMs / this.#figures.limit;
  }

  #refill(now: number): void {
    if (this.#pace < 1 && now >= this.#recoverAt) {
      // Recover in steps, each after a quarter window without another 429.
      const steps = 1 + Math.floor((now - this.#recoverAt) / (this.#figures.windowMs / 4));
      this.#pace = Math.min(1, this.#pace * 2 ** steps);
      this.#recoverAt = now + this.#figures.windowMs / 4;
    }
    const from = Math.max(this.#at, Math.min(now, this.#heldUntil));
    if (now > from) {
      const perMs = (this.#figures.limit / this.#figures.windowMs) * this.#pace;
      this.#tokens = Math.min(this.#figures.burst, this.#tokens + (now - from) * perMs);
    }
    if (this.#oneAfterHold && now >= this.#heldUntil) {
      this.#oneAfterHold = false;
      this.#oneForAnyone = true;
      this.#tokens = Math.max(this.#tokens, 1);
    }
    this.#at = now;
  }

  #canGrant(use: BudgetUse, now: number): boolean {
    if (now < this.#heldUntil || now < this.#windowFreeAt()) return false;
    return this.#tokens >= this.#need(use);
  }

  /** When one more grant keeps to `limit` in any window (0: now). */
  #windowFreeAt(): number {
    const { limit, windowMs } = this.#figures;
    if (limit > MAX_WINDOW_KEPT || this.#grants.length < limit) return 0;
    // A little over the window: the service counts arrivals, which come after our grants.
    return (this.#grants[this.#grants.length - limit] as number) + windowMs + WINDOW_MARGIN_MS;
  }

  /** Tokens that must be there for `use` to go (streams leave a reserve for requests). */
  #need(use: BudgetUse): number {
    const spare = this.#oneAfterHold || this.#oneForAnyone;
    return 1 + (use === "stream" && !spare ? this.#reserve : 0);
  }

  #take(): number {
    this.#tokens -= 1;
    if (this.#figures.limit <= MAX_WINDOW_KEPT) {
      this.#grants.push(this.#clock.now());
      const extra = this.#grants.length - this.#figures.limit;
      if (extra > 0) this.#grants.splice(0, extra);
    }
    this.#oneForAnyone = false;
    this.#granted++;
    if (this.#clock.now() < this.#zeroResetAt) this.#lastEarlyTicket = this.#granted;
    this.#changed();
    return this.#granted;
  }

  /** Hand out what can go now, and set the timer for the next moment something can. */
  #pump(): void {
    const now = this.#clock.now();
    this.#refill(now);
    for (let i = 0; i < this.#queue.length; ) {
      const w = this.#queue[i] as Waiter;
      const overdue = w.deadline !== null && now >= w.deadline;
      if (overdue || this.#canGrant(w.use, now)) {
        this.#queue.splice(i, 1);
        w.cleanup();
        w.resolve(this.#take());
        continue;
      }
      // A request that cannot go yet holds the streams behind it; later requests go first.
      if (w.use === "request") {
        i++;
        continue;
      }
      break;
    }
    this.#schedule(now);
  }

  #schedule(now: number): void {
    let next = Number.POSITIVE_INFINITY;
    const head = this.#queue[0];
    if (head) {
      const tokens = this.#oneAfterHold ? Math.max(this.#tokens, 1) : this.#tokens;
      const need = this.#need(head.use) - tokens;
      const perMs = (this.#figures.limit / this.#figures.windowMs) * this.#pace;
      const start = Math.max(now, this.#heldUntil);
      next = Math.max(start + Math.max(0, Math.ceil(need / perMs)), this.#windowFreeAt());
      for (const w of this.#queue) if (w.deadline !== null) next = Math.min(next, w.deadline);
    }
    if (next === this.#timerAt) return;
    if (this.#timer !== null) this.#clock.clearTimer(this.#timer);
    this.#timer = null;
    this.#timerAt = next;
    if (next === Number.POSITIVE_INFINITY) return;
    this.#timer = this.#clock.setTimer(
      () => {
        this.#timer = null;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#pump();
      },
      Math.max(0, next - now),
    );
  }

  #changed(): void {
    for (const fn of [...this.#listeners]) fn();
  }
}
