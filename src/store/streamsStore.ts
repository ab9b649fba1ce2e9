import { createStore, type StoreApi } from "zustand/vanilla";
import type { StreamStatus } from "../client/eventStream.js";
import { decodeEvent, type SessionEvent } from "../protocol/events.js";
import { formatDuration } from "../text/format.js";
import { noRedaction, type RedactFn } from "../text/redact.js";
import { sanitize } from "../text/sanitize.js";
import { ItemQueue } from "./itemQueue.js";
import { RateMeter } from "./rateMeter.js";
import {
  appendEvent,
  appendItem,
  appendNotice,
  DEFAULT_MAX_ENTRY_CHARS,
  materializeItem,
  newWriter,
  type TimelineKind,
  type TimelineWriter,
} from "./timeline.js";
import { LAZY_KINDS, lazyKindCode, TimelineBuffer } from "./timelineBuffer.js";

/**
 * Per-session stream state: scrollback, connection status, liveness and attention.
 *
 * Events of every session are queued and applied in one batch at most once per `flushMs`
 * (one frame), so a burst of a thousand events costs one store notification. A session's
 * state object is replaced only when that session changed in the batch; the others keep
 * their identity, so a pane selecting `s.sessions[id]` re-renders for its own session only.
 *
 * At a flood's rate (a million events a second) the cost is in what each event leaves behind
 * for the garbage collector, so the hot path keeps that small: SSE items come in undecoded
 * (pushItem), wait in flat per-session columns (ItemQueue: queuing allocates nothing), and
 * output, file and prompt items enter the timeline undecoded too, to be decoded, checked and
 * sanitized when a pane first reads them (TimelineBuffer, timeline.ts appendItem).
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
  readonly timeline: TimelineBuffer;
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
  /**
   * Events received per kind (heartbeats included, under "heartbeat"). An item kept undecoded
   * counts under its event name, also when its payload turns out malformed once shown.
   */
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
  /**
   * Queue an SSE item as it arrived (event name, data, id, receive time; default now): the
   * same as pushEvent(decodeEvent(…)), but output, file and prompt items may stay undecoded
   * until a reader looks at them (see TimelineBuffer). Other items are decoded now and
   * returned (null for the first kinds), so the caller can act on heartbeats and state changes.
   */
  pushItem(
    sessionId: string,
    event: string | undefined,
    data: string,
    id: string | undefined,
    at?: number,
  ): SessionEvent | null;
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
  /** Hides the user's key in every timeline entry (see src/text/redact.ts). */
  redact?: RedactFn;
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

/** A queued status change (events are queued as they are). */
class StatusItem {
  constructor(
    readonly status: StreamStatus,
    readonly meta: StreamMeta | undefined,
  ) {}
}

/** Queued liveness figures. */
class MetaItem {
  constructor(readonly meta: StreamMeta) {}
}

/** What is queued besides undecoded items. */
type QueueItem = SessionEvent | StatusItem | MetaItem;

/** Timeline kind of each undecoded item kind (LAZY_KINDS order). */
const LAZY_TIMELINE_KINDS: readonly TimelineKind[] = LAZY_KINDS.map(
  (k) => EVENT_KIND_TO_TIMELINE[k],
);

/** A session object being rebuilt during one flush. */
type Draft = { -readonly [K in keyof SessionStream]: SessionStream[K] } & {
  counts: Record<TimelineKind, number>;
};

interface Internal {
  readonly sessionId: string;
  writer: TimelineWriter;
  /** Set when the connection was lost, so the next "live" writes a "reconnected" notice. */
  outageSince: number | null;
  /** What came since the last flush, in order. */
  readonly queue: ItemQueue<QueueItem>;
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
  const redact = opts.redact ?? noRedaction;

  let timer: ReturnType<typeof setTimeout> | null = null;
  const internals = new Map<string, Internal>();
  /** Sessions with queued items, in the order they first got one since the last flush. */
  let dirty: Internal[] = [];

