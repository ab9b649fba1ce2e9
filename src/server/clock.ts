/**
 * The simulator's time. The system clock is real time (the demo, `serve`); a manual clock
 * stands still until a test advances it, so what the simulated sessions do depends on the
 * seed and on how far the test moved the clock, never on how busy the machine is.
 */
export interface Clock {
  now(): number;
  /** Calls fn once the clock reaches now() + ms; returns a handle for cancel(). */
  schedule(fn: () => void, ms: number): unknown;
  cancel(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  schedule: (fn, ms) => setTimeout(fn, ms),
  cancel: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
}

/** A clock that moves only when advance() is called; due callbacks run in time order. */
export class ManualClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #pending = new Set<Pending>();

  /** Starts at `start` (default: the real time when it is made). */
  constructor(start = Date.now()) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  schedule(fn: () => void, ms: number): unknown {
    const p: Pending = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn };
    this.#pending.add(p);
    return p;
  }

  cancel(handle: unknown): void {
    this.#pending.delete(handle as Pending);
  }

  /**
   * Moves the clock ms forward, running every callback that falls due on the way (those it
   * schedules included), each at its own time. Returns the new time.
   */
  advance(ms: number): number {
    if (!(Number.isFinite(ms) && ms >= 0)) throw new RangeError("advance takes ms >= 0");
    const until = this.#now + ms;
    for (;;) {
      let next: Pending | null = null;
      for (const p of this.#pending) {
        if (p.at <= until && (!next || p.at < next.at || (p.at === next.at && p.seq < next.seq))) {
          next = p;
        }
      }
      if (!next) break;
      this.#pending.delete(next);
      this.#now = Math.max(this.#now, next.at);
      next.fn();
    }
    this.#now = until;
    return until;
  }
}
