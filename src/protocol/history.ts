/**
 * How a client and a server that keeps recent events agree on history, within the interface.
 *
 * The interface documents no replay. Many SSE services send a new subscriber (one without
 * Last-Event-ID) the recent events first; ours does. Two spec-legal signals go with it, both
 * ignored by any server or client that does not know them:
 *
 * - the client adds `?history=N` to the stream URL: "send me at most N earlier events" (its
 *   scrollback), and `history=0` on a reconnect, where it already has them. Servers ignore
 *   query parameters they do not know.
 * - the server writes the SSE comment `: history-end` once the history is written. Comments
 *   are invisible to EventSource and to clients that do not look for them.
 */

/** Query parameter of the event stream: most earlier events the client can hold. */
export const HISTORY_QUERY_PARAM = "history";

/** Text of the SSE comment (`: history-end`) that ends the history of a new subscriber. */
export const HISTORY_END_COMMENT = "history-end";

/** The value of `?history=`, or null when absent or not a non-negative integer. */
export function parseHistoryParam(raw: string | null): number | null {
  if (raw === null) return null;
  const t = raw.trim();
  return /^\d{1,9}$/.test(t) ? Number(t) : null;
}

/** A stream path with the history cap added. */
export function withHistoryParam(path: string, n: number): string {
  const sep = path.includes("?") ? "&" : "?";
  return `${path}${sep}${HISTORY_QUERY_PARAM}=${Math.max(0, Math.floor(n))}`;
}
