import type { Random } from "./random.js";
import type { NewEvent, SessionRecord } from "./sessionTable.js";

/**
 * What the simulator does so that the attention queue has something real to show, in the
 * documented record fields of the real service: each episode of work is a prompt
 * (`last_prompt` running, then completed, now and then `error` or `timed_out` with an
 * `error_message`), `agent_status` follows it (working, idle, awaiting_approval), an
 * approval is asked now and then and resolved a while later, and an idle session is paused by
 * the service itself (`paused_at`), as the real one does after about 20 minutes.
 *
 * Kept apart from the simulator's timing: it calls these at an episode's start and end.
 */

/**
 * Where approvals live: the reference service's one approvals book (sessionActions.ts), which
 * the approvals endpoint serves and the resolve endpoint decides.
 */
export interface ApprovalBook {
  addApproval(
    sessionId: string,
    a: { kind: string; message: string; required_role: string | null },
    now: number,
  ): unknown;
  /** Resolves every pending approval of the session as the simulated reviewer; how many. */
  approveAllPending(sessionId: string, by: string, now: number): number;
}

type Rec = SessionRecord;

/** Of the prompts that end, how many fail and time out. */
const FAIL_CHANCE = 0.06;
const TIMEOUT_CHANCE = 0.03;
/** Of the episodes that start, how many first wait on an approval. */
const APPROVAL_CHANCE = 0.04;

const FAILURES = [
  "npm test exited with code 1 (3 failing tests)",
  "The model provider rate-limited the request; try again later",
  "Sandbox ran out of disk space while installing dependencies",
];

const ASKS: readonly { kind: string; message: string }[] = [
  { kind: "deploy", message: "Deploy the updated landing page to production?" },
  { kind: "command", message: "Run database migration 0042_add_index on staging?" },
  { kind: "network", message: "Allow outbound access to registry.npmjs.org?" },
];

const iso = (t: number) => new Date(t).toISOString();

/**
 * The episode's last event went out: the prompt ends, mostly completed, now and then failed or
 * timed out. Returns the stream item that says so (`done`, or `error` with the message).
 */
export function promptEnded(record: SessionRecord, fate: Random, now: number): NewEvent {
  const r = record as Rec;
  const draw = fate.next();
  const status =
    draw < FAIL_CHANCE ? "error" : draw < FAIL_CHANCE + TIMEOUT_CHANCE ? "timed_out" : "completed";
  const started = r.last_prompt?.started_at ?? iso(now);
  r.last_prompt = { status, started_at: started, completed_at: iso(now) };
  r.agent_status = "idle";
  r.last_activity_at = iso(now);
  if (status === "completed") {
    r.error_message = null;
    return {
      event: "prompt_progress",
      data: JSON.stringify({ type: "done", content: "", ts: now }),
    };
  }
  const message =
    status === "timed_out"
      ? "The prompt timed out after 30 minutes"
      : (FAILURES[fate.int(FAILURES.length)] as string);
  r.error_message = message;
  return {
    event: "prompt_progress",
    data: JSON.stringify({ type: "error", content: message, ts: now }),
  };
}

/** Now and then, before work starts, the agent asks for an approval: true when it does. */
export function maybeAskApproval(
  record: SessionRecord,
  fate: Random,
  now: number,
  book: ApprovalBook,
): boolean {
  if (fate.next() >= APPROVAL_CHANCE) return false;
  const r = record as Rec;
  const ask = ASKS[fate.int(ASKS.length)] as (typeof ASKS)[number];
  book.addApproval(
    record.id,
    {
      kind: ask.kind,
      message: ask.message,
      required_role: ask.kind === "deploy" ? "admin" : null,
    },
    now,
  );
  r.agent_status = "awaiting_approval";
  r.last_activity_at = iso(now);
  r.updated_at = iso(now);
  return true;
}

/** Whether the session waits on an approval (its work stands still meanwhile). */
export function awaitingApproval(record: SessionRecord): boolean {
  return (record as Rec).agent_status === "awaiting_approval";
}

/** Every approval is decided (by a person or the simulated reviewer): work goes on. */
export function approvalResolved(record: SessionRecord, now: number): void {
  const r = record as Rec;
  r.agent_status = "working";
  r.last_activity_at = iso(now);
  r.updated_at = iso(now);
}

/** The service paused an idle session by itself. */
export function autoPaused(record: SessionRecord, now: number): void {
  const r = record as Rec;
  r.paused_at = iso(now);
  r.agent_status = "idle";
}
