import { createStore, type StoreApi } from "zustand/vanilla";
import type { RateLimitTracker, RetryWait } from "../client/rateLimit.js";
import type { RateLimitInfo } from "../protocol/rateLimit.js";

/** The client's rate-limit figures and retry waits, mirrored for the header. */
export interface RateLimitState {
  readonly info: RateLimitInfo | null;
  readonly waiting: RetryWait | null;
}

export interface RateLimitStore extends StoreApi<RateLimitState> {
  /** Stop mirroring the tracker. */
  dispose(): void;
}

export function createRateLimitStore(tracker: RateLimitTracker): RateLimitStore {
  const store = createStore<RateLimitState>()(() => ({
    info: tracker.info,
    waiting: tracker.waiting,
  }));
  // The tracker replaces its values rather than mutating them, so identity tells change.
  const unsubscribe = tracker.subscribe(() => {
    const s = store.getState();
    if (s.info !== tracker.info || s.waiting !== tracker.waiting) {
      store.setState({ info: tracker.info, waiting: tracker.waiting });
    }
  });
  return Object.assign(store, { dispose: unsubscribe });
}
