import { performance } from "node:perf_hooks";
import {
  type StreamStatus,
  type SubscribeOptions,
  type Subscription,
  subscribeToSession,
} from "../../client/eventStream.js";
import type { ConnectionConfig, Transport } from "../../client/transport.js";
import type { SessionEvent } from "../../protocol/events.js";
import { HISTORY_END_COMMENT } from "../../protocol/history.js";
import { formatTimeSpan } from "../../text/format.js";
import { cutText, sanitizeLine } from "../../text/sanitize.js";
import type { JournalLoad, SessionJournal } from "../history/journal.js";
import { JournalOverlap } from "../history/journalOverlap.js";
import type { SessionsStore } from "../sessionsStore.js";
import type { StreamsState, StreamsStore } from "./streamsStore.js";

/**
 * Opens and closes session streams and pours what they deliver into the streams store. Plain
 * TypeScript, no React: the panes only select from the store.
 */

export interface StreamsControllerOptions {
  config: ConnectionConfig;
  /** The API client's transport: streams share its budget and publish their waits there. */
  transport?: Transport;
  store: StreamsStore;
  /** When given, a session's live state_changed also updates its row in the list. */
  sessions?: SessionsStore;
  /** Told of every state change a stream brings (the live list refreshes soon after one). */
  onStateChange?: (sessionId: string, state: string) => void;
  /** Sees every SSE item as it arrives, before the store (the fleet's per-session activity). */
  onItem?: (sessionId: string, event: string | undefined, data: string, at: number) => void;
  /** Passed through to every subscription. */
  subscribeOptions?: Pick<
    SubscribeOptions,
    | "maxEventBytes"
    | "backoffBaseMs"
    | "maxDelayMs"
    | "maxAttempts"
    | "watchdog"
    | "headersTimeoutMs"
  >;
  /** Injected in tests; defaults to the real SSE client. */
  subscribe?: (opts: SubscribeOptions) => Subscription;
  /**
   * The scrollback a new subscription asks history for (`?history=N`, N leaving room for the
   * divider and the gap marker). Absent: nothing is asked.
   */
  history?: number;
  /** Events seen in earlier runs, shown first; every item received is handed to it. */
  journal?: SessionJournal;
  now?: () => number;
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
  /** Sessions whose journal is being read before their stream opens. */
  readonly #loading = new Map<string, object>();

  constructor(opts: StreamsControllerOptions) {
    this.#opts = opts;
  }

