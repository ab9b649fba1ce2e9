import type { ServerResponse } from "node:http";
import { HISTORY_END_COMMENT } from "../protocol/history.js";
import type { StoredEvent } from "./eventHistory.js";
import { type Faults, lineTerminator } from "./faults.js";
import type { SessionTable } from "./sessionTable.js";
import {
  type FrameStyle,
  formatComment,
  formatEvent,
  formatHeartbeat,
  formatPreamble,
} from "./sseFormat.js";

interface Connection {
  sessionId: string;
  res: ServerResponse;
  /** Id-carrying events written on this response (what dropAfter counts). */
  sent: number;
  stalled: boolean;
  ended: boolean;
  /**
   * Live frames that arrived while the replay was still being written, sent right after it;
   * null once the replay is done (or when there was none).
   */
  pending: string[] | null;
  pendingBytes: number;
}

/**
 * A slow reader must not make the service buffer without bound: past this many queued bytes the
 * connection is cut, and the client resumes from the replay history with Last-Event-ID.
 */
export const DEFAULT_MAX_QUEUED_BYTES = 16 * 1024 * 1024;

/**
 * How much of a replay is formatted and written at a time. The next part waits until the
 * socket has taken the last one, so a replay of any size holds about this much in memory and
 * never counts against the slow-reader guard: were it written in one go, a history larger than
 * the guard would be cut every time, and the client would reconnect to the same replay forever.
 */
const REPLAY_CHUNK_BYTES = 256 * 1024;

/** The open SSE responses: live delivery, replay, heartbeats and the stream-level faults. */
export class EventStreams {
  private readonly all = new Set<Connection>();
  private readonly bySession = new Map<string, Set<Connection>>();
  private readonly heartbeatTimer: NodeJS.Timeout;

  constructor(
    private readonly store: () => SessionTable,
    private readonly faults: Faults,
    heartbeatMs: number,
    private readonly maxQueuedBytes = DEFAULT_MAX_QUEUED_BYTES,
  ) {
    this.heartbeatTimer = setInterval(() => this.heartbeat(), heartbeatMs);
  }

  count(): number {
    return this.all.size;
  }

  private style(): FrameStyle {
    const f = this.faults.get();
    return { nl: lineTerminator(f.lineEnding), comments: f.comments, ids: !f.noEventIds };
  }

  /**
   * Start the SSE response (headers already carry the rate-limit fields), replay, then go live.
   * A resuming subscriber (lastEventId) gets what it missed; a new one gets the newest
   * `history` events; either way the `: history-end` comment follows.
   */
  open(res: ServerResponse, sessionId: string, lastEventId: number | null, history = 0): void {
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    res.socket?.setNoDelay(true);
    res.flushHeaders();
    const f = this.faults.get();
    const conn: Connection = {
      sessionId,
      res,
      sent: 0,
      stalled: f.stall,
      ended: false,
      pending: null,
      pendingBytes: 0,
    };
    this.all.add(conn);
    res.on("close", () => this.forget(conn));
    if (conn.stalled) return;

    const preamble = formatPreamble(f.retryMs, this.style());
    if (preamble) res.write(preamble);
    const session = this.store().get(sessionId);
    // The events to replay are taken now (references, not text): the history may move on
    // while they are written, and what arrives meanwhile is held for after them.
    // ignoreLastEventId (a fault): a server that replays everything it kept on every connection.
    const from = f.ignoreLastEventId ? 0 : lastEventId;
    // A resuming subscriber gets what it missed, a new one the newest `history` events.
    const replay = !session
      ? []
      : from !== null
        ? session.history.since(from)
        : session.history.last(history);
    let set = this.bySession.get(sessionId);
    if (!set) {
      set = new Set();
      this.bySession.set(sessionId, set);
    }
    set.add(conn);
    if (replay.length > 0) {
      conn.pending = [];
      this.replay(conn, replay, 0);
    } else res.write(formatComment(HISTORY_END_COMMENT, this.style()));
  }