  return createStore<StreamsState>()((set, get) => {
    function schedule(): void {
      if (timer !== null) return;
      timer = setTimeout(flush, flushMs);
      // A pending flush must not keep a finished process (headless command, test) alive.
      timer.unref?.();
    }

    /** Before queuing anything: the first item since the last flush schedules the next. */
    function touch(internal: Internal): void {
      if (internal.queue.length > 0) return;
      dirty.push(internal);
      schedule();
    }

    function enqueue(internal: Internal, item: QueueItem, at: number): void {
      touch(internal);
      internal.queue.push(item, at);
    }

    function newStream(sessionId: string, status: StreamStatus): SessionStream {
      internals.set(sessionId, {
        sessionId,
        writer: newWriter(maxEntryChars, redact),
        outageSince: null,
        queue: new ItemQueue<QueueItem>(),
      });
      return {
        sessionId,
        version: 0,
        timeline: new TimelineBuffer(capacity, (kind, data, id, seq, at) =>
          materializeItem(kind, data, id, seq, at, maxEntryChars, redact),
        ),
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
          const why = redact(oneLine(status.error?.message ?? status.reason));
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

    /**
     * Everything the session queued, in order. Runs of undecoded items, nearly all of a busy
     * stream, only go to the timeline: their counts, rate, last id and time are summed up
     * and written to the draft once per run.
     */
    function applyQueue(d: Draft, internal: Internal): void {
      const q = internal.queue;
      const w = internal.writer;
      const n = q.length;
      let items = 0;
      let lastAt = 0;
      let lastId: string | null = null;
      let rateAt = 0;
      let rateCount = 0;
      const perKind = new Uint32Array(LAZY_KINDS.length);
      const settle = () => {
        if (items === 0) return;
        for (let k = 0; k < perKind.length; k++) {
          const kind = LAZY_TIMELINE_KINDS[k] as TimelineKind;
          d.counts[kind] += perKind[k] as number;
          perKind[k] = 0;
        }
        d.totalEvents += items;
        d.lastActivityAt = lastAt;
        if (lastId !== null) d.lastEventId = lastId;
        if (rateCount > 0) d.rateMeter.record(rateAt, rateCount);
        items = 0;
        lastId = null;
        rateCount = 0;
      };
      for (let i = 0; i < n; i++) {
        const code = q.code(i);
        const at = q.at(i);
        if (code !== ItemQueue.OTHER) {
          const id = q.id(i);
          items++;
          perKind[code] = (perKind[code] as number) + 1;
          lastAt = at;
          if (id !== null) lastId = id;
          if (at !== rateAt || rateCount === 0) {
            if (rateCount > 0) d.rateMeter.record(rateAt, rateCount);
            rateAt = at;
            rateCount = 0;
          }
          rateCount++;
          appendItem(d.timeline, w, code, q.data(i), id, at);
          continue;
        }
        settle();
        const item = q.thing(i);
        if (item instanceof StatusItem) {
          if (item.meta) applyMeta(d, item.meta);
          applyStatus(d, internal, item.status, at);
        } else if (item instanceof MetaItem) applyMeta(d, item.meta);
        else applyEvent(d, internal, item, at);
      }
      settle();
      q.clear();
    }

    function flush(): void {
      if (timer !== null) {
        clearTimeout(timer);
        timer = null;
      }
      if (dirty.length === 0) return;
      const batch = dirty;
      dirty = [];
      const state = get();
      const t = now();
      let sessions: Record<string, SessionStream> | null = null;
      raisedAttention = false;
      for (const internal of batch) {
        const current = state.sessions[internal.sessionId];
        // Removed (or removed and added again) since it queued: its items are dropped.
        if (!current || internals.get(internal.sessionId) !== internal) {
          internal.queue.clear();
          continue;
        }
        const d: Draft = { ...current, counts: { ...current.counts } };
        applyQueue(d, internal);
        d.version = current.version + 1;
        d.rate = d.rateMeter.rate(t);
        sessions ??= { ...state.sessions };
        sessions[internal.sessionId] = d;
      }
      if (sessions === null) return;
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
        const internal = internals.get(sessionId);
        if (internal) enqueue(internal, ev, at);
      },

      pushItem(sessionId, event, data, id, at) {
        const internal = internals.get(sessionId);
        if (!internal) return null;
        const code = lazyKindCode(event);
        if (code !== -1) {
          touch(internal);
          internal.queue.pushItem(
            code,
            data,
            id === undefined || id === "" ? null : id,
            at ?? now(),
          );
          return null;
        }
        const ev = decodeEvent(event, data, id);
        enqueue(internal, ev, at ?? now());
        return ev;
      },

      pushStatus(sessionId, status, meta) {
        const internal = internals.get(sessionId);
        if (internal) enqueue(internal, new StatusItem(status, meta), now());
      },

      pushMeta(sessionId, meta) {
        const internal = internals.get(sessionId);
        if (internal) enqueue(internal, new MetaItem(meta), 0);
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
        const { [sessionId]: _gone, ...rest } = state.sessions;
        set({ sessions: rest, order: state.order.filter((id) => id !== sessionId) });
      },

      dispose() {
        if (timer !== null) clearTimeout(timer);
        timer = null;
        for (const internal of dirty) internal.queue.clear();
        dirty = [];
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
