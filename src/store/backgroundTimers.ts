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

/**
 * A timer for what draws a frame when it fires (a view's beat): `fn` runs once `ms` passed
 * and the event loop has polled for input since (setTimeout, then setImmediate). A timer
 * fires before the loop reads input, so a key that came while the last frame was drawn would
 * otherwise wait for this frame too before its own. Returns the cancel.
 */
export function afterInputTimer(fn: () => void, ms: number): () => void {
  let immediate: NodeJS.Immediate | null = null;
  let timer: NodeJS.Timeout | null = setTimeout(() => {
    timer = null;
    immediate = setImmediate(() => {
      immediate = null;
      fn();
    });
  }, ms);
  return () => {
    if (timer !== null) clearTimeout(timer);
    if (immediate !== null) clearImmediate(immediate);
    timer = null;
    immediate = null;
  };
}
