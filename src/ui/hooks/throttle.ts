/**
 * A store subscription that tells its listener at most once per `ms`: for views that show a
 * summary of fast-changing stores (the fleet table over fifty busy streams), where redrawing
 * on every batch of events would cost more than it shows.
 */
export function throttled(
  subscribe: (fn: () => void) => () => void,
  ms: number,
): (fn: () => void) => () => void {
  return (fn) => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const off = subscribe(() => {
      if (timer !== null) return;
      timer = setTimeout(() => {
        timer = null;
        fn();
      }, ms);
    });
    return () => {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      off();
    };
  };
}
