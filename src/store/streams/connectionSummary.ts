import type { StreamsState } from "./streamsStore.js";

/**
 * The header's one global connection indicator, derived from every open stream. Worst state
 * wins: one reconnecting pane makes the whole indicator say so, "live" only when all are.
 */
export type ConnectionState = "idle" | "connecting" | "live" | "reconnecting" | "error" | "stopped";

export interface ConnectionSummary {
  state: ConnectionState;
  total: number;
  live: number;
  connecting: number;
  reconnecting: number;
  /** Stopped on an error. */
  failed: number;
  /** Stopped cleanly (closed, stream ended). */
  stopped: number;
  /** Soonest retry among reconnecting streams (ms since epoch), for a countdown. */
  nextRetryAt: number | null;
}

const cache = new WeakMap<StreamsState["sessions"], ConnectionSummary>();

/** Memoised on the sessions object, so it is safe as a zustand selector. */
export function selectConnectionSummary(s: Pick<StreamsState, "sessions">): ConnectionSummary {
  const hit = cache.get(s.sessions);
  if (hit) return hit;
  const sum: ConnectionSummary = {
    state: "idle",
    total: 0,
    live: 0,
    connecting: 0,
    reconnecting: 0,
    failed: 0,
    stopped: 0,
    nextRetryAt: null,
  };
  for (const stream of Object.values(s.sessions)) {
    sum.total++;
    const st = stream.status;
    switch (st.state) {
      case "live":
        sum.live++;
        break;
      case "connecting":
        sum.connecting++;
        break;
      case "reconnecting":
        sum.reconnecting++;
        if (sum.nextRetryAt === null || st.retryAt < sum.nextRetryAt) sum.nextRetryAt = st.retryAt;
        break;
      case "stopped":
        if (st.error !== null) sum.failed++;
        else sum.stopped++;
        break;
    }
  }
  sum.state =
    sum.total === 0
      ? "idle"
      : sum.reconnecting > 0
        ? "reconnecting"
        : sum.failed > 0
          ? "error"
          : sum.connecting > 0
            ? "connecting"
            : sum.live > 0
              ? "live"
              : "stopped";
  cache.set(s.sessions, sum);
  return sum;
}
