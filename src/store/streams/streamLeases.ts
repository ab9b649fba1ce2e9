/**
 * Who wants a session's stream open: its pane, the fleet view, or both. The stream opens
 * with the first holder and closes with the last, so closing a pane does not cut a stream
 * the fleet still shows, and the fleet letting a row go does not close a pane's stream.
 * The fleet's rows need only what happens now (the current step, the activity): their streams
 * open live, without the session's history; a pane asks for the past, read when it opens
 * (a request per pane the user opens, never one per fleet row).
 */

export type StreamHolder = "pane" | "fleet";

export interface OpenOptions {
  /**
   * Show the session's past (the journal, the server's history) before live events. Default
   * true; false opens live only, and a later open with the past reads it then.
   */
  past?: boolean;
}

export interface StreamOpener {
  openStream(sessionId: string, opts?: OpenOptions): void;
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
    if (set.has(holder)) return;
    set.add(holder);
    // The first holder opens the stream; a pane joining the fleet's live-only stream asks
    // for the past too.
    if (set.size === 1 || holder === "pane") {
      this.#inner.openStream(sessionId, { past: holder === "pane" });
    }
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
