import { CancelledError } from "./errors.js";

/**
 * One AbortSignal that fires when any of the given ones does. Written by hand rather than
 * AbortSignal.any so a long-lived client signal does not collect a listener per request:
 * dispose() removes them.
 */
export function linkSignals(...signals: (AbortSignal | undefined)[]): {
  signal: AbortSignal;
  dispose: () => void;
} {
  const ctl = new AbortController();
  const cleanups: (() => void)[] = [];
  for (const s of signals) {
    if (!s) continue;
    if (s.aborted) {
      ctl.abort(s.reason);
      break;
    }
    const onAbort = () => ctl.abort(s.reason);
    s.addEventListener("abort", onAbort, { once: true });
    cleanups.push(() => s.removeEventListener("abort", onAbort));
  }
  return {
    signal: ctl.signal,
    dispose: () => {
      for (const c of cleanups) c();
    },
  };
}

/**
 * Resolve after `ms`, or reject with CancelledError as soon as `signal` aborts. The timer is
 * cleared on abort so a cancelled wait never keeps the process alive.
 */
export function cancellableDelay(ms: number, signal: AbortSignal, what = "waiting"): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new CancelledError(`cancelled while ${what}`));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new CancelledError(`cancelled while ${what}`));
    };
    const timer = setTimeout(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
