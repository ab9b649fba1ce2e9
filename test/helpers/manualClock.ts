/**
 * A clock that moves only when a test advances it, for whatever takes its time and timers
 * from one (the request budget, the live list, the notifier): what runs at once, what waits
 * and for how long, with no real time passing.
 */
export class ManualClock {
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private ids = 0;

  constructor(public t = 0) {}

  now = () => this.t;

  setTimer(fn: () => void, ms: number): unknown {
    const id = ++this.ids;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  }

  clearTimer(h: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== h);
  }

  /** Timers set and not yet run (a caller waiting for its turn). */
  get pending(): number {
    return this.timers.length;
  }

  /**
   * Move the clock on, running every timer due on the way, in order, and letting the promise
   * callbacks each one sets off run before the next.
   */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (let guard = 0; guard < 10_000 && this.runNext(end); guard++) await flushMicrotasks();
    this.t = end;
    await flushMicrotasks();
  }

  /** Move the clock on, running every timer due on the way, in order, in this turn. */
  advanceNow(ms: number): void {
    const end = this.t + ms;
    for (let guard = 0; guard < 10_000 && this.runNext(end); guard++);
    this.t = end;
  }

  /** Runs the next timer due by `end`; false when there is none. */
  private runNext(end: number): boolean {
    this.timers.sort((a, b) => a.at - b.at);
    const next = this.timers[0];
    if (!next || next.at > end) return false;
    this.timers.shift();
    this.t = Math.max(this.t, next.at);
    next.fn();
    return true;
  }
}

/** Lets the promise callbacks a timer set off run. */
export async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}
