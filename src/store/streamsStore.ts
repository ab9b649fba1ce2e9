import { createStore, type StoreApi } from "zustand/vanilla";
import type { StreamStatus } from "../client/eventStream.js";
import type { SessionEvent } from "../protocol/events.js";
import { formatDuration } from "../text/format.js";
import { RingBuffer } from "../text/ringBuffer.js";
import { sanitize } from "../text/sanitize.js";
import { RateMeter } from "./rateMeter.js";
import {
  appendEvent,
  appendNotice,
  DEFAULT_MAX_ENTRY_CHARS,
  newWriter,
  type TimelineEntry,
  type TimelineKind,
  type TimelineWriter,
} from "./timeline.js";

/**
 * Per-session stream state: scrollback, connection status, liveness and attention.
 *
 * Events of every session are queued and applied in one batch at most once per `flushMs`
 * (one frame), so a burst of a thousand events costs one store notification. A session's
 * state object is replaced only when that session changed in the batch; the others keep
 * their identity, so a pane selecting `s.sessions[id]` re-renders for its own session only.
 *
 * The ring buffer is mutated in place (no array copy per event); `version` on the session
 * object, and the buffer's own version, tell a reader when its rows are stale.
 */

export type { TimelineEntry, TimelineKind } from "./timeline.js";

/** Why a session wants the user's eyes. */
export interface Attention {
  reason: "paused" | "stopped";
  /** Sanitized, one line. */
  message: string;
  at: number;
}

export type KindCounts = Readonly<Record<TimelineKind, number>>;

export interface SessionStream {
  readonly sessionId: string;
  /** Increments whenever this object is replaced. */
  readonly version: number;
  /** Mutable, bounded scrollback; read with get/slice/toArray. */
  readonly timeline: RingBuffer<TimelineEntry>;
  readonly status: StreamStatus;
  /** Last SSE id seen: where a reopened stream resumes. */
  readonly lastEventId: string | null;
  /** Last time anything arrived on the stream (events, heartbeats, keep-alive comments). */
  readonly lastActivityAt: number | null;
  readonly lastHeartbeatAt: number | null;
  /** Observed heartbeat spacing, as the subscription measured it. */
  readonly heartbeatIntervalMs: number | null;
  /** Silence after which the subscription reconnects. */
  readonly watchdogMs: number | null;
  /** Latest state from a state_changed event. */
  readonly sessionState: string | null;
  /** Events received per kind (heartbeats included, under "heartbeat"). */
  readonly counts: KindCounts;
  /** Events received, heartbeats excluded. */
  readonly totalEvents: number;
  /** Events per second (heartbeats excluded) as of the last batch; see currentRate for now. */
  readonly rate: number;
  readonly rateMeter: RateMeter;
  readonly attention: Attention | null;
  readonly openedAt: number;
}

export interface StreamMeta {
  lastEventId?: string | null;
  lastActivityAt?: number | null;
  heartbeatIntervalMs?: number | null;
  watchdogMs?: number | null;
}

export interface StreamsState {
  readonly sessions: Readonly<Record<string, SessionStream>>;
  /** Session ids in the order they were added. */
  readonly order: readonly string[];
  /** Increments whenever any session raises attention (the UI rings the bell on it). */
  readonly attentionVersion: number;

  /** Create the session's slice now (no batching), so a pane can show "connecting" at once. */
  ensure(sessionId: string, status?: StreamStatus): void;
  /** Queue an event; applied at the next flush. Ignored for a session not ensured (or removed). */
  pushEvent(sessionId: string, ev: SessionEvent, at?: number): void;
  /** Queue a status change; applied at the next flush, in order with events. */
  pushStatus(sessionId: string, status: StreamStatus, meta?: StreamMeta): void;
  /** Queue liveness figures from the subscription. */
  pushMeta(sessionId: string, meta: StreamMeta): void;
  /** Apply everything queued now (tests; shutdown). */
  flushNow(): void;
  /** The user has seen it: clear the session's attention flag. */
  acknowledge(sessionId: string): void;
  clearTimeline(sessionId: string): void;
  /** Drop the session's slice; its queued items are discarded. */
  remove(sessionId: string): void;
  /** Stop the flush timer and drop the queue. */
  dispose(): void;
}

export type StreamsStore = StoreApi<StreamsState>;

export interface StreamsStoreOptions {
  /** Entries kept per session. Default 5000. */
  capacity?: number;
  /** Longest flush delay: one frame. Default 16 ms. */
  flushMs?: number;
  /** Longest text of one entry before it is cut with a marker. Default 16384. */
  maxEntryChars?: number;
  /** Window of the event rate. Default 2000 ms. */
  rateWindowMs?: number;
  now?: () => number;
}

export const DEFAULT_CAPACITY = 5000;
export const DEFAULT_FLUSH_MS = 16;

const ZERO_COUNTS: KindCounts = {
  prompt: 0,
  output: 0,
  file: 0,
  state: 0,
  heartbeat: 0,
  unknown: 0,
  malformed: 0,
  notice: 0,
};

