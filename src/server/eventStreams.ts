import type { ServerResponse } from "node:http";
import type { StoredEvent } from "./eventHistory.js";
import { type Faults, lineTerminator } from "./faults.js";
import type { SessionStore } from "./sessionStore.js";
import { type FrameStyle, formatEvent, formatHeartbeat, formatPreamble } from "./sseFormat.js";

interface Connection {
  sessionId: string;
  res: ServerResponse;
  /** Id-carrying events written on this response (what dropAfter counts). */
  sent: number;
  stalled: boolean;
  ended: boolean;
}

/**
 * A slow reader must not make the service buffer without bound: past this many queued bytes the
 * connection is cut, and the client resumes from the replay history with Last-Event-ID.
 */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;

/** The open SSE responses: live delivery, replay, heartbeats and the stream-level faults. */
export class EventStreams {
  private readonly all = new Set<Connection>();
  private readonly bySession = new Map<string, Set<Connection>>();
  private readonly heartbeatTimer: NodeJS.Timeout;

  constructor(
    private readonly store: () => SessionStore,
    private readonly faults: Faults,
    heartbeatMs: number,
  ) {
    this.heartbeatTimer = setInterval(() => this.heartbeat(), heartbeatMs);
  }

  count(): number {
    return this.all.size;
  }

  private style(): FrameStyle {
    const f = this.faults.get();
    return { nl: lineTerminator(f.lineEnding), comments: f.comments };
  }

  /** Start the SSE response (headers already carry the rate-limit fields), replay, then go live. */
  open(res: ServerResponse, sessionId: string, lastEventId: number | null): void {
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    res.socket?.setNoDelay(true);
    res.flushHeaders();
    const f = this.faults.get();
    const conn: Connection = { sessionId, res, sent: 0, stalled: f.stall, ended: false };
    this.all.add(conn);
    res.on("close", () => this.forget(conn));
    if (conn.stalled) return;

    const style = this.style();
    const preamble = formatPreamble(f.retryMs, style);
    if (preamble) res.write(preamble);
    const session = this.store().get(sessionId);
    if (session && lastEventId !== null) {
      const replay = session.history.since(lastEventId);
      if (replay.length > 0)
        this.write(
          conn,
          replay.map((e) => formatEvent(e, style)),
        );
    }
    if (conn.ended) return;
    let set = this.bySession.get(sessionId);
    if (!set) {
      set = new Set();
      this.bySession.set(sessionId, set);
    }
    set.add(conn);
  }

  /** Deliver newly appended events: formatted once, one write per connection per batch. */
  deliver(sessionId: string, events: StoredEvent[]): void {
    const set = this.bySession.get(sessionId);
    if (!set || set.size === 0) return;
    const style = this.style();
    const frames = events.map((e) => formatEvent(e, style));
    const joined = frames.join("");
    for (const conn of set) this.write(conn, frames, joined);
  }

  private write(conn: Connection, frames: string[], joined?: string): void {
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
    if (!conn.ended && conn.res.writableLength > MAX_QUEUED_BYTES) {
      conn.ended = true;
      conn.res.destroy();
    }
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
