import type { BudgetState } from "../client/requestBudget.js";
import { BACKGROUND_TIMERS, type Timers } from "./backgroundTimers.js";
import type { SessionsStore } from "./sessionsStore.js";

/**
 * The live list: when the session list is read again. Every `baseMs` (15 s) by default,
 * slower when the request budget runs low (streams waiting for it, a 429 lately, nothing
 * left) or the window is idle (no key for a while), and at once (coalesced) after a git action
 * or a state change seen on a stream. Plain TypeScript on injectable timers; the list itself
 * (keeping selection, "updated 4 s ago") is the sessions store's and the UI's.
 */

export type LiveListTimers = Timers;

export interface LiveListOptions {
  sessions: Pick<SessionsStore, "getState">;
  /** The key's request budget (what it says decides how fast to go). */
  budget?: { readonly state: BudgetState };
  /** Default 15000. */
  baseMs?: number;
  /** No key for this long means the window is idle. Default 120000. */
  idleAfterMs?: number;
  /** A poke waits this long for others to join it. Default 500. */
  coalesceMs?: number;
  /** Two refreshes never start closer than this. Default 2000. */
  minGapMs?: number;
  timers?: LiveListTimers;
}

/** The slowest cadence, whatever slows it. */
const MAX_FACTOR = 8;

export type RefreshReason = "timer" | "poke";

export class LiveList {
  readonly #o: Required<Omit<LiveListOptions, "budget" | "timers">> &
    Pick<LiveListOptions, "budget">;
  readonly #t: LiveListTimers;
  #timer: unknown = null;
  #dueAt: number | null = null;
  #running = false;
  #lastStart = Number.NEGATIVE_INFINITY;
  #lastActivity: number;
  #pokes: string[] = [];
  /** Refreshes started so far, by reason (tests count them). */
  readonly counts = { timer: 0, poke: 0 };

  constructor(opts: LiveListOptions) {
    this.#t = opts.timers ?? BACKGROUND_TIMERS;
    this.#o = {
      sessions: opts.sessions,
      budget: opts.budget,
      baseMs: opts.baseMs ?? 15_000,
      idleAfterMs: opts.idleAfterMs ?? 120_000,
      coalesceMs: opts.coalesceMs ?? 500,
      minGapMs: opts.minGapMs ?? 2_000,
    };
    this.#lastActivity = this.#t.now();
  }

  get running(): boolean {
    return this.#running;
  }

  /** When the next refresh is due (ms since epoch), or null when stopped. */
  get dueAt(): number | null {
    return this.#dueAt;
  }

  start(): void {
    this.#running = true;
    this.#schedule(this.delayMs());
  }

  stop(): void {
    this.#running = false;
    this.#cancel();
  }

  /** A key was pressed: the window is in use (an idle cadence speeds up again). */
  activity(): void {
    const idle = this.#idle();
    this.#lastActivity = this.#t.now();
    if (idle && this.#running) this.#schedule(this.delayMs());
  }

  /** Something changed (a git action ended, a stream saw a state change): refresh soon. */
  poke(reason: string): void {
    if (!this.#running) return;
    this.#pokes.push(reason);
    const now = this.#t.now();
    const at = Math.max(now + this.#o.coalesceMs, this.#lastStart + this.#o.minGapMs);
    if (this.#dueAt === null || at < this.#dueAt) this.#schedule(at - now);
  }

  /** The wait before the next timed refresh, as things stand now. */
  delayMs(): number {
    let factor = 1;
    const b = this.#o.budget?.state;
    if (b) {
      if (b.heldUntil !== null) factor *= 4;
      else if (b.pace < 1) factor *= 2;
      // Streams still waiting for their turn, or nearly nothing left: leave it to them.
      if (b.waitingStreams > 0 || b.available < b.figures.burst / 4) factor *= 2;
    }
    if (this.#idle()) factor *= 4;
    return this.#o.baseMs * Math.min(MAX_FACTOR, factor);
  }

  #idle(): boolean {
    return this.#t.now() - this.#lastActivity >= this.#o.idleAfterMs;
  }

  #cancel(): void {
    if (this.#timer !== null) this.#t.clearTimer(this.#timer);
    this.#timer = null;
    this.#dueAt = null;
  }

  #schedule(ms: number): void {
    this.#cancel();
    if (!this.#running) return;
    this.#dueAt = this.#t.now() + ms;
    this.#timer = this.#t.setTimer(() => {
      this.#timer = null;
      this.#dueAt = null;
      void this.#fire();
    }, ms);
  }

  async #fire(): Promise<void> {
    const reason: RefreshReason = this.#pokes.length > 0 ? "poke" : "timer";
    this.#pokes = [];
    this.#lastStart = this.#t.now();
    this.counts[reason]++;
    try {
      await this.#o.sessions.getState().refreshLive();
    } finally {
      // Planned from when it ended, so a slow service is not asked again at once.
      if (this.#running && this.#dueAt === null) this.#schedule(this.delayMs());
    }
  }
}
