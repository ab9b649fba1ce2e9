import { EventHistory, type StoredEvent } from "./eventHistory.js";
import type { Random } from "./random.js";

/** The lifecycle states the real service documents; the simulator moves between the first two. */
export const SESSION_STATES = [
  "active",
  "paused",
  "creating",
  "running",
  "destroying",
  "destroyed",
  "error",
] as const;
export type SessionState = (typeof SESSION_STATES)[number];

export function isSessionState(s: string): s is SessionState {
  return (SESSION_STATES as readonly string[]).includes(s);
}

/**
 * The session record the service returns: the documented fields (`id`, `name`, `state`,
 * `agent`, `template_id`, `sandbox_url`, `visibility`, `user_id`, `organization_id`,
 * `created_at`, `updated_at`) and a few of our own that the documents leave open.
 */
export interface SessionRecord {
  id: string;
  name: string;
  state: SessionState;
  agent: string;
  template_id: string | null;
  sandbox_url: string;
  visibility: "private" | "team";
  user_id: string;
  organization_id: string | null;
  created_at: string;
  updated_at: string;
  /** The repository the session works on; the cloned one once a clone happened. */
  repo: string | null;
  /** The checked-out branch of the session's workspace; null until a clone. */
  branch: string | null;
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

/** GET /api/sessions: the documented offset-paged answer. */
export interface SessionPageBody {
  sessions: SessionRecord[];
  total: number;
  has_more: boolean;
}

export interface ListFilter {
  state?: string;
  agent?: string;
  template_id?: string;
  visibility?: string;
}

/** Who owns the simulated sessions (the demo organization and one of its users). */
export interface SessionOwner {
  userId: string;
  organizationId: string | null;
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
const AGENTS = ["claude-code", "codex", "cursor", "gemini"];
const TEMPLATES = ["tpl_node", "tpl_python", null];

/** Initial state of the i-th session: two in three active, and now and then a later stage. */
function initialState(i: number): SessionState {
  if (i % 15 === 13) return "error";
  if (i % 15 === 14) return "destroyed";
  return i % 3 === 2 ? "paused" : "active";
}

/** The reference service's sessions and their event histories, in memory. */
export class SessionTable {
  /** Newest first: the order of the list endpoint. */
  readonly order: SimSession[] = [];
  private readonly byId = new Map<string, SimSession>();
  /** Sessions made so far (names, agents and repositories cycle with it). */
  private made = 0;

  constructor(
    private readonly rand: Random,
    count: number,
    now: number,
    private readonly historyLimit: number,
    private readonly deliver: (sessionId: string, events: StoredEvent[]) => void,
    private readonly owner: SessionOwner = { userId: "usr_demo", organizationId: null },
  ) {
    for (let i = 0; i < count; i++) {
      const s = this.make(initialState(i), now - (i + 1) * 7 * 60_000);
      this.order.push(s);
    }
  }

  private make(state: SessionState, createdAt: number): SimSession {
    let id = `ses_${this.rand.base62(8).toLowerCase()}`;
    while (this.byId.has(id)) id = `ses_${this.rand.base62(8).toLowerCase()}`;
    const i = this.made++;
    const created = new Date(createdAt).toISOString();
    const s: SimSession = {
      record: {
        id,
        name: TITLES[i % TITLES.length] as string,
        state,
        agent: AGENTS[i % AGENTS.length] as string,
        template_id: TEMPLATES[i % TEMPLATES.length] ?? null,
        sandbox_url: `https://${id.replace("_", "-")}.sandbox.invalid`,
        visibility: i % 2 === 0 ? "team" : "private",
        user_id: this.owner.userId,
        organization_id: this.owner.organizationId,
        created_at: created,
        updated_at: created,
        repo: REPOS[i % REPOS.length] as string,
        branch: null,
        event_count: 0,
        cloned: false,
      },
      history: new EventHistory(this.historyLimit),
      lastId: 0,
    };
    this.byId.set(id, s);
    return s;
  }

  /** A new session, newest in the list, starting in `creating` (the simulator replaces a destroyed one). */
  spawn(now = Date.now()): SimSession {
    const s = this.make("creating", now);
    this.order.unshift(s);
    return s;
  }

  get(id: string): SimSession | undefined {
    return this.byId.get(id);
  }

  ids(): string[] {
    return this.order.map((s) => s.record.id);
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

  /**
   * Offset paging over the fixed newest-first order, filtered: `total` counts every match,
   * `has_more` says whether any lies beyond this page. A session that changes state between
   * two page requests can shift a filtered list by one, as with any offset paging.
   */
  list(limit: number, offset: number, filter: ListFilter): SessionPageBody {
    const matches = this.order.filter(
      (s) =>
        (filter.state === undefined || s.record.state === filter.state) &&
        (filter.agent === undefined || s.record.agent === filter.agent) &&
        (filter.template_id === undefined || s.record.template_id === filter.template_id) &&
        (filter.visibility === undefined || s.record.visibility === filter.visibility),
    );
    const page = matches.slice(offset, offset + limit).map((s) => ({ ...s.record }));
    return {
      sessions: page,
      total: matches.length,
      has_more: offset + page.length < matches.length,
    };
  }
}
