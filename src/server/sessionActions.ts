import type { ServerResponse } from "node:http";
import type { Approval, LifecycleAction, ResolveAction } from "../protocol/index.js";
import { approvalResolved } from "./attentionSim.js";
import { type Clock, systemClock } from "./clock.js";
import { HttpError } from "./http/httpError.js";
import type { KeyRecord } from "./keys.js";
import type { SessionTable, SimSession } from "./sessionTable.js";

/**
 * What a user does to a session on the reference service: prompts answered by a simulated
 * agent, cancel, approvals and the lifecycle (pause, resume, start), with the documented
 * answers and errors (docs/cloud-api/sessions/prompt*.mdx, approvals-*.mdx, lifecycle.mdx of
 * the real service). The agent's words go to the prompt's own answer and, as
 * `prompt_progress`, to the session's event stream and history.
 */

/** One step of a simulated answer: an item and the pause before it. */
interface Step {
  type: "text" | "tool_use" | "tool_result" | "done";
  content: string;
}

/** About two seconds from prompt to done. */
const STEP_MS = 220;
/** The longest prompt the service accepts (the client refuses longer ones first). */
const MAX_PROMPT_CHARS = 100_000;

function answerSteps(prompt: string): Step[] {
  const topic = prompt.replace(/\s+/g, " ").trim().slice(0, 60);
  return [
    { type: "text", content: "I'll look into " },
    { type: "text", content: `"${topic}".\n` },
    { type: "tool_use", content: JSON.stringify({ tool: "read_file", path: "src/index.ts" }) },
    { type: "tool_result", content: "export function main() {\n  return run();\n}\n" },
    { type: "text", content: "The entry point is small; " },
    { type: "text", content: "I made the change and the tests pass.\n" },
    { type: "tool_use", content: JSON.stringify({ tool: "run", command: "npm test" }) },
    { type: "tool_result", content: "Tests: 42 passed, 42 total\n" },
    { type: "done", content: "" },
  ];
}

interface RunningPrompt {
  timer: unknown;
  /** The answer's connection; null once the caller went away (the agent keeps working). */
  res: ServerResponse | null;
  finish: (last: Step | { type: "error"; content: string }) => void;
}

/** Approvals the demo starts with: one any member may decide, one for admins only. */
const DEMO_APPROVALS: readonly Omit<Approval, "id" | "session_id" | "created_at">[] = [
  {
    kind: "deploy",
    message: "Deploy the updated landing page to production?",
    required_role: "admin",
    required_team_id: null,
  },
  {
    kind: "command",
    message: "Run database migration 0042 on staging?",
    required_role: null,
    required_team_id: null,
  },
];

/** Approvals kept per session (the newest). */
const MAX_APPROVALS_KEPT = 50;

const ENDED = new Set(["destroyed", "destroying", "error"]);
const WORKING = new Set(["active", "running"]);

export class SessionActions {
  readonly #running = new Map<string, RunningPrompt>();
  readonly #approvals = new Map<string, Approval[]>();
  #approvalCount = 0;
  #closed = false;

  constructor(
    private readonly store: SessionTable,
    /** A state set from here: the simulator re-plans the session. */
    private readonly onStateSet: (sessionId: string) => void,
    private readonly stepMs: number = STEP_MS,
    /** A prompt is taken: the simulated agent finishes what it was doing first, whole. */
    private readonly onPromptTaken: (sessionId: string) => void = () => {},
    /** What times the answer's steps: real timers, or the simulator's (manual) clock. */
    private readonly timer: Clock = systemClock,
  ) {}

  /** The demo's pending approvals on the first working session. */
  seedDemo(now = Date.now()): void {
    const first = this.store.order.find((s) => WORKING.has(s.record.state));
    if (!first) return;
    for (const a of DEMO_APPROVALS) this.addApproval(first.record.id, a, now);
  }

  isBusy(sessionId: string): boolean {
    return this.#running.has(sessionId);
  }

  /** A pending approval (tests and the demo); returns it. */
  addApproval(
    sessionId: string,
    a: Partial<Omit<Approval, "session_id">> = {},
    now = Date.now(),
  ): Approval {
    const approval: Approval = {
      kind: "deploy",
      message: null,
      required_role: null,
      required_team_id: null,
      ...a,
      id:
        (a.id as string | undefined) ??
        `ap_${(++this.#approvalCount).toString(16).padStart(4, "0")}`,
      session_id: sessionId,
      status: "pending",
      requested_by: "sandbox",
      created_at: (a.created_at as string | undefined) ?? new Date(now).toISOString(),
      resolved_by: null,
      resolved_at: null,
      resolution_note: null,
    };
    const list = this.#approvals.get(sessionId) ?? [];
    list.unshift(approval);
    this.#approvals.set(sessionId, list.slice(0, MAX_APPROVALS_KEPT));
    // The agent now waits on it, as the record says on the real service.
    const s = this.store.get(sessionId);
    if (s) {
      s.record.agent_status = "awaiting_approval";
      s.record.updated_at = new Date(now).toISOString();
    }
    return approval;
  }

