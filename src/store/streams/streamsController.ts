import type { Subscription } from "../../client/eventStream.js";
import type { JournalOverlap } from "../history/journalOverlap.js";
import type { SessionsStore } from "../sessionsStore.js";
import { LiveStream, type LiveStreamOptions } from "./liveStream.js";
import { type PastOptions, readPast } from "./pastReader.js";
import { RecordFollows } from "./recordFollow.js";
import type { LiveMode } from "./streamAdmission.js";
import type { OpenOptions } from "./streamLeases.js";

/**
 * Opens and closes session streams and pours what they deliver into the streams store. Plain
 * TypeScript, no React: the panes only select from the store. It keeps who is open and how;
 * the work is done by its parts: the past read before live events (pastReader.ts), the
 * stream's connection and what it holds meanwhile (liveStream.ts, heldItems.ts), what a
 * stream sends admitted into the timeline (streamAdmission.ts), and a session followed
 * through its record when the key cannot have live events (recordFollow.ts).
 */

export interface StreamsControllerOptions extends LiveStreamOptions, PastOptions {
  /** When given, a session's live state_changed also updates its row in the list. */
  sessions?: SessionsStore;
  /** How often a followed session's record is read (default 15 s). */
  recordPollMs?: number;
}

export interface CloseOptions {
  /** Keep the session's scrollback in the store (the slice shows "stopped"). Default false. */
  keep?: boolean;
}

export class StreamsController {
  readonly #opts: StreamsControllerOptions;
  readonly #subs = new Map<string, Subscription>();
  /** Resume points of streams closed earlier, so reopening continues where it stopped. */
  readonly #resume = new Map<string, string>();
  /** Sessions whose journal or history is being read before their stream opens. */
  readonly #loading = new Map<string, object>();
  /** Sessions followed through their record (a key without sessions:prompt). */
  readonly #follows: RecordFollows;
  /** Open sessions opened live only (the fleet's rows): their past was not read. */
  readonly #liveOnly = new Set<string>();

  constructor(opts: StreamsControllerOptions) {
    this.#opts = opts;
    this.#follows = new RecordFollows(opts);
  }

  /** Ids with a subscription that has not stopped, whose past is being read, or followed. */
  get openIds(): string[] {
    // A session may be both loading and subscribed (its stream held while the history is read).
    return [...new Set([...this.#subs.keys(), ...this.#loading.keys(), ...this.#follows.ids()])];
  }

  /** True while the session's journal and history are read (its live events held till then). */
  readingPast(sessionId: string): boolean {
    return this.#loading.has(sessionId);
  }

  isOpen(sessionId: string): boolean {
    return (
      this.#subs.has(sessionId) || this.#loading.has(sessionId) || this.#follows.has(sessionId)
    );
  }

  subscription(sessionId: string): Subscription | undefined {
    return this.#subs.get(sessionId);
  }

  /**
   * Start streaming a session (no-op when already streaming). A session streamed before, or
   * whose slice is still in the store, resumes from its last event id. The journal's events
   * come first, then the server's history (fetchHistory), then the "live from here" divider
   * and live events; or, for a key without sessions:prompt, the session's record followed.
   */
  openStream(sessionId: string, opts: OpenOptions = {}): void {
    const past = opts.past !== false;
    if (this.isOpen(sessionId)) {
      if (!past || !this.#liveOnly.has(sessionId)) return;
      // Opened live only (a fleet row) and now a pane wants its past: opened again with it,
      // from the event it had reached (the history and live events are joined as usual).
      this.closeStream(sessionId);
    }
    if (past) this.#liveOnly.delete(sessionId);
    else this.#liveOnly.add(sessionId);
    const { store } = this.#opts;
    store.getState().ensure(sessionId, { state: "connecting", attempt: 0 });
    if (!this.#opts.journal && !(past && this.#opts.fetchHistory)) {
      this.#goLive(sessionId, null, 0, this.#opts.history !== undefined);
      return;
    }
    const token = {};
    this.#loading.set(sessionId, token);
    void readPast(this.#opts, sessionId, past, {
      wanted: () => this.#loading.get(sessionId) === token,
      hold: () => this.#subscribe(sessionId, null),
      done: () => this.#loading.delete(sessionId),
      goLive: (overlap, fromJournal, streamHistory) =>
        this.#goLive(sessionId, overlap, fromJournal, streamHistory),
    });
  }

  /** The stream, or when the key cannot have it (no sessions:prompt), the record followed. */
  #goLive(
    sessionId: string,
    overlap: JournalOverlap | null,
    fromJournal: number,
    streamHistory: boolean,
  ): void {
    if (this.#opts.liveAllowed?.() === false) {
      this.#follows.follow(sessionId);
      return;
    }
    this.#subscribe(sessionId, { overlap, fromJournal, streamHistory, gapFrom: null });
  }

  /** Opens the session's stream; with no mode it holds what it sends until released. */
  #subscribe(sessionId: string, mode: LiveMode | null): LiveStream {
    const lastEventId =
      this.#opts.store.getState().sessions[sessionId]?.lastEventId ??
      this.#resume.get(sessionId) ??
      null;
    const stream = new LiveStream(this.#opts, sessionId, mode, {
      lastEventId,
      isCurrent: (sub) => this.#subs.get(sessionId) === sub,
      forget: (sub) => this.#forget(sessionId, sub),
      follow: () => this.#follows.follow(sessionId),
    });
    this.#subs.set(sessionId, stream.sub);
    return stream;
  }

  /** Stop streaming a session and, unless `keep`, drop its slice from the store. */
  closeStream(sessionId: string, opts: CloseOptions = {}): void {
    this.#liveOnly.delete(sessionId);
    this.#follows.unfollow(sessionId);
    if (this.#loading.delete(sessionId)) this.#opts.journal?.closeSession(sessionId);
    const sub = this.#subs.get(sessionId);
    if (sub) {
      this.#forget(sessionId, sub);
      sub.close();
    }
    if (!opts.keep) {
      const state = this.#opts.store.getState();
      const last = state.sessions[sessionId]?.lastEventId;
      if (last) this.#resume.set(sessionId, last);
      state.remove(sessionId);
    }
  }

  /** Close every stream and wait until each has stopped; slices are kept for a last look. */
  async closeAll(): Promise<void> {
    this.#loading.clear();
    this.#liveOnly.clear();
    this.#follows.clear();
    const subs = [...this.#subs.entries()];
    for (const [id, sub] of subs) {
      this.#forget(id, sub);
      sub.close();
    }
    await Promise.all(subs.map(([, sub]) => sub.done));
    this.#opts.store.getState().flushNow();
  }

  #forget(sessionId: string, sub: Subscription): void {
    if (this.#subs.get(sessionId) !== sub) return;
    this.#subs.delete(sessionId);
    this.#opts.journal?.closeSession(sessionId);
    if (sub.lastEventId) this.#resume.set(sessionId, sub.lastEventId);
  }
}
