import type { BudgetClock } from "../../src/client/requestBudget.js";

/**
 * A request budget's clock that moves only when a test advances it: what goes at once, what
 * waits and for how long, with no real time passing.
 */
export class ManualBudgetClock implements BudgetClock {
  t = 1_000_000;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private ids = 0;
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
  /** Move the clock on, running every timer due on the way, in order. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (let guard = 0; guard < 10_000; guard++) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = Math.max(this.t, next.at);
      next.fn();
      await flushMicrotasks();
    }
    this.t = end;
    await flushMicrotasks();
  }
}

/** Lets the promise callbacks a timer set off run. */
export async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}
