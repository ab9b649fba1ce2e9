import { afterInputTimer } from "../../store/backgroundTimers.js";

/**
 * A store subscription that tells its listeners at most once per `ms`: for views that show a
 * summary of fast-changing stores (the fleet table over fifty busy streams), where redrawing
 * on every batch of events would cost more than it shows.
 *
 * While changes keep coming, listeners are told on a steady beat of `ms` (a late timer is
 * made up on the next beat, so a busy view refreshes at its rate and not a little below it);
 * after a quiet spell the first change is told at once. Every listener is told in the same
 * call, so the components that share one are rendered in one React batch: one frame, not one
 * each. A view that read the store anyway (it drew for a key or the clock) says so with
 * `caughtUp`, and the next beat is a whole beat later: no second frame right after the first.
 *
 * A beat is told after the event loop's next poll for input (afterInputTimer): a key that
 * came while the last frame was drawn is read and drawn first, not behind the beat's frame.
 */
export interface Throttled {
  subscribe(fn: () => void): () => void;
  /** The listeners have read the store just now: what changed so far needs no beat. */
  caughtUp(): void;
}

export function throttled(subscribe: (fn: () => void) => () => void, ms: number): Throttled {
  const listeners = new Set<() => void>();
  let off: (() => void) | null = null;
  /** Cancels the pending beat; null when none is pending. */
  let pending: (() => void) | null = null;
  /** When listeners last read the store (the beat it was due on, when told by the timer). */
  let last = Number.NEGATIVE_INFINITY;
  const cancel = () => {
    pending?.();
    pending = null;
  };
  const tell = (at: number) => {
    pending = null;
    last = at;
    for (const fn of [...listeners]) fn();
  };
  const changed = () => {
    if (pending !== null) return;
    const now = performance.now();
    const due = last + ms;
    if (due <= now) {
      // A quiet spell (or a beat missed by more than a beat): at once, and the beat restarts.
      tell(due + ms <= now ? now : due);
      return;
    }
    pending = afterInputTimer(() => tell(due), due - now);
  };
  return {
    subscribe(fn) {
      listeners.add(fn);
      if (off === null) off = subscribe(changed);
      return () => {
        listeners.delete(fn);
        if (listeners.size > 0) return;
        cancel();
        off?.();
        off = null;
      };
    },
    caughtUp() {
      cancel();
      // Read on a beat (its listeners read at once): the beat keeps its time, so it keeps its rate.
      const now = performance.now();
      if (now - last >= ms / 2) last = now;
    },
  };
}
