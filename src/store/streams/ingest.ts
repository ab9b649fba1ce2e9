import type { StreamNotice, StreamStatus } from "../../client/eventStream.js";
import { decodeEvent, type SessionEvent } from "../../protocol/events.js";
import { stateNeedsAttention } from "../../protocol/states.js";
import { formatDuration, gapNotice } from "../../text/format.js";
import { noRedaction, type RedactFn } from "../../text/redact.js";
import { sanitize } from "../../text/sanitize.js";
import type { MarkerKind, TimelineKind } from "./entry.js";
import { ItemQueue } from "./itemQueue.js";
import { LAZY_KINDS, lazyKindCode } from "./lazySlots.js";
import type { SessionStream, StreamMeta, StreamPhase } from "./sessionStream.js";
import {
  appendEvent,
  appendItem,
  appendMarker,
  appendNotice,
  newWriter,
  type TimelineWriter,
} from "./timeline.js";

/**
 * What a session's stream brings in, applied to a draft of its state: pure functions of the
 * draft, the session's ingest state and the queued items, with no store, timer or clock, so
 * the streams store only decides when to apply them (one flush per frame) and property tests
 * can apply them directly.
 */

export const EVENT_KIND_TO_TIMELINE: Record<SessionEvent["kind"], TimelineKind> = {
  prompt_progress: "prompt",
  process_output: "output",
  file_changed: "file",
  state_changed: "state",
  heartbeat: "heartbeat",
  unknown: "unknown",
  malformed: "malformed",
};

/** A queued status change (events are queued as they are). */
export class StatusItem {
  constructor(
    readonly status: StreamStatus,
    readonly meta: StreamMeta | undefined,
  ) {}
}

/** Queued liveness figures. */
export class MetaItem {
  constructor(readonly meta: StreamMeta) {}
}

/** A queued notice of the subscription (a gap, dropped duplicates). */
export class NoticeItem {
  constructor(readonly notice: StreamNotice) {}
}

/** A queued marker line of the client's own (a divider, an unwatched stretch). */
export class MarkerItem {
  constructor(
    readonly kind: MarkerKind,
    readonly text: string,
    /** Only when the timeline already holds something by then. */
    readonly ifNotEmpty: boolean,
  ) {}
}

/** A queued change of phase (see StreamPhase). */
export class PhaseItem {
  constructor(readonly phase: StreamPhase) {}
}

/** What is queued besides undecoded items. */
export type QueueItem = SessionEvent | StatusItem | MetaItem | NoticeItem | MarkerItem | PhaseItem;

/** Timeline kind of each undecoded item kind (LAZY_KINDS order). */
const LAZY_TIMELINE_KINDS: readonly TimelineKind[] = LAZY_KINDS.map(
  (k) => EVENT_KIND_TO_TIMELINE[k],
);

/** A session object being rebuilt during one flush. */
export type Draft = { -readonly [K in keyof SessionStream]: SessionStream[K] } & {
  counts: Record<TimelineKind, number>;
};

/** A draft of the session's current state, to apply a batch to. */
export function draftOf(s: SessionStream): Draft {
  return { ...s, counts: { ...s.counts } };
}

/** What the store keeps per session beside its state object. */
export interface Ingest {
  readonly sessionId: string;
  writer: TimelineWriter;
  /** Set when the connection was lost, so the next "live" writes a "reconnected" notice. */
  outageSince: number | null;
  /** A gap announced for the coming "live": its marker replaces the "reconnected" notice. */
  gap: { from: number; to: number } | null;
  /** Where the events being applied come from (see StreamPhase). */
  phase: StreamPhase;
  /** What came since the last flush, in order. */
  readonly queue: ItemQueue<QueueItem>;
}

export function newIngest(
  sessionId: string,
  maxEntryChars: number,
  redact: RedactFn = noRedaction,
): Ingest {
  return {
    sessionId,
    writer: newWriter(maxEntryChars, redact),
    outageSince: null,
    gap: null,
    phase: "live",
    queue: new ItemQueue<QueueItem>(),
  };
}

/**
 * Queue an SSE item as it arrived. Output, file and prompt items stay undecoded (null is
 * returned); any other item is decoded now and returned, so the caller can act on heartbeats
 * and state changes.
 */
