import { EventHistory, type StoredEvent } from "./eventHistory.js";
import type { Random } from "./random.js";

export type SessionState = "active" | "paused";

/** The session record the service returns (the interface does not show one; this is ours). */
export interface SessionRecord {
  session_id: string;
  state: SessionState;
  title: string;
  /** The repository the session works on; the cloned one once a clone happened. */
  repo: string | null;
  /** The checked-out branch of the session's workspace; null until a clone. */
  branch: string | null;
  created_at: string;
  updated_at: string;
  /** Id of the newest event of the stream (ids start at 1). */
  event_count: number;
  cloned: boolean;
}

export interface SimSession {
  record: SessionRecord;
  history: EventHistory;
  lastId: number;
}

/** One event to append: data already serialised; keep=false for events not to replay. */
export interface NewEvent {
  event: string;
  data: string;
  keep?: boolean;
}

export interface SessionPageBody {
  sessions: SessionRecord[];
  next_cursor: string | null;
  has_more: boolean;
}

const TITLES = [
  "Fix flaky CI on main",
  "Bump dependencies",
  "Write API docs for the sessions endpoint",
  "Add retry to the webhook sender",
  "Refactor the config loader",
  "Investigate memory growth in the worker",
  "Add dark mode to settings",
  "Migrate tests to vitest",
  "Speed up the build",
  "Triage issue: login loop on Safari",
];
const REPOS = ["demo/app", "demo/docs"];

/** The reference service's sessions and their event histories, in memory. */
export class SessionTable {
  /** Newest first: the order of the list endpoint. */
  readonly order: SimSession[] = [];
  private readonly byId = new Map<string, SimSession>();

  constructor(
    rand: Random,
    count: number,
    now: number,
    historyLimit: number,
    private readonly deliver: (sessionId: string, events: StoredEvent[]) => void,
  ) {
    for (let i = 0; i < count; i++) {
      const id = `ses_${rand.base62(8).toLowerCase()}`;
      if (this.byId.has(id)) {
        i--;
        continue;
      }
      const created = new Date(now - (i + 1) * 7 * 60_000).toISOString();
      const s: SimSession = {
        record: {
          session_id: id,
          // Two in three start active, so a fresh service is lively but shows both states.
          state: i % 3 === 2 ? "paused" : "active",
          title: TITLES[i % TITLES.length] as string,
          repo: REPOS[i % REPOS.length] as string,
          branch: null,
          created_at: created,
          updated_at: created,
          event_count: 0,
          cloned: false,
        },
        history: new EventHistory(historyLimit),
        lastId: 0,
      };
      this.order.push(s);
      this.byId.set(id, s);
    }
  }

  get(id: string): SimSession | undefined {
    return this.byId.get(id);
  }

  ids(): string[] {
    return this.order.map((s) => s.record.session_id);
  }

  /** Append events (ids assigned in order), keep the replayable ones, deliver all live at once. */
  append(sessionId: string, items: readonly NewEvent[], now = Date.now()): StoredEvent[] {
    const s = this.byId.get(sessionId);
    if (!s) throw new Error(`unknown session ${sessionId}`);
    const out: StoredEvent[] = [];
    for (const item of items) {
      const e: StoredEvent = { id: ++s.lastId, event: item.event, data: item.data };
      if (item.keep !== false) s.history.push(e);
      out.push(e);
    }
    if (out.length > 0) {
      s.record.event_count = s.lastId;
      s.record.updated_at = new Date(now).toISOString();
      this.deliver(sessionId, out);
    }
    return out;
  }

  /** Change state and emit state_changed; a no-op when already in that state. */
  setState(sessionId: string, state: SessionState, now = Date.now()): boolean {
    const s = this.byId.get(sessionId);
    if (!s) throw new Error(`unknown session ${sessionId}`);
    const previous = s.record.state;
    if (previous === state) return false;
    s.record.state = state;
    this.append(
      sessionId,
      [
        {
          event: "state_changed",
          data: JSON.stringify({ state, previous_state: previous, ts: now }),
        },
      ],
      now,
    );
    return true;
  }

  /** Keyset pagination over the fixed newest-first order, so a state change between pages never shifts or repeats items. */
  list(limit: number, cursor: number, state: SessionState | null): SessionPageBody {
    const page: SessionRecord[] = [];
    let i = cursor;
    let lastIncluded = -1;
    for (; i < this.order.length && page.length < limit; i++) {
      const s = this.order[i] as SimSession;
      if (state !== null && s.record.state !== state) continue;
      page.push({ ...s.record });
      lastIncluded = i;
    }
    let hasMore = false;
    for (let j = lastIncluded + 1; j < this.order.length && lastIncluded >= 0; j++) {
      if (state === null || (this.order[j] as SimSession).record.state === state) {
        hasMore = true;
        break;
      }
    }
    return {
      sessions: page,
      next_cursor: hasMore ? encodeCursor(lastIncluded + 1) : null,
      has_more: hasMore,
    };
  }
}

export function encodeCursor(index: number): string {
  return Buffer.from(`o:${index}`, "utf8").toString("base64url");
}

/** The list position a cursor names, or null when it is not one of ours. */
export function decodeCursor(cursor: string): number | null {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const m = /^o:(\d{1,9})$/.exec(text);
  return m ? Number(m[1]) : null;
}
