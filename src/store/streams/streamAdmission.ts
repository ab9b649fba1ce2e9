import { performance } from "node:perf_hooks";
import type { StreamNotice, StreamStatus, Subscription } from "../../client/eventStream.js";
import { decodeEvent, type SessionEvent } from "../../protocol/events.js";
import { HISTORY_END_COMMENT } from "../../protocol/history.js";
import { formatTimeSpan } from "../../text/format.js";
import type { SessionJournal } from "../history/journal.js";
import type { JournalOverlap } from "../history/journalOverlap.js";
import type { SessionsStore } from "../sessionsStore.js";
import { dividerText } from "./pastInPane.js";
import type { StreamMeta } from "./sessionStream.js";
import type { StreamsState, StreamsStore } from "./streamsStore.js";

/**
 * What one session's stream sends, admitted into its timeline: items recorded in the journal
 * and handed to the store (undecoded: it decodes only what a pane will show), state changes
 * passed on to the catalogue, a gap answered by reading the record again. A server without the
 * history endpoint may send recent events on open: they are read as history (repeats of the
 * journal dropped) until it says so (`: history-end`), else until the first heartbeat or a
 * pause in the burst, or the connection ends; then the divider says what is above it.
 */

export interface AdmissionOptions {
  store: StreamsStore;
  /** When given, a session's live state_changed also updates its row in the list. */
  sessions?: SessionsStore;
  /** Every item received is handed to it. */
  journal?: SessionJournal;
  /** Told of every state change a stream brings. */
  onStateChange?: (sessionId: string, state: string) => void;
  /** Sees every SSE item as it arrives, before the store. */
  onItem?: (sessionId: string, event: string | undefined, data: string, at: number) => void;
  now?: () => number;
}

/** How a stream's items are read once they reach the pane. */
export interface LiveMode {
  /** Repeats of the journal to drop among a server's recent events sent on open. */
  overlap: JournalOverlap | null;
  /** Entries the journal put above. */
  fromJournal: number;
  /** Read the first burst as history (a server without the history endpoint). */
  streamHistory: boolean;
  /** The history was read at this moment, before the stream was live: say what may be lost. */
  gapFrom: number | null;
}

/**
 * What a server sends on open comes in one burst: this long without an item after the stream
 * opened means live events from here (a history sent without saying where it ends; recent
 * events sent again, heldItems.ts).
 */
export const BURST_IDLE_MS = 250;

export class StreamAdmission {
  readonly #opts: AdmissionOptions;
  readonly #sessionId: string;
  /** The subscription (its heartbeat figures go to the title); null until it exists. */
  readonly #sub: () => Subscription | null;
  /** Only the history can repeat the journal: let go of it once that is over. */
  #overlap: JournalOverlap | null = null;
  #fromJournal = 0;
  #inHistory = false;
  #fromServer = 0;
  #lastItemAt = 0;
  #idleTimer: NodeJS.Timeout | null = null;
  /** The history was read before the stream was live: from then until live may be lost. */
  #gapFrom: number | null = null;

  constructor(opts: AdmissionOptions, sessionId: string, sub: () => Subscription | null) {
    this.#opts = opts;
    this.#sessionId = sessionId;
    this.#sub = sub;
  }

  #now(): number {
    return (this.#opts.now ?? Date.now)();
  }

  setMode(m: LiveMode): void {
    this.#overlap = m.overlap;
    this.#fromJournal = m.fromJournal;
    this.#inHistory = m.streamHistory;
    this.#gapFrom = m.gapFrom;
    if (this.#inHistory && this.#fromJournal === 0) {
      this.#opts.store.getState().pushPhase(this.#sessionId, "history");
    }
  }

