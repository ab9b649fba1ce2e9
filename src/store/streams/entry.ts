/**
 * One line of a session's timeline as every reader sees it: the shape the store writes (see
 * timeline.ts) and the panes, search and export read.
 */

export type TimelineKind =
  | "prompt"
  | "output"
  | "file"
  | "state"
  | "heartbeat"
  | "unknown"
  | "malformed"
  | "notice"
  /** Where live events begin below what the journal and the server's history showed. */
  | "divider"
  /** A stretch of time nobody watched the session (between two journal runs). */
  | "unwatched";

/** The kinds of line the client writes itself; none is ever journaled or exported as an event. */
export type MarkerKind = "notice" | "divider" | "unwatched";

export interface TimelineEntry {
  /** Per-session sequence number, increasing; survives eviction so panes can key rows. */
  seq: number;
  /** SSE id of the (latest) event behind the entry. */
  id: string | null;
  kind: TimelineKind;
  /** Receive time, ms since epoch. */
  at: number;
  /** The server's own timestamp (ts or timestamp field), when the payload had one. */
  ts?: number;
  /** Sanitized text; process output keeps SGR colours, nothing else keeps any escape. */
  text: string;
  /** process_output: which stream (stdout/stderr), when sent. */
  stream?: string;
  /** file_changed */
  path?: string;
  action?: string;
  /** state_changed */
  state?: string;
  previousState?: string;
  /** prompt_progress: the payload's type when it is not "text". */
  promptType?: string;
  /** unknown / malformed: the SSE event name. */
  event?: string;
  /** The session the entry came from, in a merged timeline of several sessions. */
  sessionId?: string;
  /**
   * The original payload, for NDJSON export. Joined prompt text keeps a synthesized
   * {type: "text", content} of the joined (sanitized) text instead of every fragment.
   */
  raw?: unknown;
}
