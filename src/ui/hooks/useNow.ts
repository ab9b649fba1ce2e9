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
 */
export function useTicked<T>(
  derive: (now: number) => T,
  subscribeOther?: (listener: Listener) => () => void,
  equal: (a: T, b: T) => boolean = Object.is,
): T {
  const ticker = useTicker();
  const cache = useRef<{ value: T } | null>(null);
  const subscribe = useCallback(
    (listener: Listener) => {
      const offTick = ticker.subscribe(listener);
      const offOther = subscribeOther?.(listener);
      return () => {
        offTick();
        offOther?.();
      };
    },
    [ticker, subscribeOther],
  );
  const getSnapshot = (): T => {
    const next = derive(ticker.now());
    const prev = cache.current;
    if (prev !== null && equal(prev.value, next)) return prev.value;
    cache.current = { value: next };
    return next;
  };
  return useSyncExternalStore(subscribe, getSnapshot);
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
