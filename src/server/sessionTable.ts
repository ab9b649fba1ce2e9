import { hiddenUnlessAsked } from "../protocol/states.js";
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

/** The documented `last_prompt` of a record. */
export interface LastPromptRecord {
  /** As documented (idle, running, completed, error, timed_out). */
  status: "running" | "completed" | "error" | "timed_out";
  started_at: string;
  completed_at: string | null;
}

/** The documented `agent_status`: what the agent does right now. */
export type AgentStatus = "working" | "idle" | "awaiting_approval";

/**
 * The session record the service returns: the documented fields (`id`, `name`, `state`,
 * `agent`, `template_id`, `sandbox_url`, `visibility`, `user_id`, `organization_id`,
 * `created_at`, `updated_at`), the documented optional ones (`github_repo`, `last_prompt`,
 * `last_activity_at`, `error_message`, `paused_at`, `prompt_count`, `total_cost_usd`,
 * `preview_url`, `template`, `agent_status`) and a few of our own that the documents leave
 * open.
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
  /** owner/repo of the repository cloned into the session; null until a clone. */
  github_repo: string | null;
  /** The newest prompt: its status and times; null before the first. */
  last_prompt: LastPromptRecord | null;
  /** When the session last did something: its newest event, else its creation. */
  last_activity_at: string;
  /** Why the session failed, while it is in `error`. */
  error_message: string | null;
  /** When it was paused, while it is `paused`. */
  paused_at: string | null;
  prompt_count: number;
  /** Dollars spent so far (rounded to a hundredth of a cent). */
  total_cost_usd: number;
  /** Where the app the session serves can be seen (web templates only). */
  preview_url: string | null;
  /** The template's display name (null without a template). */
  template: string | null;
  /** null while the session is not running (creating, paused, error, destroyed). */
  agent_status: AgentStatus | null;
  /** The repository the session works on; the cloned one once a clone happened. */
  repo: string | null;
  /** The newest pull request opened from the session (absent until one is). */
  pr_url?: string;
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
  /** List destroyed and error sessions too (the documented `include_destroyed=true`). */
  includeDestroyed?: boolean;
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
const TEMPLATE_NAMES: Readonly<Record<string, string>> = {
  tpl_node: "Node.js 20",
  tpl_python: "Python 3.12",
};
/** Why a session fails, said as a service would (the simulator picks by the session). */
export const ERROR_MESSAGES = [
  "Sandbox ran out of memory (exit code 137)",
  "Agent process exited unexpectedly (exit code 1)",
  "Sandbox health check failed: no answer for 60 s",
] as const;

