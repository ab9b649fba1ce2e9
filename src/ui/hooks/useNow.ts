import { createContext, useContext, useEffect, useState } from "react";

/** The clock the UI reads (injectable, so snapshot frames can be deterministic). */
export const NowContext = createContext<() => number>(Date.now);

export function useClock(): () => number {
  return useContext(NowContext);
}

/**
 * The current time, refreshed every `intervalMs` while active. Only the components that
 * show a countdown use it, so a tick re-renders titles and the header, never the timelines.
 */
export function useNow(intervalMs = 1000, active = true): number {
  const now = useContext(NowContext);
  const [t, setT] = useState(now);
  useEffect(() => {
    if (!active) return;
    setT(now());
    const id = setInterval(() => setT(now()), intervalMs);
    return () => clearInterval(id);
  }, [now, intervalMs, active]);
  return active ? t : now();
}
