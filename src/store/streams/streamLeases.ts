/**
 * Who wants a session's stream open: its pane, the fleet view, or both. The stream opens
 * with the first holder and closes with the last, so closing a pane does not cut a stream
 * the fleet still shows, and the fleet letting a row go does not close a pane's stream.
 */

export type StreamHolder = "pane" | "fleet";

export interface StreamOpener {
  openStream(sessionId: string): void;
  closeStream(sessionId: string, opts?: { keep?: boolean }): void;
}

export class StreamLeases implements StreamOpener {
  readonly #inner: StreamOpener;
  readonly #holders = new Map<string, Set<StreamHolder>>();

  constructor(inner: StreamOpener) {
    this.#inner = inner;
  }

  /** The pane's side (what the UI's StreamControl calls). */
  openStream(sessionId: string): void {
    this.lease(sessionId, "pane");
  }

  closeStream(sessionId: string, opts?: { keep?: boolean }): void {
    this.release(sessionId, "pane", opts);
  }

  lease(sessionId: string, holder: StreamHolder): void {
    let set = this.#holders.get(sessionId);
    if (!set) {
      set = new Set();
      this.#holders.set(sessionId, set);
    }
    const first = set.size === 0;
    set.add(holder);
    if (first) this.#inner.openStream(sessionId);
  }

  release(sessionId: string, holder: StreamHolder, opts?: { keep?: boolean }): void {
    const set = this.#holders.get(sessionId);
    if (!set?.delete(holder)) return;
    if (set.size > 0) return;
    this.#holders.delete(sessionId);
    this.#inner.closeStream(sessionId, opts);
  }

  holds(sessionId: string, holder: StreamHolder): boolean {
    return this.#holders.get(sessionId)?.has(holder) ?? false;
  }

  /** Sessions with an open stream, whoever holds it. */
  get openIds(): string[] {
    return [...this.#holders.keys()];
  }
}