  item(event: string | undefined, data: string, id?: string, at?: number): void {
    if (this.#inHistory) {
      this.#lastItemAt = performance.now();
      if (event === "heartbeat") this.endHistory();
      else if (this.#overlap?.repeats(event, data, id)) return;
      else this.#fromServer++;
    }
    const when = at ?? this.#now();
    this.#opts.journal?.record(this.#sessionId, event, data, id, when);
    this.#opts.onItem?.(this.#sessionId, event, data, when);
    const s = this.#opts.store.getState();
    const ev = s.pushItem(this.#sessionId, event, data, id, when);
    if (ev !== null) this.#after(s, ev);
  }

  /**
   * An item the stream sent that the pane shows already, from the session's history: not shown
   * again, but a state change it carries is news all the same (the history's copy changes
   * nothing): the catalogue takes the state and is read again soon.
   */
  repeated(event: string | undefined, data: string, id: string | undefined): void {
    if (event !== "state_changed") return;
    const ev = decodeEvent(event, data, id);
    if (ev.kind === "state_changed") this.#after(this.#opts.store.getState(), ev);
  }

  event(ev: SessionEvent): void {
    const s = this.#opts.store.getState();
    s.pushEvent(this.#sessionId, ev);
    this.#after(s, ev);
  }

  notice(notice: StreamNotice): void {
    this.#opts.store.getState().pushNotice(this.#sessionId, notice);
    // Events may be missing: the record says what state the session is in now.
    const { sessions } = this.#opts;
    if (notice.kind === "gap" && sessions) void this.#reread(sessions);
  }

  comment(text: string): void {
    if (text === HISTORY_END_COMMENT) this.endHistory();
  }

  status(status: StreamStatus, meta: StreamMeta | undefined): void {
    this.#opts.store.getState().pushStatus(this.#sessionId, status, meta);
  }

  /** The stream reached back into the history: nothing fell between them, nothing to say. */
  closeGap(): void {
    this.#gapFrom = null;
  }

  /** The stream went live at `liveAt`: says what may be lost, watches for the burst's end. */
  live(liveAt: number): void {
    if (this.#gapFrom !== null) {
      const from = this.#gapFrom;
      this.#gapFrom = null;
      this.#opts.store
        .getState()
        .pushMarker(
          this.#sessionId,
          "notice",
          `The stream went live after the history was read: events from ${formatTimeSpan(from, liveAt)} may be missing.`,
        );
    }
    if (this.#inHistory && this.#idleTimer === null) {
      this.#lastItemAt = performance.now();
      this.#watchIdle();
    }
  }

  endHistory(): void {
    if (!this.#inHistory) return;
    this.#inHistory = false;
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    const repeats = this.#overlap?.dropped ?? 0;
    this.#overlap = null;
    const s = this.#opts.store.getState();
    s.pushMarker(
      this.#sessionId,
      "divider",
      dividerText(this.#fromJournal, this.#fromServer, repeats),
      { ifNotEmpty: true, at: this.#now() },
    );
    s.pushPhase(this.#sessionId, "live");
  }

  #watchIdle(): void {
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = null;
      if (!this.#inHistory) return;
      if (performance.now() - this.#lastItemAt >= BURST_IDLE_MS) this.endHistory();
      else this.#watchIdle();
    }, BURST_IDLE_MS);
    this.#idleTimer.unref();
  }

  #after(s: StreamsState, ev: SessionEvent): void {
    const sub = this.#sub();
    if (ev.kind === "heartbeat" && sub) {
      s.pushMeta(this.#sessionId, {
        lastActivityAt: sub.lastActivityAt,
        heartbeatIntervalMs: sub.heartbeatIntervalMs,
        watchdogMs: sub.watchdogMs,
      });
    } else if (ev.kind === "state_changed") {
      this.#opts.sessions?.getState().patchSession(this.#sessionId, { state: ev.data.state });
      this.#opts.onStateChange?.(this.#sessionId, ev.data.state);
    }
  }

  async #reread(sessions: SessionsStore): Promise<void> {
    const record = await sessions.getState().refreshSession(this.#sessionId);
    const state = typeof record?.state === "string" ? record.state : null;
    if (state !== null) {
      this.#opts.store.getState().pushMeta(this.#sessionId, { sessionState: state });
    }
  }
}