export function queueItem(
  ingest: Ingest,
  event: string | undefined,
  data: string,
  id: string | undefined,
  at: number,
): SessionEvent | null {
  const code = lazyKindCode(event);
  if (code !== -1) {
    ingest.queue.pushItem(code, data, id === undefined || id === "" ? null : id, at);
    return null;
  }
  const ev = decodeEvent(event, data, id);
  ingest.queue.push(ev, at);
  return ev;
}

export function queueEvent(ingest: Ingest, ev: SessionEvent, at: number): void {
  ingest.queue.push(ev, at);
}

export function queueStatus(
  ingest: Ingest,
  status: StreamStatus,
  meta: StreamMeta | undefined,
  at: number,
): void {
  ingest.queue.push(new StatusItem(status, meta), at);
}

/** `at` matters only for a meta carrying a session state (the time of its attention). */
export function queueMeta(ingest: Ingest, meta: StreamMeta, at = 0): void {
  ingest.queue.push(new MetaItem(meta), at);
}

export function queueNotice(ingest: Ingest, notice: StreamNotice, at: number): void {
  ingest.queue.push(new NoticeItem(notice), at);
}

export function queueMarker(
  ingest: Ingest,
  kind: MarkerKind,
  text: string,
  ifNotEmpty: boolean,
  at: number,
): void {
  ingest.queue.push(new MarkerItem(kind, text, ifNotEmpty), at);
}

export function queuePhase(ingest: Ingest, phase: StreamPhase): void {
  ingest.queue.push(new PhaseItem(phase), 0);
}

function oneLine(s: string): string {
  return sanitize(s).replace(/\s+/g, " ").trim();
}

/** Apply liveness figures (and a state read from the record); true when it raised attention. */
export function applyMeta(d: Draft, meta: StreamMeta, at: number): boolean {
  if (meta.lastEventId !== undefined && meta.lastEventId !== null) d.lastEventId = meta.lastEventId;
  if (meta.lastActivityAt !== undefined && meta.lastActivityAt !== null) {
    d.lastActivityAt = Math.max(d.lastActivityAt ?? 0, meta.lastActivityAt);
  }
  if (meta.heartbeatIntervalMs !== undefined) d.heartbeatIntervalMs = meta.heartbeatIntervalMs;
  if (meta.watchdogMs !== undefined) d.watchdogMs = meta.watchdogMs;
  if (meta.sessionState !== undefined && meta.sessionState !== null) {
    return observeState(d, meta.sessionState, at);
  }
  return false;
}

/**
 * A state the session is in now: entering a waiting or failed one raises attention (true is
 * returned); leaving it by itself clears the attention it raised.
 */
export function observeState(d: Draft, state: string | null, at: number): boolean {
  const was = d.sessionState;
  d.sessionState = state;
  if (stateNeedsAttention(state) && state !== was) {
    d.attention = { reason: state as string, message: `session ${state}`, at };
    return true;
  }
  if (!stateNeedsAttention(state) && d.attention && d.attention.reason !== "stopped") {
    // It moved on by itself: nothing is waiting for the user any more.
    d.attention = null;
  }
  return false;
}

/** Apply one decoded event; true when it raised attention. */
export function applyEvent(d: Draft, ingest: Ingest, ev: SessionEvent, at: number): boolean {
  const kind = EVENT_KIND_TO_TIMELINE[ev.kind];
  d.counts[kind]++;
  d.lastActivityAt = at;
  if (ev.id !== null) d.lastEventId = ev.id;
  if (ev.kind === "heartbeat") {
    d.lastHeartbeatAt = at;
    return false;
  }
  d.totalEvents++;
  d.rateMeter.record(at);
  appendEvent(d.timeline, ingest.writer, ev, at);
  // A journal's state change is old news: the fetched record says what the state is now.
  if (ev.kind === "state_changed" && ingest.phase === "journal") return false;
  if (ev.kind === "state_changed") return observeState(d, d.timeline.last()?.state ?? null, at);
  if (ingest.phase === "live") observePrompt(d, ev, at);
  return false;
}

