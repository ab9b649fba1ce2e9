import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useRef,
  useState,
  useSyncExternalStore,
} from "react";

/** The clock the UI reads (injectable, so snapshot frames can be deterministic). */
export const NowContext = createContext<() => number>(Date.now);

/** How often the shared tick reads the clock. Everything the UI shows by the second uses it. */
export const TICK_MS = 1000;

type Listener = () => void;

/**
 * One 1 s tick for the whole UI. Each component running a timer of its own would re-render at
 * its own moment, and every one of those moments costs a full Ink frame; one tick makes every
 * time-derived value change in the same React batch, and `useTicked` skips the components
 * whose output did not change at all.
 */
export class UiTicker {
  private readonly listeners = new Set<Listener>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private last: number;

  constructor(
    private readonly read: () => number,
    private readonly intervalMs = TICK_MS,
  ) {
    this.last = read();
  }

  /** The time of the last tick (read afresh when the first listener subscribes). */
  readonly now = (): number => this.last;

  readonly subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    if (this.timer === null) {
      this.last = this.read();
      this.timer = setInterval(this.tick, this.intervalMs);
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer !== null) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  };

  private readonly tick = (): void => {
    this.last = this.read();
    for (const l of [...this.listeners]) l();
  };
}

// One ticker per clock function: every component of an app (all reading the same NowContext)
// shares it without the app having to create and pass it.
const tickers = new WeakMap<() => number, UiTicker>();

export function useTicker(): UiTicker {
  const read = useContext(NowContext);
  let t = tickers.get(read);
  if (!t) {
    t = new UiTicker(read);
    tickers.set(read, t);
  }
  return t;
}

/**
 * A value derived from the time of the shared tick (and from whatever else `derive` reads),
 * recomputed on every tick and on every change `subscribeOther` reports. The component
 * re-renders only when the result differs by `equal` (default Object.is): a title showing
 * "♥ 0s" second after second is not rendered again.
 *
 * With `inputs` (everything `derive` reads besides the time and the subscribed stores), the
 * value is derived only when a subscription has reported a change since the last derive or an
 * input differs (Object.is, element by element); otherwise React's reads between those (its
 * render, its check after the commit) get the last value. A view whose stores change on every
 * event (the fleet over a hundred streams) then reads them on its beat and on its keys, not
 * once more after each frame it draws: such a read finds what came during the frame and draws
 * another frame out of the beat.
 */
export function useTicked<T>(
  derive: (now: number) => T,
  subscribeOther?: (listener: Listener) => () => void,
  equal: (a: T, b: T) => boolean = Object.is,
  inputs?: readonly unknown[],
): T {
  const ticker = useTicker();
  const cache = useRef<{ value: T; inputs: readonly unknown[] | undefined } | null>(null);
  /** A subscription reported a change that the cached value has not taken in. */
  const stale = useRef(true);
  const subscribe = useCallback(
    (listener: Listener) => {
      // What changed while nothing listened is not known: read afresh.
      stale.current = true;
      const changed = () => {
        stale.current = true;
        listener();
      };
      const offTick = ticker.subscribe(changed);
      const offOther = subscribeOther?.(changed);
      return () => {
        offTick();
        offOther?.();
      };
    },
    [ticker, subscribeOther],
  );
  const getSnapshot = (): T => {
    const prev = cache.current;
    if (inputs && prev !== null && !stale.current && sameInputs(prev.inputs, inputs)) {
      return prev.value;
    }
    stale.current = false;
    const next = derive(ticker.now());
    if (prev !== null && equal(prev.value, next)) {
      cache.current = { value: prev.value, inputs };
      return prev.value;
    }
    cache.current = { value: next, inputs };
    return next;
  };
  return useSyncExternalStore(subscribe, getSnapshot);
}

function sameInputs(a: readonly unknown[] | undefined, b: readonly unknown[]): boolean {
  if (a === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

/**
 * The current time, refreshed every `intervalMs` while active. At the default 1 s it is the
 * shared tick (so it re-renders with everything else that ticks); faster rates (a spinner)
 * run a timer of their own only while active.
 */
export function useNow(intervalMs = TICK_MS, active = true): number {
  const ticker = useTicker();
  const now = useContext(NowContext);
  const shared = active && intervalMs === TICK_MS;
  const own = active && !shared;
  const subscribe = useCallback(
    (listener: Listener) => (shared ? ticker.subscribe(listener) : () => {}),
    [ticker, shared],
  );
  const tick = useSyncExternalStore(subscribe, shared ? ticker.now : zero);
  const [t, setT] = useState(now);
  useEffect(() => {
    if (!own) return;
    setT(now());
    const id = setInterval(() => setT(now()), intervalMs);
    return () => clearInterval(id);
  }, [now, intervalMs, own]);
  if (shared) return tick;
  return own ? t : now();
}

const zero = (): number => 0;
