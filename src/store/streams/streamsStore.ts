import { createStore, type StoreApi } from "zustand/vanilla";
import type { StreamNotice, StreamStatus } from "../../client/eventStream.js";
import type { SessionEvent } from "../../protocol/events.js";
import { noRedaction, type RedactFn } from "../../text/redact.js";
import type { MarkerKind } from "./entry.js";
import {
  applyQueue,
  draftOf,
  type Ingest,
  newIngest,
  queueEvent,
  queueItem,
  queueMarker,
  queueMeta,
  queueNotice,
  queuePhase,
  queueStatus,
} from "./ingest.js";
import {
  newSessionStream,
  type SessionStream,
  type StreamMeta,
  type StreamPhase,
} from "./sessionStream.js";
import { DEFAULT_MAX_ENTRY_CHARS } from "./timeline.js";

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
 *
 * What a batch does to a session is ingest.ts (pure functions of a draft); this store only
 * queues, decides when to flush, and publishes the drafts.
 */

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
  /** Queue a notice of the subscription (a gap, dropped duplicates); applied in order. */
  pushNotice(sessionId: string, notice: StreamNotice): void;
  /**
   * Queue a line of the client's own, in order with events. `ifNotEmpty`: only when the
   * timeline already holds something by then (a divider with nothing above it says nothing).
   */
  pushMarker(
    sessionId: string,
    kind: MarkerKind,
    text: string,
    opts?: { at?: number; ifNotEmpty?: boolean },
  ): void;
  /** Queue a change of phase (see StreamPhase), in order with events. */
  pushPhase(sessionId: string, phase: StreamPhase): void;
  /** Apply everything queued now (a pane's past once whole; tests; shutdown). */
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

export function createStreamsStore(opts: StreamsStoreOptions = {}): StreamsStore {
  const capacity = opts.capacity ?? DEFAULT_CAPACITY;
  const flushMs = opts.flushMs ?? DEFAULT_FLUSH_MS;
  const maxEntryChars = opts.maxEntryChars ?? DEFAULT_MAX_ENTRY_CHARS;
  const rateWindowMs = opts.rateWindowMs ?? 2000;
  const now = opts.now ?? Date.now;
  const redact = opts.redact ?? noRedaction;

  let timer: ReturnType<typeof setTimeout> | null = null;
  const ingests = new Map<string, Ingest>();
  /** Sessions with queued items, in the order they first got one since the last flush. */
  let dirty: Ingest[] = [];

  return createStore<StreamsState>()((set, get) => {
    function schedule(): void {
      if (timer !== null) return;
      timer = setTimeout(flush, flushMs);
      // A pending flush must not keep a finished process (headless command, test) alive.
      timer.unref?.();
    }

    /** Before queuing anything: the first item since the last flush schedules the next. */
    function touch(ingest: Ingest): Ingest {
      if (ingest.queue.length === 0) {
        dirty.push(ingest);
        schedule();
      }
      return ingest;
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
      const next = applyBatch(state.sessions, batch, ingests, now());
      if (next === null) return;
      set({
        sessions: next.sessions,
        attentionVersion: state.attentionVersion + (next.raisedAttention ? 1 : 0),
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
        ingests.set(sessionId, newIngest(sessionId, maxEntryChars, redact));
        const stream = newSessionStream(sessionId, status, {
          capacity,
          maxEntryChars,
          rateWindowMs,
          openedAt: now(),
          redact,
        });
        set({
          sessions: { ...state.sessions, [sessionId]: stream },
          order: [...state.order, sessionId],
        });
      },

      pushEvent(sessionId, ev, at = now()) {
        const ingest = ingests.get(sessionId);
        if (ingest) queueEvent(touch(ingest), ev, at);
      },

      pushItem(sessionId, event, data, id, at) {
        const ingest = ingests.get(sessionId);
        return ingest ? queueItem(touch(ingest), event, data, id, at ?? now()) : null;
      },

      pushStatus(sessionId, status, meta) {
        const ingest = ingests.get(sessionId);
        if (ingest) queueStatus(touch(ingest), status, meta, now());
      },

      pushMeta(sessionId, meta) {
        const ingest = ingests.get(sessionId);
        if (ingest) queueMeta(touch(ingest), meta, meta.sessionState ? now() : 0);
      },

      pushNotice(sessionId, notice) {
        const ingest = ingests.get(sessionId);
        if (ingest) queueNotice(touch(ingest), notice, now());
      },

      pushMarker(sessionId, kind, text, o = {}) {
        const ingest = ingests.get(sessionId);
        if (ingest) queueMarker(touch(ingest), kind, text, o.ifNotEmpty ?? false, o.at ?? now());
      },

      pushPhase(sessionId, phase) {
        const ingest = ingests.get(sessionId);
        if (ingest) queuePhase(touch(ingest), phase);
      },

      flushNow: flush,

      acknowledge(sessionId) {
        if (get().sessions[sessionId]?.attention) replace(sessionId, () => ({ attention: null }));
      },

      clearTimeline(sessionId) {
        const s = get().sessions[sessionId];
        const ingest = ingests.get(sessionId);
        if (!s || !ingest) return;
        s.timeline.clear();
        ingest.writer.openPromptSeq = null;
        replace(sessionId, () => ({}));
      },

      remove(sessionId) {
        const state = get();
        if (!state.sessions[sessionId]) return;
        ingests.delete(sessionId);
        const { [sessionId]: _gone, ...rest } = state.sessions;
        set({ sessions: rest, order: state.order.filter((id) => id !== sessionId) });
      },

      dispose() {
        if (timer !== null) clearTimeout(timer);
        timer = null;
        for (const ingest of dirty) ingest.queue.clear();
        dirty = [];
      },
    };
  });
}

/**
 * A flush: each queued session's items applied to a new version of its stream (the batch's
 * queues are emptied). Null when no stream changed (every session removed since it queued).
 */
function applyBatch(
  current: Readonly<Record<string, SessionStream>>,
  batch: readonly Ingest[],
  ingests: ReadonlyMap<string, Ingest>,
  t: number,
): { sessions: Record<string, SessionStream>; raisedAttention: boolean } | null {
  let sessions: Record<string, SessionStream> | null = null;
  let raisedAttention = false;
  for (const ingest of batch) {
    const stream = current[ingest.sessionId];
    // Removed (or removed and added again) since it queued: its items are dropped.
    if (!stream || ingests.get(ingest.sessionId) !== ingest) {
      ingest.queue.clear();
      continue;
    }
    const d = draftOf(stream);
    if (applyQueue(d, ingest)) raisedAttention = true;
    d.version = stream.version + 1;
    d.rate = d.rateMeter.rate(t);
    sessions ??= { ...current };
    sessions[ingest.sessionId] = d;
  }
  return sessions === null ? null : { sessions, raisedAttention };
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