const EVENT_KIND_TO_TIMELINE: Record<SessionEvent["kind"], TimelineKind> = {
  prompt_progress: "prompt",
  process_output: "output",
  file_changed: "file",
  state_changed: "state",
  heartbeat: "heartbeat",
  unknown: "unknown",
  malformed: "malformed",
};

type Op =
  | { type: "event"; sessionId: string; ev: SessionEvent; at: number }
  | {
      type: "status";
      sessionId: string;
      status: StreamStatus;
      meta: StreamMeta | undefined;
      at: number;
    }
  | { type: "meta"; sessionId: string; meta: StreamMeta };

/** A session object being rebuilt during one flush. */
type Draft = { -readonly [K in keyof SessionStream]: SessionStream[K] } & {
  counts: Record<TimelineKind, number>;
};

interface Internal {
  writer: TimelineWriter;
  /** Set when the connection was lost, so the next "live" writes a "reconnected" notice. */
  outageSince: number | null;
}

function oneLine(s: string): string {
  return sanitize(s).replace(/\s+/g, " ").trim();
}

export function createStreamsStore(opts: StreamsStoreOptions = {}): StreamsStore {
  const capacity = opts.capacity ?? DEFAULT_CAPACITY;
  const flushMs = opts.flushMs ?? DEFAULT_FLUSH_MS;
  const maxEntryChars = opts.maxEntryChars ?? DEFAULT_MAX_ENTRY_CHARS;
  const rateWindowMs = opts.rateWindowMs ?? 2000;
  const now = opts.now ?? Date.now;

  let queue: Op[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  const internals = new Map<string, Internal>();

  return createStore<StreamsState>()((set, get) => {
    function schedule(): void {
      if (timer !== null) return;
      timer = setTimeout(flush, flushMs);
      // A pending flush must not keep a finished process (headless command, test) alive.
      timer.unref?.();
    }

    function enqueue(op: Op): void {
      if (!internals.has(op.sessionId)) return;
      queue.push(op);
      schedule();
    }

    function newStream(sessionId: string, status: StreamStatus): SessionStream {
      internals.set(sessionId, { writer: newWriter(maxEntryChars), outageSince: null });
      return {
        sessionId,
        version: 0,
        timeline: new RingBuffer<TimelineEntry>(capacity),
        status,
        lastEventId: null,
        lastActivityAt: null,
        lastHeartbeatAt: null,
        heartbeatIntervalMs: null,
        watchdogMs: null,
        sessionState: null,
        counts: ZERO_COUNTS,
        totalEvents: 0,
        rate: 0,
        rateMeter: new RateMeter(rateWindowMs),
        attention: null,
        openedAt: now(),
      };
    }

    let raisedAttention = false;

    function applyMeta(d: Draft, meta: StreamMeta): void {
      if (meta.lastEventId !== undefined && meta.lastEventId !== null)
        d.lastEventId = meta.lastEventId;
      if (meta.lastActivityAt !== undefined && meta.lastActivityAt !== null) {
        d.lastActivityAt = Math.max(d.lastActivityAt ?? 0, meta.lastActivityAt);
      }
      if (meta.heartbeatIntervalMs !== undefined) d.heartbeatIntervalMs = meta.heartbeatIntervalMs;
      if (meta.watchdogMs !== undefined) d.watchdogMs = meta.watchdogMs;
    }

    function applyEvent(d: Draft, internal: Internal, ev: SessionEvent, at: number): void {
      const kind = EVENT_KIND_TO_TIMELINE[ev.kind];
      d.counts[kind]++;
      d.lastActivityAt = at;
      if (ev.id !== null) d.lastEventId = ev.id;
      if (ev.kind === "heartbeat") {
        d.lastHeartbeatAt = at;
        return;
      }
      d.totalEvents++;
      d.rateMeter.record(at);
      appendEvent(d.timeline, internal.writer, ev, at);
      if (ev.kind === "state_changed") {
        const state = d.timeline.last()?.state ?? null;
        const was = d.sessionState;
        d.sessionState = state;
        if (state === "paused" && was !== "paused") {
          d.attention = { reason: "paused", message: "session paused", at };
          raisedAttention = true;
        } else if (state !== "paused" && d.attention?.reason === "paused") {
          // It resumed by itself: nothing is waiting for the user any more.
          d.attention = null;
        }
      }
    }

    function applyStatus(d: Draft, internal: Internal, status: StreamStatus, at: number): void {
      const prev = d.status;
      d.status = status;
      switch (status.state) {
        case "reconnecting":
          if (internal.outageSince === null) {
            internal.outageSince = at;
            appendNotice(
              d.timeline,
              internal.writer,
              `connection lost (${oneLine(status.reason)}); reconnecting`,
              at,
            );
          }
          break;
        case "live":
          if (internal.outageSince !== null) {
            appendNotice(
              d.timeline,
              internal.writer,
              `reconnected after ${formatDuration(at - internal.outageSince)}`,
              at,
            );
            internal.outageSince = null;
          }
          break;
        case "stopped": {
          if (prev.state === "stopped") break;
          internal.outageSince = null;
          const why = oneLine(status.error?.message ?? status.reason);
          appendNotice(d.timeline, internal.writer, `stream stopped: ${why}`, at);
          if (status.error !== null) {
            d.attention = { reason: "stopped", message: why, at };
            raisedAttention = true;
          }
          break;
        }
        case "connecting":
          if (prev.state === "stopped") {
            appendNotice(d.timeline, internal.writer, "stream reopened", at);
          }
          break;
      }
    }

    function flush(): void {
      if (timer !== null) {
        clearTimeout(timer);
        timer = null;
      }
      if (queue.length === 0) return;
      const ops = queue;
      queue = [];
      const state = get();
      const drafts = new Map<string, Draft>();
      raisedAttention = false;
      for (const op of ops) {
        const internal = internals.get(op.sessionId);
        const current = state.sessions[op.sessionId];
        if (!internal || !current) continue;
        let d = drafts.get(op.sessionId);
        if (!d) {
          d = { ...current, counts: { ...current.counts } };
          drafts.set(op.sessionId, d);
        }
        if (op.type === "event") applyEvent(d, internal, op.ev, op.at);
        else if (op.type === "status") {
          if (op.meta) applyMeta(d, op.meta);
          applyStatus(d, internal, op.status, op.at);
        } else applyMeta(d, op.meta);
      }
      if (drafts.size === 0) return;
      const t = now();
      const sessions = { ...state.sessions };
      for (const [id, d] of drafts) {
        d.version = d.version + 1;
        d.rate = d.rateMeter.rate(t);
        sessions[id] = d;
      }
      set({
        sessions,
        attentionVersion: state.attentionVersion + (raisedAttention ? 1 : 0),
      });
    }

    function replace(sessionId: string, patch: (s: SessionStream) => Partial<SessionStream>): void {
      const state = get();
      const current = state.sessions[sessionId];
      if (!current) return;
      const next = { ...current, ...patch(current), version: current.version + 1 };
      set({ sessions: { ...state.sessions, [sessionId]: next } });
    }

    return {
      sessions: {},
      order: [],
      attentionVersion: 0,

      ensure(sessionId, status = { state: "connecting", attempt: 0 }) {
        const state = get();
        if (state.sessions[sessionId]) return;
        set({
          sessions: { ...state.sessions, [sessionId]: newStream(sessionId, status) },
          order: [...state.order, sessionId],
        });
      },

      pushEvent(sessionId, ev, at = now()) {
        enqueue({ type: "event", sessionId, ev, at });
      },

      pushStatus(sessionId, status, meta) {
        enqueue({ type: "status", sessionId, status, meta, at: now() });
      },

      pushMeta(sessionId, meta) {
        enqueue({ type: "meta", sessionId, meta });
      },

      flushNow: flush,

      acknowledge(sessionId) {
        if (get().sessions[sessionId]?.attention) replace(sessionId, () => ({ attention: null }));
      },

      clearTimeline(sessionId) {
        const s = get().sessions[sessionId];
        const internal = internals.get(sessionId);
        if (!s || !internal) return;
        s.timeline.clear();
        internal.writer.openPromptSeq = null;
        replace(sessionId, () => ({}));
      },

      remove(sessionId) {
        const state = get();
        if (!state.sessions[sessionId]) return;
        internals.delete(sessionId);
        queue = queue.filter((op) => op.sessionId !== sessionId);
        const { [sessionId]: _gone, ...rest } = state.sessions;
        set({ sessions: rest, order: state.order.filter((id) => id !== sessionId) });
      },

      dispose() {
        if (timer !== null) clearTimeout(timer);
        timer = null;
        queue = [];
      },
    };
  });
}

/** Selector factory: the one session's object (stable identity while it does not change). */
export function selectStream(sessionId: string): (s: StreamsState) => SessionStream | undefined {
  return (s) => s.sessions[sessionId];
}

/** Events per second right now (decays while the session is quiet). */
export function currentRate(stream: SessionStream, now: number = Date.now()): number {
  return stream.rateMeter.rate(now);
}

/** Ids of sessions needing attention, in the order they were opened. */
export function selectAttentionIds(s: StreamsState): string[] {
  return s.order.filter((id) => s.sessions[id]?.attention);
}

/** The next session needing attention after `afterId` (wrapping), or null. */
export function nextAttention(s: StreamsState, afterId: string | null): string | null {
  const ids = selectAttentionIds(s);
  if (ids.length === 0) return null;
  if (afterId === null) return ids[0] ?? null;
  const pos = s.order.indexOf(afterId);
  const after = ids.find((id) => s.order.indexOf(id) > pos);
  return after ?? ids[0] ?? null;
}
