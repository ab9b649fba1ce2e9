import { performance } from "node:perf_hooks";
import { MissingScopeError } from "../../client/errors.js";
import {
  type StreamNotice,
  type StreamStatus,
  type SubscribeOptions,
  type Subscription,
  subscribeToSession,
} from "../../client/eventStream.js";
import type { ConnectionConfig, Transport } from "../../client/transport.js";
import type { SessionEvent } from "../../protocol/events.js";
import { HISTORY_END_COMMENT, type SessionHistory } from "../../protocol/history.js";
import { lastActivityAt, lastPrompt } from "../../protocol/sessionRecord.js";
import { formatSeconds, formatTimeSpan } from "../../text/format.js";
import { cutText, sanitizeLine } from "../../text/sanitize.js";
import { heldOverlap, type LogSequence, logSequence } from "../history/historyOverlap.js";
import type { SessionJournal } from "../history/journal.js";
import { JournalOverlap } from "../history/journalOverlap.js";
import type { SessionsStore } from "../sessionsStore.js";
import { showHistory, showJournal } from "./pastInPane.js";
import type { StreamMeta } from "./sessionStream.js";
import type { OpenOptions } from "./streamLeases.js";
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
  /** Open sessions opened live only (the fleet's rows): their past was not read. */
  readonly #liveOnly = new Set<string>();

  #now(): number {
    return (this.#opts.now ?? Date.now)();
  }

  constructor(opts: StreamsControllerOptions) {
    this.#opts = opts;
  }

  /** Ids with a subscription that has not stopped, whose past is being read, or followed. */
  get openIds(): string[] {
    // A session may be both loading and subscribed (its stream held while the history is read).
    return [...new Set([...this.#subs.keys(), ...this.#loading.keys(), ...this.#follows.keys()])];
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
    void this.#prepare(sessionId, token, past);
  }

  /**
   * The journal, then the server's history, then live: each step checks the pane is still
   * wanted. With a history endpoint the stream opens first and holds what it sends while the
   * history is read (from when it is live, or HISTORY_WAIT_MS at most), so an event that
   * happens between reading the history and the stream's start is in one of them: what the
   * history already holds of it is dropped (historyOverlap.ts), the rest follows the history.
   */
  async #prepare(sessionId: string, token: object, past: boolean): Promise<void> {
    const { journal } = this.#opts;
    // Live only (a fleet row): the journal is on disk and costs no request; the history does.
    const fetchHistory = past ? this.#opts.fetchHistory : undefined;
    const wanted = () => this.#loading.get(sessionId) === token;
    let shown = 0;
    let overlap: JournalOverlap | null = null;
    let journalLog: LogSequence | null = null;
    if (journal) {
      try {
        const load = await journal.load(sessionId);
        if (!wanted()) return;
        shown = showJournal(this.#opts.store.getState(), sessionId, load, this.#now());
        const o = new JournalOverlap(load.records, journal.clean);
        overlap = o.empty ? null : o;
        journalLog = logSequence(load.records, journal.clean);
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
      // Known to lack sessions:prompt: no stream to hold (the record is followed after).
      const held = this.#opts.liveAllowed?.() === false ? null : this.#subscribe(sessionId, null);
      if (held) await held.ready;
      if (!wanted()) return;
      const readAt = this.#now();
      const liveBefore = held?.live() ?? false;
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
        const h = showHistory(this.#opts.store.getState(), sessionId, past, journalLog, {
          now: this.#now(),
          journal,
          cap: Math.max(0, (this.#opts.history ?? DEFAULT_HISTORY_ENTRIES) - MARKER_ROOM),
          onItem: this.#opts.onItem,
        });
        const skipped = held ? held.dropRepeats(h.log) : 0;
        const s = this.#opts.store.getState();
        const lead = this.#opts.liveAllowed?.() === false ? "the record from here" : undefined;
        s.pushMarker(
          sessionId,
          "divider",
          dividerText(shown, h.shown, h.repeats, lead, h.older, skipped),
          { ifNotEmpty: true, at: this.#now() },
        );
        s.pushPhase(sessionId, "live");
        this.#loading.delete(sessionId);
        if (held) {
          held.release({
            overlap: null,
            fromJournal: shown,
            streamHistory: false,
            // Read before the stream was live: what came between may be in neither.
            gapFrom: liveBefore ? null : readAt,
          });
        } else this.#goLive(sessionId, null, shown, false);
        return;
      }
      this.#loading.delete(sessionId);
      // No history endpoint: a stream that sends recent events on open is read as before.
      const streamHistory = journal !== undefined || this.#opts.history !== undefined;
      if (held) held.release({ overlap, fromJournal: shown, streamHistory, gapFrom: null });
      else this.#goLive(sessionId, overlap, shown, streamHistory);
      return;
    }
    if (!wanted()) return;
    this.#loading.delete(sessionId);
    this.#goLive(
      sessionId,
      overlap,
      shown,
      journal !== undefined || this.#opts.history !== undefined,
    );
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
    this.#subscribe(sessionId, { overlap, fromJournal, streamHistory, gapFrom: null });
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
      activity: lastActivityAt(record),
      prompt: promptStatus(record),
    };
    const before = follow.last;
    follow.last = now;
    const s = this.#opts.store.getState();
    if (now.activity !== null && now.activity !== before?.activity) {
      s.pushMeta(sessionId, { lastActivityAt: now.activity });
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

  /**
   * Opens the session's stream. With a mode, what it sends goes to the pane at once; with
   * null it is held (every item, comment, notice and decoded event, in order) until the
   * handle's release says how to read it: the history's divider is drawn by then, and items
   * the history already holds are dropped first (dropRepeats).
   */
  #subscribe(sessionId: string, mode: LiveMode | null): HeldStream {
    // Only the history can repeat the journal: let go of it (and what it holds) once that is
    // over.
    let overlap: JournalOverlap | null = null;
    let fromJournal = 0;
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
    let inHistory = false;
    let fromServer = 0;
    let lastItemAt = 0;
    let idleTimer: NodeJS.Timeout | null = null;
    let live = false;
    let liveAt: number | null = null;
    /** The history was read before the stream was live: from then until live may be lost. */
    let gapFrom: number | null = null;
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
    const onLive = () => {
      if (gapFrom === null) return;
      const from = gapFrom;
      gapFrom = null;
      store
        .getState()
        .pushMarker(
          sessionId,
          "notice",
          `The stream went live after the history was read: events from ${formatTimeSpan(from, liveAt ?? now())} may be missing.`,
        );
    };
    /** What a held stream sent, in order, until release. */
    let held: Held[] | null = mode === null ? [] : null;
    /** Statuses are held too from the first that draws a line (see onStatus). */
    let holdStatuses = false;
    let heldFollow = false;
    let ready: () => void = () => {};
    const readyPromise = new Promise<void>((resolve) => {
      ready = resolve;
    });
    let waitTimer: NodeJS.Timeout | null = null;
    if (mode === null) {
      waitTimer = setTimeout(() => ready(), HISTORY_WAIT_MS);
      waitTimer.unref?.();
      void readyPromise.then(() => {
        if (waitTimer !== null) clearTimeout(waitTimer);
        waitTimer = null;
      });
    }
    const setMode = (m: LiveMode) => {
      overlap = m.overlap;
      fromJournal = m.fromJournal;
      inHistory = m.streamHistory;
      gapFrom = m.gapFrom;
      if (inHistory && fromJournal === 0) store.getState().pushPhase(sessionId, "history");
    };
    if (mode !== null) setMode(mode);

    const deliverItem = (event: string | undefined, data: string, id?: string, at?: number) => {
      if (inHistory) {
        lastItemAt = performance.now();
        if (event === "heartbeat") endHistory();
        else if (overlap?.repeats(event, data, id)) return;
        else fromServer++;
      }
      const when = at ?? now();
      journal?.record(sessionId, event, data, id, when);
      this.#opts.onItem?.(sessionId, event, data, when);
      const s = store.getState();
      const ev = s.pushItem(sessionId, event, data, id, when);
      if (ev !== null) afterEvent(s, ev);
    };
    const deliverEvent = (ev: SessionEvent) => {
      const s = store.getState();
      s.pushEvent(sessionId, ev);
      afterEvent(s, ev);
    };
    const deliverNotice = (notice: StreamNotice) => {
      store.getState().pushNotice(sessionId, notice);
      // Events may be missing: the record says what state the session is in now.
      if (notice.kind === "gap" && sessions) void this.#reread(sessionId, sessions);
    };
    const onComment = (text: string) => {
      if (text === HISTORY_END_COMMENT) endHistory();
    };

    let readOnly = false;
    sub = subscribe({
      ...this.#opts.subscribeOptions,
      config,
      ...(this.#opts.transport ? { transport: this.#opts.transport } : {}),
      sessionId,
      lastEventId,
      onComment: (text) => {
        if (held) held.push({ kind: "comment", text });
        else onComment(text);
      },
      // Items go to the store undecoded: it decodes only what a pane will show, and returns
      // the events it decoded at once (heartbeats, state changes among them).
      onItem: (event, data, id, at) => {
        if (held) held.push({ kind: "item", event, data, id, at });
        else deliverItem(event, data, id, at);
      },
      onEvent: (ev) => {
        if (held) held.push({ kind: "event", ev });
        else deliverEvent(ev);
      },
      onNotice: (notice) => {
        if (held) {
          // Its "live" comes next, and must follow it.
          holdStatuses = true;
          held.push({ kind: "notice", notice });
        } else deliverNotice(notice);
      },
      onStatus: (status: StreamStatus) => {
        if (status.state === "stopped" && needsPromptScope(status.error)) readOnly = true;
        if (status.state === "reconnecting" || status.state === "stopped") endHistory();
        if (status.state !== "connecting") ready();
        if (readOnly) {
          // The key cannot have live events: the record is followed instead, said once (after
          // the history, when the stream was held for it).
          if (sub && this.#subs.get(sessionId) === sub) {
            this.#forget(sessionId, sub);
            if (held) heldFollow = true;
            else this.#followRecord(sessionId);
          }
          return;
        }
        if (status.state === "live") {
          live = true;
          liveAt = now();
          if (!held) onLive();
          if (inHistory && idleTimer === null) {
            lastItemAt = performance.now();
            watchIdle();
          }
        } else if (status.state !== "connecting") live = false;
        const meta = sub
          ? {
              lastEventId: sub.lastEventId,
              heartbeatIntervalMs: sub.heartbeatIntervalMs,
              watchdogMs: sub.watchdogMs,
            }
          : undefined;
        // Held too once a status would draw a line (a stream that stops or drops at once says
        // so below the history, not above it); till then the title says it is connecting, live.
        if (
          held &&
          (holdStatuses || status.state === "reconnecting" || status.state === "stopped")
        ) {
          holdStatuses = true;
          held.push({ kind: "status", status, meta });
        } else store.getState().pushStatus(sessionId, status, meta);
        if (status.state === "stopped" && sub && this.#subs.get(sessionId) === sub) {
          this.#forget(sessionId, sub);
        }
      },
    });
    this.#subs.set(sessionId, sub);
    const clean = journal?.clean;
    return {
      ready: readyPromise,
      live: () => live,
      dropRepeats: (history) => {
        if (!held) return 0;
        const items = held.filter((h): h is HeldItem => h.kind === "item");
        const drop = heldOverlap(
          history,
          logSequence(
            items.map((h) => ({ event: h.event ?? "message", data: h.data })),
            clean,
          ),
        );
        if (drop === 0) return 0;
        let n = 0;
        held = held.filter((h) => h.kind !== "item" || n++ >= drop);
        return items.slice(0, drop).filter((h) => h.event !== "heartbeat").length;
      },
      release: (m) => {
        if (!held) return;
        const queue = held;
        held = null;
        setMode(m);
        for (const h of queue) {
          if (h.kind === "item") deliverItem(h.event, h.data, h.id, h.at);
          else if (h.kind === "event") deliverEvent(h.ev);
          else if (h.kind === "notice") deliverNotice(h.notice);
          else if (h.kind === "status") store.getState().pushStatus(sessionId, h.status, h.meta);
          else onComment(h.text);
        }
        if (heldFollow) {
          this.#followRecord(sessionId);
          return;
        }
        if (live) {
          onLive();
          if (inHistory && idleTimer === null) {
            lastItemAt = performance.now();
            watchIdle();
          }
        }
      },
    };
  }

  /** Stop streaming a session and, unless `keep`, drop its slice from the store. */
  closeStream(sessionId: string, opts: CloseOptions = {}): void {
    this.#liveOnly.delete(sessionId);
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
    this.#liveOnly.clear();
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

/** How a stream's items are read once they reach the pane (see #subscribe). */
interface LiveMode {
  /** Repeats of the journal to drop among a server's recent events sent on open. */
  overlap: JournalOverlap | null;
  /** Entries the journal put above. */
  fromJournal: number;
  /** Read the first burst as history (a server without the history endpoint). */
  streamHistory: boolean;
  /** The history was read at this moment, before the stream was live: say what may be lost. */
  gapFrom: number | null;
}

type HeldItem = {
  kind: "item";
  event: string | undefined;
  data: string;
  id: string | undefined;
  at: number;
};
type Held =
  | HeldItem
  | { kind: "event"; ev: SessionEvent }
  | { kind: "notice"; notice: StreamNotice }
  | { kind: "comment"; text: string }
  | { kind: "status"; status: StreamStatus; meta: StreamMeta | undefined };

/** A stream opened before the history was read, holding what it sends. */
interface HeldStream {
  /** Resolves once the stream is live, failed or stopped, or after HISTORY_WAIT_MS. */
  ready: Promise<void>;
  /** Whether the stream is live now. */
  live(): boolean;
  /**
   * Drops the held items the history already holds (heldOverlap); returns how many, not
   * counting heartbeats.
   */
  dropRepeats(history: LogSequence): number;
  /** Delivers what was held, read as the mode says, and what comes from now on. */
  release(mode: LiveMode): void;
}

/**
 * Longest a pane waits for its stream to be live before reading the history anyway (a stream
 * paced by the request budget, or one that cannot connect); then it says what may be lost.
 */
const HISTORY_WAIT_MS = 3000;

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
  last: { state: string | null; activity: number | null; prompt: string | null } | null;
}

/** A stream refused for want of sessions:prompt (a 403 naming it). */
function needsPromptScope(error: unknown): boolean {
  if (!(error instanceof MissingScopeError)) return false;
  return error.requiredScope === "sessions:prompt" || error.message.includes("sessions:prompt");
}

/** The status of a record's last_prompt ({status, …}), as one short word, or null. */
function promptStatus(record: Record<string, unknown>): string | null {
  const st = lastPrompt(record)?.status;
  return st === undefined || st === null ? null : cutText(sanitizeLine(st), 64);
}

/** Timeline entries a history request leaves free for the gap marker and the divider. */
const MARKER_ROOM = 2;

/**
 * A server that sends history without saying where it ends sends it in one burst: this long
 * without an item after the stream opened means live events from here.
 */
const HISTORY_IDLE_MS = 250;

/**
 * The divider's words: what is above it, and what was left out (repeats of the journal,
 * older history entries than where the journal ends, live events the history already held).
 */
function dividerText(
  fromJournal: number,
  fromServer: number,
  repeats: number,
  lead = "live from here",
  older = 0,
  liveRepeats = 0,
): string {
  const above: string[] = [];
  if (fromJournal > 0) above.push(`${fromJournal} from the journal`);
  if (fromServer > 0) above.push(`${fromServer} from the server`);
  if (repeats > 0)
    above.push(`${repeats} repeat${repeats === 1 ? "" : "s"} of the journal skipped`);
  if (older > 0)
    above.push(
      `${older} older entr${older === 1 ? "y" : "ies"} of the history than the journal's end skipped`,
    );
  if (liveRepeats > 0)
    above.push(
      `${liveRepeats} live event${liveRepeats === 1 ? "" : "s"} the history already held skipped`,
    );
  return above.length > 0 ? `${lead} · above: ${above.join(", ")}` : lead;
}
