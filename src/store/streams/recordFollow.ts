import type { SessionEvent } from "../../protocol/events.js";
import { lastActivityAt, lastPrompt } from "../../protocol/sessionRecord.js";
import { formatSeconds } from "../../text/format.js";
import { cutText, sanitizeLine } from "../../text/sanitize.js";
import type { SessionsStore } from "../sessionsStore.js";
import type { StreamsStore } from "./streamsStore.js";

/**
 * Sessions followed through their record instead of their stream (a key without
 * sessions:prompt): says so once, then reads the record every `every` ms through the
 * catalogue (and so the client's budget), showing what changed: its state as a state change,
 * its last prompt's status as a line, its last activity in the title.
 */

export interface RecordFollowOptions {
  store: StreamsStore;
  /** Reads the records; without it a followed pane only says why it is not live. */
  sessions?: SessionsStore;
  /** How often a followed session's record is read (default 15 s). */
  recordPollMs?: number;
  onStateChange?: (sessionId: string, state: string) => void;
}

/** What a pane says, once, when the key cannot have the event stream. */
export const LIVE_NEEDS_PROMPT = "live events need sessions:prompt";

/** Default cadence of reading a followed session's record: modest within 100 requests a minute. */
const DEFAULT_RECORD_POLL_MS = 15_000;

interface Follow {
  timer: NodeJS.Timeout | null;
  last: { state: string | null; activity: number | null; prompt: string | null } | null;
}

export class RecordFollows {
  readonly #opts: RecordFollowOptions;
  readonly #follows = new Map<string, Follow>();

  constructor(opts: RecordFollowOptions) {
    this.#opts = opts;
  }

  has(sessionId: string): boolean {
    return this.#follows.has(sessionId);
  }

  ids(): string[] {
    return [...this.#follows.keys()];
  }

  follow(sessionId: string): void {
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
      if (record !== null) this.#changed(sessionId, follow, record);
      follow.timer = setTimeout(() => void poll(), every);
      follow.timer.unref?.();
    };
    void poll();
  }

  unfollow(sessionId: string): void {
    const f = this.#follows.get(sessionId);
    if (!f) return;
    this.#follows.delete(sessionId);
    if (f.timer !== null) clearTimeout(f.timer);
  }

  clear(): void {
    for (const id of this.ids()) this.unfollow(id);
  }

  #changed(sessionId: string, follow: Follow, record: Record<string, unknown>): void {
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
}

/** The status of a record's last_prompt ({status, …}), as one short word, or null. */
function promptStatus(record: Record<string, unknown>): string | null {
  const st = lastPrompt(record)?.status;
  return st === undefined || st === null ? null : cutText(sanitizeLine(st), 64);
}
