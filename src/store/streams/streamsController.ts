import { performance } from "node:perf_hooks";
import { MissingScopeError } from "../../client/errors.js";
import {
  type StreamStatus,
  type SubscribeOptions,
  type Subscription,
  subscribeToSession,
} from "../../client/eventStream.js";
import type { ConnectionConfig, Transport } from "../../client/transport.js";
import type { SessionEvent } from "../../protocol/events.js";
import { MALFORMED_RAW_LIMIT } from "../../protocol/events.js";
import { HISTORY_END_COMMENT, historyItem, type SessionHistory } from "../../protocol/history.js";
import { formatSeconds, formatTimeSpan } from "../../text/format.js";
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
   * Most entries of the server's history shown (the pane's scrollback; room is left for the
   * divider and the gap marker). Default 5000.
   */
  history?: number;
  /**
   * Reads a session's documented history (ApiClient.sessionHistory); null when the server has
   * no such endpoint. Absent: panes start live.
   */
  fetchHistory?: (sessionId: string) => Promise<SessionHistory | null>;
  /**
   * False when the key's effective scopes are known to lack sessions:prompt: no stream is
   * opened (it would answer 403); the session's record is followed instead.
   */
  liveAllowed?: () => boolean;
  /** How often a followed session's record is read (default 15 s). */
  recordPollMs?: number;
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
  /** Sessions whose journal or history is being read before their stream opens. */
  readonly #loading = new Map<string, object>();
  /** Sessions followed through their record (a key without sessions:prompt). */
  readonly #follows = new Map<string, Follow>();

  constructor(opts: StreamsControllerOptions) {
    this.#opts = opts;
  }

  /** Ids with a subscription that has not stopped, whose past is being read, or followed. */
  get openIds(): string[] {
    return [...this.#subs.keys(), ...this.#loading.keys(), ...this.#follows.keys()];
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
  openStream(sessionId: string): void {
    if (this.isOpen(sessionId)) return;
    const { store } = this.#opts;
    store.getState().ensure(sessionId, { state: "connecting", attempt: 0 });
    if (!this.#opts.journal && !this.#opts.fetchHistory) {
      this.#goLive(sessionId, null, 0, this.#opts.history !== undefined);
      return;
    }
    const token = {};
    this.#loading.set(sessionId, token);
    void this.#prepare(sessionId, token);
  }

  /** The journal, then the server's history, then live: each step checks the pane is still wanted. */
  async #prepare(sessionId: string, token: object): Promise<void> {
    const { journal, fetchHistory } = this.#opts;
    const wanted = () => this.#loading.get(sessionId) === token;
    let shown = 0;
    let overlap: JournalOverlap | null = null;
    if (journal) {
      try {
        const load = await journal.load(sessionId);
        if (!wanted()) return;
        shown = this.#showJournal(sessionId, load);
        const o = new JournalOverlap(load.records, journal.clean);
        overlap = o.empty ? null : o;
      } catch (e) {
        // A journal that cannot be read must not hold the pane: it says why and goes on.
        if (!wanted()) return;
        this.#notice(
          sessionId,
          `The journal could not be read (${journalFailure(e)}): only what the server sends is shown.`,
        );
      }
    }
    if (fetchHistory) {
      let past: SessionHistory | null = null;
      try {
        past = await fetchHistory(sessionId);
      } catch (e) {
        if (!wanted()) return;
        this.#notice(
          sessionId,
          `The session's history could not be read (${journalFailure(e)}): live events only.`,
        );
      }
      if (!wanted()) return;
      if (past !== null) {
        const fromServer = this.#showHistory(sessionId, past, overlap);
        const repeats = overlap?.dropped ?? 0;
        const s = this.#opts.store.getState();
        const lead = this.#opts.liveAllowed?.() === false ? "the record from here" : undefined;
        s.pushMarker(sessionId, "divider", dividerText(shown, fromServer, repeats, lead), {
          ifNotEmpty: true,
          at: (this.#opts.now ?? Date.now)(),
        });
        s.pushPhase(sessionId, "live");
        this.#loading.delete(sessionId);
        this.#goLive(sessionId, null, shown, false);
        return;
      }
    }
    if (!wanted()) return;
    this.#loading.delete(sessionId);
    // No history endpoint: a stream that sends recent events on open is read as before.
    this.#goLive(
      sessionId,
      overlap,
      shown,
      journal !== undefined || this.#opts.history !== undefined,
    );
  }

  /**
   * The server's history in the timeline as the items live events of the same kind would be:
   * at most the scrollback's worth, the newest, so a huge answer converts no more than that.
   */
  #showHistory(sessionId: string, past: SessionHistory, overlap: JournalOverlap | null): number {
    const s = this.#opts.store.getState();
    const now = (this.#opts.now ?? Date.now)();
    const { journal } = this.#opts;
    const cap = Math.max(0, (this.#opts.history ?? DEFAULT_HISTORY_ENTRIES) - MARKER_ROOM);
    const entries = past.events;
    const first = Math.max(0, entries.length - cap);
    if (first > 0) {
      s.pushMarker(
        sessionId,
        "notice",
        `${first} older entr${first === 1 ? "y" : "ies"} of the session's history not shown (the scrollback holds ${cap})`,
      );
    }
    let shown = 0;
    for (let i = first; i < entries.length; i++) {
      const item = historyItem(entries[i]);
      if (!item.ok) {
        s.pushEvent(sessionId, {
          kind: "malformed",
          event: "history",
          id: null,
          raw:
            item.raw.length > MALFORMED_RAW_LIMIT
              ? `${item.raw.slice(0, MALFORMED_RAW_LIMIT)}…`
              : item.raw,
          error: item.error,
        });
        shown++;
        continue;
      }
      if (overlap?.repeats(item.event, item.data, undefined)) continue;
      const at = item.at ?? now;
      journal?.record(sessionId, item.event, item.data, undefined, at);
      s.pushItem(sessionId, item.event, item.data, undefined, at);
      shown++;
    }
    return shown;
  }

  /** The stream, or when the key cannot have it (no sessions:prompt), the record followed. */
  #goLive(
    sessionId: string,
    overlap: JournalOverlap | null,
    fromJournal: number,
    streamHistory: boolean,
  ): void {
    if (this.#opts.liveAllowed?.() === false) {
      this.#followRecord(sessionId);
      return;
    }
    this.#subscribe(sessionId, overlap, fromJournal, streamHistory);
  }

  /**
   * For a key without sessions:prompt: says so once, then reads the session's record every
   * recordPollMs through the client (and its budget), showing what changed: its state as a
   * state change, its last prompt's status as a line, its last activity in the title.
   */
  #followRecord(sessionId: string): void {
    const { store, sessions } = this.#opts;
    const every = this.#opts.recordPollMs ?? DEFAULT_RECORD_POLL_MS;
    store.getState().pushStatus(sessionId, {
      state: "stopped",
      reason: `${LIVE_NEEDS_PROMPT}; following the session's record every ${formatSeconds(every)}`,
      error: null,
    });
    const follow: Follow = { timer: null, last: null };
    this.#follows.set(sessionId, follow);
    if (!sessions) return;
    const poll = async () => {
      follow.timer = null;
      const record = await sessions.getState().refreshSession(sessionId);
      if (this.#follows.get(sessionId) !== follow) return;
      if (record !== null) this.#recordChanged(sessionId, follow, record);
      follow.timer = setTimeout(() => void poll(), every);
      follow.timer.unref?.();
    };
    void poll();
  }

  #recordChanged(sessionId: string, follow: Follow, record: Record<string, unknown>): void {
    const now = {
      state: typeof record.state === "string" ? record.state : null,
      activity: typeof record.last_activity_at === "string" ? record.last_activity_at : null,
      prompt: promptStatus(record.last_prompt),
    };
    const before = follow.last;
    follow.last = now;
    const s = this.#opts.store.getState();
    if (now.activity !== null && now.activity !== before?.activity) {
      const at = Date.parse(now.activity);
      if (Number.isFinite(at)) s.pushMeta(sessionId, { lastActivityAt: at });
    }
    if (before === null) return;
    if (now.state !== null && now.state !== before.state) {
      const ev: SessionEvent = {
        kind: "state_changed",
        id: null,
        data: { state: now.state, previous_state: before.state },
      };
      s.pushEvent(sessionId, ev);
      this.#opts.onStateChange?.(sessionId, now.state);
    }
    if (now.prompt !== null && now.prompt !== before.prompt) {
      s.pushMarker(sessionId, "notice", `last prompt: ${now.prompt}`);
    }
  }

  /** A notice in the session's pane: what the pane could not do, and what it does instead. */
  #notice(sessionId: string, text: string): void {
    this.#opts.store.getState().pushMarker(sessionId, "notice", text);
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

  #subscribe(
    sessionId: string,
    journalIds: JournalOverlap | null,
    fromJournal: number,
    streamHistory: boolean,
  ): void {
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
    // A server without the history endpoint may send recent events on open: they run until
    // it says so (`: history-end`), else until the first heartbeat or a pause in the burst
    // (a server sends them at once, before it goes live), or the connection ends. Only when
    // a journal is shown and no history was read from the endpoint.
    let inHistory = streamHistory;
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
    let readOnly = false;
    sub = subscribe({
      ...this.#opts.subscribeOptions,
      config,
      ...(this.#opts.transport ? { transport: this.#opts.transport } : {}),
      sessionId,
      lastEventId,
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
        if (status.state === "stopped" && needsPromptScope(status.error)) readOnly = true;
        if (status.state === "reconnecting" || status.state === "stopped") endHistory();
        if (readOnly) {
          // The key cannot have live events: the record is followed instead, said once.
          if (sub && this.#subs.get(sessionId) === sub) {
            this.#forget(sessionId, sub);
            this.#followRecord(sessionId);
          }
          return;
        } else if (status.state === "live" && inHistory && idleTimer === null) {
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
    this.#unfollow(sessionId);
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
    for (const id of [...this.#follows.keys()]) this.#unfollow(id);
    const subs = [...this.#subs.entries()];
    for (const [id, sub] of subs) {
      this.#forget(id, sub);
      sub.close();
    }
    await Promise.all(subs.map(([, sub]) => sub.done));
    this.#opts.store.getState().flushNow();
  }

  #unfollow(sessionId: string): void {
    const f = this.#follows.get(sessionId);
    if (!f) return;
    this.#follows.delete(sessionId);
    if (f.timer !== null) clearTimeout(f.timer);
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

/** What a pane says, once, when the key cannot have the event stream. */
export const LIVE_NEEDS_PROMPT = "live events need sessions:prompt";

/** Default cadence of reading a followed session's record: modest within 100 requests a minute. */
const DEFAULT_RECORD_POLL_MS = 15_000;

/** History entries shown when no scrollback is given (the store's default capacity). */
const DEFAULT_HISTORY_ENTRIES = 5000;

interface Follow {
  timer: NodeJS.Timeout | null;
  last: { state: string | null; activity: string | null; prompt: string | null } | null;
}

/** A stream refused for want of sessions:prompt (a 403 naming it). */
function needsPromptScope(error: unknown): boolean {
  if (!(error instanceof MissingScopeError)) return false;
  return error.requiredScope === "sessions:prompt" || error.message.includes("sessions:prompt");
}

/** The status of a record's last_prompt ({status, …}), as one short word, or null. */
function promptStatus(v: unknown): string | null {
  if (v === null || typeof v !== "object") return null;
  const st = (v as Record<string, unknown>).status;
  return typeof st === "string" ? cutText(sanitizeLine(st), 64) : null;
}

/** Timeline entries a history request leaves free for the gap marker and the divider. */
const MARKER_ROOM = 2;

/**
 * A server that sends history without saying where it ends sends it in one burst: this long
 * without an item after the stream opened means live events from here.
 */
const HISTORY_IDLE_MS = 250;

/** The divider's words: what is above it. */
function dividerText(
  fromJournal: number,
  fromServer: number,
  repeats: number,
  lead = "live from here",
): string {
  const above: string[] = [];
  if (fromJournal > 0) above.push(`${fromJournal} from the journal`);
  if (fromServer > 0) above.push(`${fromServer} from the server`);
  if (repeats > 0)
    above.push(`${repeats} repeat${repeats === 1 ? "" : "s"} of the journal skipped`);
  return above.length > 0 ? `${lead} · above: ${above.join(", ")}` : lead;
}