  /** Writes replay[from…] a part at a time, each part once the socket has drained the last. */
  private replay(conn: Connection, events: readonly StoredEvent[], from: number): void {
    if (conn.ended) return;
    const style = this.style();
    const frames: string[] = [];
    let bytes = 0;
    let i = from;
    while (i < events.length && bytes < REPLAY_CHUNK_BYTES) {
      const frame = formatEvent(events[i] as StoredEvent, style);
      frames.push(frame);
      bytes += frame.length;
      i++;
    }
    this.write(conn, frames, undefined, false);
    if (conn.ended) return;
    if (i < events.length) {
      const next = () => this.replay(conn, events, i);
      if (conn.res.writableNeedDrain) conn.res.once("drain", next);
      else setImmediate(next);
      return;
    }
    // Caught up: what arrived during the replay, then live delivery.
    conn.res.write(formatComment(HISTORY_END_COMMENT, style));
    const held = conn.pending ?? [];
    conn.pending = null;
    conn.pendingBytes = 0;
    if (held.length > 0) this.write(conn, held, undefined, false);
  }

  /** Deliver newly appended events: formatted once, one write per connection per batch. */
  deliver(sessionId: string, events: StoredEvent[]): void {
    const set = this.bySession.get(sessionId);
    if (!set || set.size === 0) return;
    const style = this.style();
    const frames = events.map((e) => formatEvent(e, style));
    const joined = frames.join("");
    for (const conn of set) {
      if (conn.pending) this.hold(conn, frames, joined.length);
      else this.write(conn, frames, joined);
    }
  }

  /** Live frames for a connection still replaying; a reader that falls this far behind is cut. */
  private hold(conn: Connection, frames: string[], length: number): void {
    if (conn.ended || !conn.pending) return;
    for (const frame of frames) conn.pending.push(frame);
    conn.pendingBytes += length;
    if (conn.pendingBytes > this.maxQueuedBytes) this.cut(conn);
  }

  /**
   * `guarded`: cut the connection when too much is queued. Replay parts are not guarded: they
   * are paced by the socket draining, and held live frames were bounded while held.
   */
  private write(conn: Connection, frames: string[], joined?: string, guarded = true): void {
    if (conn.ended) return;
    const dropAfter = this.faults.get().dropAfter;
    const room = dropAfter === null ? Number.POSITIVE_INFINITY : dropAfter - conn.sent;
    if (room >= frames.length) {
      conn.res.write(joined ?? frames.join(""));
      conn.sent += frames.length;
      if (dropAfter !== null && conn.sent >= dropAfter) this.end(conn);
    } else {
      if (room > 0) conn.res.write(frames.slice(0, room).join(""));
      conn.sent += Math.max(0, room);
      this.end(conn);
      return;
    }
    if (guarded && !conn.ended && conn.res.writableLength > this.maxQueuedBytes) this.cut(conn);
  }

  private cut(conn: Connection): void {
    conn.ended = true;
    conn.pending = null;
    conn.res.destroy();
  }

  private heartbeat(): void {
    if (this.all.size === 0) return;
    const frame = formatHeartbeat(new Date().toISOString(), this.style());
    for (const conn of this.all) {
      if (!conn.stalled && !conn.ended) conn.res.write(frame);
    }
  }

  private end(conn: Connection): void {
    if (conn.ended) return;
    conn.ended = true;
    this.bySession.get(conn.sessionId)?.delete(conn);
    conn.res.end();
  }

  private forget(conn: Connection): void {
    conn.ended = true;
    this.all.delete(conn);
    const set = this.bySession.get(conn.sessionId);
    if (set) {
      set.delete(conn);
      if (set.size === 0) this.bySession.delete(conn.sessionId);
    }
  }

  /** End every stream (stalled ones included) and stop heartbeats. */
  close(): void {
    clearInterval(this.heartbeatTimer);
    for (const conn of [...this.all]) {
      conn.ended = true;
      conn.res.end();
    }
  }
}