  /** Ids with a subscription that has not stopped (or whose journal is being read). */
  get openIds(): string[] {
    return [...this.#subs.keys(), ...this.#loading.keys()];
  }

  isOpen(sessionId: string): boolean {
    return this.#subs.has(sessionId) || this.#loading.has(sessionId);
  }

  subscription(sessionId: string): Subscription | undefined {
    return this.#subs.get(sessionId);
  }

  /**
   * Start streaming a session (no-op when already streaming). A session streamed before, or
   * whose slice is still in the store, resumes from its last event id.
   */
  openStream(sessionId: string): void {
    if (this.isOpen(sessionId)) return;
    const { store, journal } = this.#opts;
    store.getState().ensure(sessionId, { state: "connecting", attempt: 0 });
    if (!journal) {
      this.#subscribe(sessionId, null, 0);
      return;
    }
    // The journal first, then the stream: its events go above whatever the server sends.
    const token = {};
    this.#loading.set(sessionId, token);
    void journal.load(sessionId).then(
      (load) => {
        if (this.#loading.get(sessionId) !== token) return;
        this.#loading.delete(sessionId);
        const shown = this.#showJournal(sessionId, load);
        const overlap = new JournalOverlap(load.records, journal.clean);
        this.#subscribe(sessionId, overlap.empty ? null : overlap, shown);
      },
      (e: unknown) => {
        // A journal that cannot be read must not hold the pane: it says why and goes live.
        if (this.#loading.get(sessionId) !== token) return;
        this.#loading.delete(sessionId);
        this.#opts.store
          .getState()
          .pushMarker(
            sessionId,
            "notice",
            `The journal could not be read (${journalFailure(e)}): only what the server sends is shown.`,
          );
        this.#subscribe(sessionId, null, 0);
      },
    );
  }

  /** Puts a journal's events in the timeline with the gap marker after them; returns how many. */
  #showJournal(sessionId: string, load: JournalLoad): number {
    const s = this.#opts.store.getState();
    const now = (this.#opts.now ?? Date.now)();
    s.pushPhase(sessionId, "journal");
    let shown = 0;
    for (const r of load.records) {
      // A heartbeat only marks that someone watched; an old one must not age the title.
      if (r.event === "heartbeat") continue;
      s.pushItem(sessionId, r.event, r.data, r.id ?? undefined, r.at ?? now);
      shown++;
    }
    for (const w of load.warnings) s.pushMarker(sessionId, "notice", w);
    if (load.watchedUntil !== null && (shown > 0 || load.warnings.length > 0)) {
      s.pushMarker(
        sessionId,
        "unwatched",
        `not watched from ${formatTimeSpan(load.watchedUntil, now)}`,
      );
    }
    s.pushPhase(sessionId, "history");
    return shown;
  }

  #subscribe(sessionId: string, journalIds: JournalOverlap | null, fromJournal: number): void {
    // Only the history can repeat the journal: let go of it (and what it holds) once that is
    // over.
    let overlap = journalIds;
    const { store, config, journal } = this.#opts;
    const now = this.#opts.now ?? Date.now;
    const lastEventId =
      store.getState().sessions[sessionId]?.lastEventId ?? this.#resume.get(sessionId) ?? null;
    const subscribe = this.#opts.subscribe ?? subscribeToSession;
    let sub: Subscription | null = null;
    const sessions = this.#opts.sessions;
    const afterEvent = (s: StreamsState, ev: SessionEvent) => {
      if (ev.kind === "heartbeat" && sub) {
        s.pushMeta(sessionId, {
          lastActivityAt: sub.lastActivityAt,
          heartbeatIntervalMs: sub.heartbeatIntervalMs,
          watchdogMs: sub.watchdogMs,
        });
      } else if (ev.kind === "state_changed") {
        sessions?.getState().patchSession(sessionId, { state: ev.data.state });
        this.#opts.onStateChange?.(sessionId, ev.data.state);
      }
    };
    // The server's history runs until it says so (`: history-end`), else until the first
    // heartbeat or a pause in the burst (a server sends its history at once, before it goes
    // live), or the connection ends. Only when history was asked for or a journal shown.
    let inHistory = this.#opts.history !== undefined || journal !== undefined;
    let fromServer = 0;
    let lastItemAt = 0;
    let idleTimer: NodeJS.Timeout | null = null;
    const watchIdle = () => {
      idleTimer = setTimeout(() => {
        idleTimer = null;
        if (!inHistory) return;
        if (performance.now() - lastItemAt >= HISTORY_IDLE_MS) endHistory();
        else watchIdle();
      }, HISTORY_IDLE_MS);
      idleTimer.unref();
    };
    const endHistory = () => {
      if (!inHistory) return;
      inHistory = false;
      if (idleTimer !== null) clearTimeout(idleTimer);
      idleTimer = null;
      const repeats = overlap?.dropped ?? 0;
      overlap = null;
      const s = store.getState();
      s.pushMarker(sessionId, "divider", dividerText(fromJournal, fromServer, repeats), {
        ifNotEmpty: true,
        at: now(),
      });
      s.pushPhase(sessionId, "live");
    };
    if (inHistory && fromJournal === 0) store.getState().pushPhase(sessionId, "history");
    sub = subscribe({
      ...this.#opts.subscribeOptions,
      config,
      ...(this.#opts.transport ? { transport: this.#opts.transport } : {}),
      sessionId,
      lastEventId,
      ...(this.#opts.history !== undefined
        ? { history: Math.max(0, this.#opts.history - MARKER_ROOM) }
        : {}),
      onComment: (text) => {
        if (text === HISTORY_END_COMMENT) endHistory();
      },
      // Items go to the store undecoded: it decodes only what a pane will show, and returns
      // the events it decoded at once (heartbeats, state changes among them).
      onItem: (event, data, id, at) => {
        if (inHistory) {
          lastItemAt = performance.now();
          if (event === "heartbeat") endHistory();
          else if (overlap?.repeats(event, data, id)) return;
          else fromServer++;
        }
        journal?.record(sessionId, event, data, id, at);
        this.#opts.onItem?.(sessionId, event, data, at);
        const s = store.getState();
        const ev = s.pushItem(sessionId, event, data, id, at);
        if (ev !== null) afterEvent(s, ev);
      },
      onEvent: (ev) => {
        const s = store.getState();
        s.pushEvent(sessionId, ev);
        afterEvent(s, ev);
      },
      onNotice: (notice) => {
        store.getState().pushNotice(sessionId, notice);
        // Events may be missing: the record says what state the session is in now.
        if (notice.kind === "gap" && sessions) void this.#reread(sessionId, sessions);
      },
      onStatus: (status: StreamStatus) => {
        if (status.state === "reconnecting" || status.state === "stopped") endHistory();
        else if (status.state === "live" && inHistory && idleTimer === null) {
          lastItemAt = performance.now();
          watchIdle();
        }
        store.getState().pushStatus(
          sessionId,
          status,
          sub
            ? {
                lastEventId: sub.lastEventId,
                heartbeatIntervalMs: sub.heartbeatIntervalMs,
                watchdogMs: sub.watchdogMs,
              }
            : undefined,
        );
        if (status.state === "stopped" && sub && this.#subs.get(sessionId) === sub) {
          this.#forget(sessionId, sub);
        }
      },
    });
    this.#subs.set(sessionId, sub);
  }

  /** Stop streaming a session and, unless `keep`, drop its slice from the store. */
  closeStream(sessionId: string, opts: CloseOptions = {}): void {
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
    const subs = [...this.#subs.entries()];
    for (const [id, sub] of subs) {
      this.#forget(id, sub);
      sub.close();
    }
    await Promise.all(subs.map(([, sub]) => sub.done));
    this.#opts.store.getState().flushNow();
  }

  async #reread(sessionId: string, sessions: SessionsStore): Promise<void> {
    const record = await sessions.getState().refreshSession(sessionId);
    const state = typeof record?.state === "string" ? record.state : null;
    if (state !== null) this.#opts.store.getState().pushMeta(sessionId, { sessionState: state });
  }

  #forget(sessionId: string, sub: Subscription): void {
    if (this.#subs.get(sessionId) !== sub) return;
    this.#subs.delete(sessionId);
    this.#opts.journal?.closeSession(sessionId);
    if (sub.lastEventId) this.#resume.set(sessionId, sub.lastEventId);
  }
}

/** Why a journal load failed, as one short safe line (an error's text may hold anything). */
function journalFailure(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return cutText(sanitizeLine(text), 200) || "no reason given";
}

/** Timeline entries a history request leaves free for the gap marker and the divider. */
const MARKER_ROOM = 2;

/**
 * A server that sends history without saying where it ends sends it in one burst: this long
 * without an item after the stream opened means live events from here.
 */
const HISTORY_IDLE_MS = 250;

/** The divider's words: what is above it. */
function dividerText(fromJournal: number, fromServer: number, repeats: number): string {
  const above: string[] = [];
  if (fromJournal > 0) above.push(`${fromJournal} from the journal`);
  if (fromServer > 0) above.push(`${fromServer} from the server`);
  if (repeats > 0)
    above.push(`${repeats} repeat${repeats === 1 ? "" : "s"} of the journal skipped`);
  return above.length > 0 ? `live from here · above: ${above.join(", ")}` : "live from here";
}
