/**
 * A store subscription that tells its listeners at most once per `ms`: for views that show a
 * summary of fast-changing stores (the fleet table over fifty busy streams), where redrawing
 * on every batch of events would cost more than it shows.
 *
 * While changes keep coming, listeners are told on a steady beat of `ms` (a late timer is
 * made up on the next beat, so a busy view refreshes at its rate and not a little below it);
 * after a quiet spell the first change is told at once. Every listener is told in the same
 * call, so the components that share one are rendered in one React batch: one frame, not one
 * each.
 */
export function throttled(
  subscribe: (fn: () => void) => () => void,
  ms: number,
): (fn: () => void) => () => void {
  const listeners = new Set<() => void>();
  let off: (() => void) | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  /** When listeners were last told (the beat it was due on, when told by the timer). */
  let last = Number.NEGATIVE_INFINITY;
  const tell = (at: number) => {
    timer = null;
    last = at;
    for (const fn of [...listeners]) fn();
  };
  const changed = () => {
    if (timer !== null) return;
    const now = performance.now();
    const due = last + ms;
    if (due <= now) {
      // A quiet spell (or a beat missed by more than a beat): at once, and the beat restarts.
      tell(due + ms <= now ? now : due);
      return;
    }
    timer = setTimeout(() => tell(due), due - now);
  };
  return (fn) => {
    listeners.add(fn);
    if (off === null) off = subscribe(changed);
    return () => {
      listeners.delete(fn);
      if (listeners.size > 0) return;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      off?.();
      off = null;
    };
  };
}