/** How the prompt under way goes, from live items only (a replayed past is not news). */
function observePrompt(d: Draft, ev: SessionEvent, at: number): void {
  const p = d.prompt;
  if (ev.kind === "file_changed") {
    if (p?.status === "running") d.prompt = { ...p, filesChanged: p.filesChanged + 1, at };
    return;
  }
  if (ev.kind !== "prompt_progress") return;
  const type = ev.data.type;
  if (type === "done") {
    if (p?.status === "running") d.prompt = { ...p, status: "completed", at };
  } else if (type === "error") {
    d.prompt = {
      status: "error",
      at,
      message: ev.data.content,
      filesChanged: p?.filesChanged ?? 0,
    };
  } else if (p?.status !== "running") {
    d.prompt = { status: "running", at, message: null, filesChanged: 0 };
  }
}

/** Apply a notice of the subscription: a gap waits for its "live"; duplicates are counted. */
export function applyNotice(d: Draft, ingest: Ingest, n: StreamNotice, at: number): void {
  if (n.kind === "gap") {
    // Written with the "live" that follows; the state shown may be stale until the
    // record is read again (the controller then reports it as sessionState).
    ingest.gap = { from: n.from, to: n.to };
    d.gaps++;
    return;
  }
  d.duplicates += n.count;
  appendNotice(
    d.timeline,
    ingest.writer,
    `dropped ${n.count} replayed event${n.count === 1 ? "" : "s"} already shown`,
    at,
  );
}

/** Apply one status change, with the notices it writes; true when it raised attention. */
export function applyStatus(d: Draft, ingest: Ingest, status: StreamStatus, at: number): boolean {
  const prev = d.status;
  d.status = status;
  switch (status.state) {
    case "reconnecting":
      if (ingest.outageSince === null) {
        ingest.outageSince = at;
        appendNotice(
          d.timeline,
          ingest.writer,
          `connection lost (${oneLine(status.reason)}); reconnecting`,
          at,
        );
      }
      break;
    case "live":
      if (ingest.gap !== null) {
        appendNotice(d.timeline, ingest.writer, gapNotice(ingest.gap.from, ingest.gap.to), at);
        ingest.gap = null;
      } else if (ingest.outageSince !== null) {
        appendNotice(
          d.timeline,
          ingest.writer,
          `reconnected after ${formatDuration(at - ingest.outageSince)}`,
          at,
        );
      }
      ingest.outageSince = null;
      break;
    case "stopped": {
      if (prev.state === "stopped") break;
      ingest.outageSince = null;
      // The attention message is drawn outside the timeline: the key is hidden here too.
      const why = ingest.writer.redact(oneLine(status.error?.message ?? status.reason));
      appendNotice(d.timeline, ingest.writer, `stream stopped: ${why}`, at);
      if (status.error !== null) {
        d.attention = { reason: "stopped", message: why, at };
        return true;
      }
      break;
    }
    case "connecting":
      if (prev.state === "stopped") {
        appendNotice(d.timeline, ingest.writer, "stream reopened", at);
      }
      break;
  }
  return false;
}

/**
 * Everything the session queued, in order. Runs of undecoded items, nearly all of a busy
 * stream, only go to the timeline: their counts, rate, last id and time are summed up
 * and written to the draft once per run. The queue is empty afterwards. True when anything in
 * it raised attention.
 */
export function applyQueue(d: Draft, ingest: Ingest): boolean {
  const q = ingest.queue;
  const w = ingest.writer;
  const n = q.length;
  let items = 0;
  let lastAt = 0;
  let lastId: string | null = null;
  let rateAt = 0;
  let rateCount = 0;
  const perKind = new Uint32Array(LAZY_KINDS.length);
  let raised = false;
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
      if (item.meta && applyMeta(d, item.meta, at)) raised = true;
      if (applyStatus(d, ingest, item.status, at)) raised = true;
    } else if (item instanceof MetaItem) {
      if (applyMeta(d, item.meta, at)) raised = true;
    } else if (item instanceof NoticeItem) applyNotice(d, ingest, item.notice, at);
    else if (item instanceof MarkerItem) {
      if (!item.ifNotEmpty || d.timeline.size > 0) {
        appendMarker(d.timeline, w, item.kind, item.text, at);
      }
    } else if (item instanceof PhaseItem) ingest.phase = item.phase;
    else if (applyEvent(d, ingest, item, at)) raised = true;
  }
  settle();
  q.clear();
  return raised;
}