  /** The simulated reviewer approves every pending approval of a session; how many. */
  approveAllPending(sessionId: string, by: string, now = Date.now()): number {
    let n = 0;
    for (const a of this.#approvals.get(sessionId) ?? []) {
      if (a.status !== "pending") continue;
      a.status = "approved";
      a.resolved_by = by;
      a.resolved_at = new Date(now).toISOString();
      n++;
    }
    return n;
  }

  /** When the last pending approval is decided, the agent goes back to work. */
  #afterDecision(s: SimSession, now: number): void {
    const pending = (this.#approvals.get(s.record.id) ?? []).some((a) => a.status === "pending");
    if (pending || s.record.agent_status !== "awaiting_approval") return;
    approvalResolved(s.record, now);
    this.onStateSet(s.record.id);
  }

  /** Newest first, as documented. */
  approvals(sessionId: string): Approval[] {
    return (this.#approvals.get(sessionId) ?? []).map((a) => ({ ...a }));
  }

  resolve(
    s: SimSession,
    approvalId: string,
    key: KeyRecord,
    action: ResolveAction,
    note: string | null,
    now = Date.now(),
  ): Approval {
    const a = this.#approvals.get(s.record.id)?.find((x) => x.id === approvalId);
    if (!a) throw HttpError.detail(404, `Approval ${approvalId.slice(0, 100)} not found`);
    if (a.status !== "pending") {
      throw HttpError.detail(409, `Approval ${a.id} was already ${a.status}`);
    }
    const gate = resolverRefusal(a, key, s);
    if (gate) throw HttpError.detail(403, gate);
    a.status = action === "approve" ? "approved" : "rejected";
    a.resolved_by = key.userId;
    a.resolved_at = new Date(now).toISOString();
    a.resolution_note = note;
    this.#afterDecision(s, now);
    return { ...a };
  }

  /**
   * Starts the simulated agent on a prompt and streams its answer to `res`. A paused session
   * is resumed first, as the real service does when a prompt arrives.
   */
  prompt(s: SimSession, prompt: string, res: ServerResponse): void {
    const id = s.record.id;
    if (ENDED.has(s.record.state)) {
      throw HttpError.detail(410, "Session is no longer available");
    }
    if (s.record.state === "creating") {
      throw HttpError.detail(503, "Session is still being provisioned. Please try again.");
    }
    if (prompt.trim() === "") throw HttpError.invalid("prompt", "prompt must not be empty", 422);
    if (prompt.length > MAX_PROMPT_CHARS) {
      throw HttpError.invalid(
        "prompt",
        `prompt must be at most ${MAX_PROMPT_CHARS} characters`,
        422,
      );
    }
    if (this.#running.has(id)) {
      res.writeHead(202, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify({ status: "already_running" }));
      return;
    }
    if (s.record.state === "paused") this.#setState(id, "active");
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
    });
    // The caller learns at once that the prompt was taken, before the agent's first words.
    res.flushHeaders();
    this.run(s, prompt, res, (status) => this.store.finishPrompt(id, status, this.timer.now()));
    // The record says a prompt runs (once the agent's own episode is over, in run), and how
    // it ended, as the real service's `last_prompt`.
    this.store.startPrompt(id, this.timer.now());
  }

  /**
   * The simulated agent works on a prompt: its words go to the session's stream and, while
   * `res` is open, to the prompt's own answer; `onEnd` learns how it ended (a launch's first
   * prompt has no answer to write to: the launch was answered at once).
   */
  run(
    s: SimSession,
    prompt: string,
    res: ServerResponse | null,
    onEnd?: (status: "completed" | "error") => void,
  ): void {
    const id = s.record.id;
    this.onPromptTaken(id);
    this.store.append(id, [progress("user", prompt)]);
    const steps = answerSteps(prompt);
    const run: RunningPrompt = {
      timer: null,
      res,
      finish: (last) => {
        if (run.timer !== null) this.timer.cancel(run.timer);
        run.timer = null;
        this.#running.delete(id);
        if (last.type === "error") this.store.append(id, [progress("error", last.content)]);
        if (run.res) {
          run.res.end(`data: ${JSON.stringify(last)}\n\n`);
          run.res = null;
        }
        onEnd?.(last.type === "error" ? "error" : "completed");
      },
    };
    // The caller going away does not stop the agent: its words still reach the stream.
    res?.on("close", () => {
      run.res = null;
    });
    this.#running.set(id, run);
    const next = () => {
      const step = steps.shift();
      if (!step || this.#closed) return;
      if (step.type === "done") {
        run.finish(step);
        return;
      }
      this.store.append(id, [progress(step.type, step.content)]);
      run.res?.write(`data: ${JSON.stringify(step)}\n\n`);
      run.timer = this.timer.schedule(next, this.stepMs);
    };
    run.timer = this.timer.schedule(next, this.stepMs);
  }

  /** The running prompt ends in an error (tests: a prompt that fails); false when none runs. */
  fail(sessionId: string, message: string): boolean {
    const run = this.#running.get(sessionId);
    if (!run) return false;
    run.finish({ type: "error", content: message });
    return true;
  }

  /** `{session_id, cancelled}`: whether a running prompt was stopped. */
  cancel(sessionId: string): { session_id: string; cancelled: boolean } {
    const run = this.#running.get(sessionId);
    if (!run) return { session_id: sessionId, cancelled: false };
    run.finish({ type: "error", content: "Prompt cancelled" });
    return { session_id: sessionId, cancelled: true };
  }

  lifecycle(s: SimSession, action: LifecycleAction, now = Date.now()): Record<string, unknown> {
    const id = s.record.id;
    const state = s.record.state;
    const at = new Date(now).toISOString();
    if (action === "pause") {
      if (ENDED.has(state)) {
        throw HttpError.detail(410, "Sandbox has expired. Please create a new session.");
      }
      if (state === "paused") {
        return { id, paused_at: at, message: "Session is already paused" };
      }
      if (!WORKING.has(state)) {
        throw HttpError.detail(400, `Can only pause running sessions (state: ${state})`);
      }
      if (this.#running.has(id)) {
        throw HttpError.detail(409, "Cannot pause while a prompt is running");
      }
      this.#setState(id, "paused");
      return { id, paused_at: at, message: "Session paused successfully" };
    }
    if (action === "resume") {
      if (ENDED.has(state)) throw HttpError.detail(410, "Session is no longer available");
      if (WORKING.has(state)) {
        return { id, resumed_at: at, message: "Session is already running" };
      }
      if (state !== "paused") {
        throw HttpError.detail(400, `Can only resume paused sessions (state: ${state})`);
      }
      this.#setState(id, "active");
      return { id, resumed_at: at, message: "Session resumed successfully" };
    }
    if (ENDED.has(state)) throw HttpError.detail(410, "Session is no longer available");
    if (state === "creating") {
      throw HttpError.detail(
        503,
        "Session is taking longer than expected to provision. Please try again.",
      );
    }
    if (state === "paused") this.#setState(id, "active");
    return {
      id,
      state: "running",
      preview_url: `https://3000-${id.replace("_", "-")}.preview.invalid`,
      port: 3000,
      project_type: "node",
      framework: null,
      server_ready: true,
      message: null,
    };
  }

  /** Stops every running prompt (the service is closing). */
  close(): void {
    this.#closed = true;
    for (const run of [...this.#running.values()]) {
      if (run.timer !== null) this.timer.cancel(run.timer);
      run.res?.end();
    }
    this.#running.clear();
  }

  #setState(id: string, state: "active" | "paused"): void {
    this.store.setState(id, state);
    this.onStateSet(id);
  }
}

function progress(type: string, content: string) {
  return { event: "prompt_progress", data: JSON.stringify({ type, content, ts: Date.now() }) };
}

/**
 * The documented gate: org admins and owners always; otherwise the required role (a team
 * constraint: this service has no teams, so only admins pass it); no constraint: anyone with
 * access; personal sessions: only their owner.
 */
function resolverRefusal(a: Approval, key: KeyRecord, s: SimSession): string | null {
  if (key.role === "owner" || key.role === "admin") return null;
  if (key.role === null) {
    return s.record.user_id === key.userId
      ? null
      : "Only the session owner can resolve approvals of a personal session";
  }
  if (!a.required_role && !a.required_team_id) return null;
  if (a.required_role && key.role === a.required_role) return null;
  const need = [
    a.required_role ? `the ${a.required_role} role` : null,
    a.required_team_id ? `membership of team ${a.required_team_id}` : null,
  ]
    .filter(Boolean)
    .join(" or ");
  return `Resolving this approval requires ${need}`;
}
