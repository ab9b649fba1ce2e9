import type { StreamStatus } from "../../client/eventStream.js";
import type { RedactFn } from "../../text/redact.js";
import type { TimelineKind } from "./entry.js";
import { RateMeter } from "./rateMeter.js";
import { materializeItem } from "./timeline.js";
import { TimelineBuffer } from "./timelineBuffer.js";

/** One session's stream as the streams store holds it, and how a new one starts. */

/** Why a session wants the user's eyes. */
export interface Attention {
  /** The state that wants the user (paused, error, destroyed), or "stopped" for the stream. */
  reason: string;
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
  /** Latest state from a state_changed event, or from the record read again after a gap. */
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
  /**
   * The prompt under way as this stream tells it: running from its first progress item, then
   * how it ended (a `done` item completes it, an `error` item fails it), with the files it
   * changed meanwhile. Null until the stream shows a prompt. The attention queue reads it.
   */
  readonly prompt: StreamPrompt | null;
  readonly openedAt: number;
  /** Events a replaying server sent again, dropped rather than shown twice. */
  readonly duplicates: number;
  /** Reconnects after which events may be missing (a stream without ids). */
  readonly gaps: number;
}

/**
 * Where a session's incoming events come from: its journal (seen in an earlier run), the
 * server's history of a new subscription, or live. A journal's state changes are old news:
 * they neither set the session's state (the fetched record does) nor ask for attention.
 */
export type StreamPhase = "journal" | "history" | "live";

export interface StreamPrompt {
  readonly status: "running" | "completed" | "error";
  /** When the stream told of its latest change (ms since epoch). */
  readonly at: number;
  /** An error item's text (raw: whoever shows it sanitizes it). */
  readonly message: string | null;
  readonly filesChanged: number;
}

export interface StreamMeta {
  lastEventId?: string | null;
  lastActivityAt?: number | null;
  heartbeatIntervalMs?: number | null;
  watchdogMs?: number | null;
  /** The session's state as read from its record (after a gap), applied like a state change. */
  sessionState?: string | null;
}

export const ZERO_COUNTS: KindCounts = {
  prompt: 0,
  output: 0,
  file: 0,
  state: 0,
  heartbeat: 0,
  unknown: 0,
  malformed: 0,
  notice: 0,
  divider: 0,
  unwatched: 0,
};

export interface NewStreamOptions {
  capacity: number;
  maxEntryChars: number;
  rateWindowMs: number;
  openedAt: number;
  /** Hides the user's key in every entry decoded from the timeline (see redactEntry). */
  redact?: RedactFn;
}

export function newSessionStream(
  sessionId: string,
  status: StreamStatus,
  o: NewStreamOptions,
): SessionStream {
  return {
    sessionId,
    version: 0,
    timeline: new TimelineBuffer(o.capacity, (kind, data, id, seq, at) =>
      materializeItem(kind, data, id, seq, at, o.maxEntryChars, o.redact),
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
    rateMeter: new RateMeter(o.rateWindowMs),
    attention: null,
    prompt: null,
    openedAt: o.openedAt,
    duplicates: 0,
    gaps: 0,
  };
}