const iso = (ms: number) => new Date(ms).toISOString();
/** Dollars kept to a hundredth of a cent, as a bill shows them. */
const dollars = (usd: number) => Math.round(usd * 10_000) / 10_000;

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
    const templateId = TEMPLATES[i % TEMPLATES.length] ?? null;
    // A past the record tells of: some prompts, the last one over a few minutes after the
    // session was made (a new session has none yet).
    const prompts = state === "creating" ? 0 : 1 + ((i * 7) % 12);
    const started = createdAt + 2 * 60_000;
    const ended = createdAt + 5 * 60_000;
    const s: SimSession = {
      record: {
        id,
        name: TITLES[i % TITLES.length] as string,
        state,
        agent: AGENTS[i % AGENTS.length] as string,
        template_id: templateId,
        sandbox_url: `https://${id.replace("_", "-")}.sandbox.invalid`,
        visibility: i % 2 === 0 ? "team" : "private",
        user_id: this.owner.userId,
        organization_id: this.owner.organizationId,
        created_at: created,
        updated_at: created,
        github_repo: null,
        last_prompt:
          prompts === 0
            ? null
            : {
                status: state === "error" ? "error" : "completed",
                started_at: iso(started),
                completed_at: iso(ended),
              },
        last_activity_at: prompts === 0 ? created : iso(ended),
        error_message:
          state === "error" ? (ERROR_MESSAGES[i % ERROR_MESSAGES.length] as string) : null,
        paused_at: state === "paused" ? iso(ended + 30_000) : null,
        prompt_count: prompts,
        total_cost_usd: dollars(prompts * (0.05 + (i % 5) * 0.03)),
        preview_url:
          templateId === "tpl_node" ? `https://${id.replace("_", "-")}-3000.preview.invalid` : null,
        template: templateId === null ? null : (TEMPLATE_NAMES[templateId] ?? templateId),
        // awaiting_approval only with an approval to decide (sessionActions.ts adds them).
        agent_status: agentStatusIn(state, "idle"),
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
      s.record.updated_at = iso(now);
      if (out.some((e) => e.event !== "heartbeat")) s.record.last_activity_at = iso(now);
      this.deliver(sessionId, out);
    }
    return out;
  }

  /** A prompt starts: counted, `last_prompt` running, the agent working. */
  startPrompt(sessionId: string, now = Date.now()): void {
    const r = this.record(sessionId);
    r.prompt_count++;
    r.last_prompt = { status: "running", started_at: iso(now), completed_at: null };
    r.agent_status = "working";
    r.error_message = null;
    r.last_activity_at = iso(now);
    r.updated_at = iso(now);
  }

  /** The running prompt ends; the agent waits for the next (or for approval). */
  finishPrompt(
    sessionId: string,
    status: "completed" | "error" | "timed_out",
    now = Date.now(),
    next: AgentStatus = "idle",
  ): void {
    const r = this.record(sessionId);
    if (r.last_prompt === null || r.last_prompt.status !== "running") return;
    r.last_prompt = { ...r.last_prompt, status, completed_at: iso(now) };
    r.agent_status = agentStatusIn(r.state, next);
    r.updated_at = iso(now);
  }

  /** What the session's work cost (the agent's tokens, its sandbox's time). */
  addCost(sessionId: string, usd: number): void {
    const r = this.record(sessionId);
    r.total_cost_usd = dollars(r.total_cost_usd + usd);
  }

  private record(sessionId: string): SessionRecord {
    const s = this.byId.get(sessionId);
    if (!s) throw new Error(`unknown session ${sessionId}`);
    return s.record;
  }

  /**
   * Change state and emit state_changed; a no-op when already in that state. The record
   * follows: `paused_at` while paused, `error_message` while in error (the given one, else
   * one of ERROR_MESSAGES), a running prompt fails with an error or a destroy, and the
   * agent's status is null outside the running states.
   */
  setState(
    sessionId: string,
    state: SessionState,
    now = Date.now(),
    errorMessage?: string,
  ): boolean {
    const s = this.byId.get(sessionId);
    if (!s) throw new Error(`unknown session ${sessionId}`);
    const previous = s.record.state;
    if (previous === state) return false;
    const r = s.record;
    if (state === "error" || state === "destroying" || state === "destroyed") {
      this.finishPrompt(sessionId, "error", now);
    }
    r.state = state;
    r.paused_at = state === "paused" ? iso(now) : null;
    r.error_message =
      state === "error"
        ? (errorMessage ??
          (ERROR_MESSAGES[this.order.indexOf(s) % ERROR_MESSAGES.length] as string))
        : null;
    r.agent_status = agentStatusIn(state, r.agent_status ?? "idle");
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
   * `has_more` says whether any lies beyond this page. Destroyed and error sessions are left
   * out unless `includeDestroyed`, as the real service does (a `state` filter naming one of
   * them then finds nothing). A session that changes state between two page requests can
   * shift a filtered list by one, as with any offset paging.
   */
  list(limit: number, offset: number, filter: ListFilter): SessionPageBody {
    const matches = this.order.filter(
      (s) =>
        (filter.includeDestroyed === true || !hiddenUnlessAsked(s.record.state)) &&
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

/** The agent's status in a state: only a running session's agent has one. */
function agentStatusIn(state: SessionState, status: AgentStatus): AgentStatus | null {
  return state === "active" || state === "running" ? status : null;
}
