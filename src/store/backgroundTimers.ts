/**
 * A clock and one-shot timers, as the stores' cadences take them (the tests hand in timers
 * they move by hand). The real ones never keep a finished process alive: a cadence waits for
 * nothing a user asked for, so it must not hold a headless command or a quitting UI open.
 */
export interface Timers {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const BACKGROUND_TIMERS: Timers = {
  now: Date.now,
  setTimer: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimer: (h) => clearTimeout(h as NodeJS.Timeout),
};
