import type { Approval } from "../../protocol/approvals.js";
import {
  agentStatus,
  errorMessageOf,
  lastActivityAt,
  lastPrompt,
  pausedAt,
  updatedAt,
} from "../../protocol/sessionRecord.js";
import { parseTime, textValue } from "../../protocol/values.js";
import { sanitize } from "../../text/sanitize.js";

/**
 * Why a session needs the user: the one place that decides it. The attention queue, the row
 * marks, the panes, notifications and `agent-sessions attention` all ask this module.
 *
 * - approval: the agent waits on a person (a pending approval, or `agent_status:
 *   awaiting_approval` on the record);
 * - failed: the session is in `error`, its last prompt ended `error` or `timed_out`, or the
 *   record carries an `error_message`;
 * - finished: a prompt completed that the client saw running (on the record or its stream),
 *   or, at the first sight of a session, one that completed after the user last looked at
 *   it (the journal remembers when); never a record change that is no new completion;
 * - stream: its event stream stopped on an error or went silent past its watchdog;
 * - paused: the session is paused. The real service pauses sessions by itself after about 20
 *   minutes idle, so this is shown but does not notify by default;
 * - destroyed: the session is gone. Shown (until seen) but not notified by default.
 */

export const ATTENTION_REASONS = [
  "approval",
  "failed",
  "finished",
  "stream",
  "paused",
  "destroyed",
] as const;
export type AttentionReason = (typeof ATTENTION_REASONS)[number];

export function isAttentionReason(s: string): s is AttentionReason {
  return (ATTENTION_REASONS as readonly string[]).includes(s);
}

/** Which reasons notify and which are shown at all. */
export interface AttentionConfig {
  readonly notify: ReadonlySet<AttentionReason>;
  readonly show: ReadonlySet<AttentionReason>;
}

export const DEFAULT_ATTENTION: AttentionConfig = {
  notify: new Set<AttentionReason>(["approval", "failed", "finished", "stream"]),
  show: new Set<AttentionReason>(ATTENTION_REASONS),
};

/**
 * Reads a setting: reasons separated by commas (or spaces) notify; `-reason` takes one out of
 * the queue altogether; `none` notifies of nothing. Unknown words are reported, not fatal.
 * `AGENT_SESSIONS_ATTENTION=approval,failed,finished,stream,paused`.
 */
export function parseAttentionSetting(
  value: string | readonly string[],
  from: string,
): { config: AttentionConfig; warning: string | null } {
  const words = (typeof value === "string" ? value.split(/[\s,]+/) : value)
    .map((w) => String(w).trim().toLowerCase())
    .filter(Boolean);
  const notify = new Set<AttentionReason>();
  const show = new Set<AttentionReason>(ATTENTION_REASONS);
  const unknown: string[] = [];
  for (const w of words) {
    if (w === "none") continue;
    const hide = w.startsWith("-");
    const name = hide ? w.slice(1) : w;
    if (!isAttentionReason(name)) {
      unknown.push(name);
      continue;
    }
    if (hide) show.delete(name);
    else notify.add(name);
  }
  for (const r of notify) if (!show.has(r)) notify.delete(r);
  const warning =
    unknown.length > 0
      ? `ignoring ${from}: unknown reason${unknown.length === 1 ? "" : "s"} ${unknown
          .slice(0, 5)
          .map((u) => JSON.stringify(sanitize(u).slice(0, 20)))
          .join(", ")} (known: ${ATTENTION_REASONS.join(", ")})`
      : null;
  return { config: warning !== null ? DEFAULT_ATTENTION : { notify, show }, warning };
}

/**
 * The setting in effect: AGENT_SESSIONS_ATTENTION wins over the config file's `"attention"`
 * (a string or a list, the same words); the defaults when neither says.
 */
export function attentionConfigFrom(
  env: Record<string, string | undefined>,
  fileValue: unknown,
): { config: AttentionConfig; warning: string | null } {
  const raw = env.AGENT_SESSIONS_ATTENTION;
  if (raw !== undefined && raw.trim() !== "") {
    return parseAttentionSetting(
      raw,
      `AGENT_SESSIONS_ATTENTION=${JSON.stringify(raw.slice(0, 60))}`,
    );
  }
  if (typeof fileValue === "string" || Array.isArray(fileValue)) {
    return parseAttentionSetting(
      (Array.isArray(fileValue) ? fileValue : [fileValue]).filter(
        (v): v is string => typeof v === "string",
      ),
      'the config file\'s "attention"',
    );
  }
  return { config: DEFAULT_ATTENTION, warning: null };
}

/** How a reason is named to the user (queue, row mark, pane, notification, headless). */
export const REASON_LABEL: Readonly<Record<AttentionReason, string>> = {
  approval: "awaiting approval",
  failed: "failed",
  finished: "finished",
  stream: "stream",
  paused: "paused",
  destroyed: "destroyed",
};

/** One glyph per reason, for marks where only a cell fits. */
export const REASON_GLYPH: Readonly<Record<AttentionReason, string>> = {
  approval: "⚑",
  failed: "✗",
  finished: "✓",
  stream: "~",
  paused: "⏸",
  destroyed: "✕",
};

/** Queue order between two items of the same time: what is most urgent first. */
export const REASON_RANK: Readonly<Record<AttentionReason, number>> = {
  approval: 0,
  failed: 1,
  stream: 2,
  finished: 3,
  paused: 4,
  destroyed: 5,
};

/** Reasons that stay after their cause has gone until the user has seen them. */
export const KEPT_UNTIL_SEEN: ReadonlySet<AttentionReason> = new Set(["destroyed", "finished"]);

/** "awaiting approval: Deploy …", "failed: build broke", "finished: 3 files changed". */
export function reasonText(reason: AttentionReason, detail: string): string {
  return detail === "" ? REASON_LABEL[reason] : `${REASON_LABEL[reason]}: ${detail}`;
}

/** Where a cause's time came from: the record's own field, the moment a stream told, or first sight. */
export type SinceFrom = "record" | "stream" | "seen";

/** One reason a session needs the user, as one source sees it. */
export interface Cause {
  reason: AttentionReason;
  /** The detail after the reason's name (one line, sanitized); "" when there is none. */
  detail: string;
  /** When it began, per the service (ms since epoch); null when it gives nothing. */
  since: number | null;
  sinceFrom: SinceFrom;
  /** The pending approval behind it, when one is known. */
  approval?: PendingApproval;
}

/** A pending approval as the approvals book holds it (admitted: sanitized, key redacted). */
export type PendingApproval = Approval;

export function oneLine(s: string, max = 300): string {
  const flat = sanitize(s).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

type Rec = Readonly<Record<string, unknown>>;

/** The record's `error_message`, on one line. */
function errorLine(rec: Rec): string | null {
  const m = errorMessageOf(rec);
  return m === null ? null : oneLine(m);
}

/** When the record says it last changed. */
function updatedAtOf(rec: Rec): number | null {
  return updatedAt(rec) ?? lastActivityAt(rec);
}

/** The record says a prompt or the agent is at work (what ends "finished"). */
export function isWorking(rec: Rec): boolean {
  return lastPrompt(rec)?.status === "running" || agentStatus(rec) === "working";
}

/** The record waits on an approval (what makes its approvals worth reading). */
export function awaitsApproval(rec: Rec): boolean {
  return agentStatus(rec) === "awaiting_approval";
}

const FAILED_PROMPT: Readonly<Record<string, string>> = {
  error: "prompt failed",
  timed_out: "prompt timed out",
};

/**
 * Whether the record tells of a prompt that completed since `prev` was seen: the client saw
 * it running and it is now completed, or it shows a completion newer than the one `prev`
 * showed. Without `prev` (the first sight since start),
 * a completion after `lastSeen` (when the user last looked at the session, as the journal
 * remembers it) counts. What is no new completion never counts: an idle pause, an approval
 * arriving, a rename, a list read again.
 */
export function newCompletion(rec: Rec, prev: Rec | null, lastSeen: number | null): boolean {
  if (isWorking(rec)) return false;
  const state = textValue(rec.state);
  if (state === "error") return false;
  const p = lastPrompt(rec);
  if (prev === null) {
    return (
      lastSeen !== null &&
      p?.status === "completed" &&
      p.completedAt !== null &&
      p.completedAt > lastSeen
    );
  }
  const pp = lastPrompt(prev);
  if (p !== null) {
    // Seen running and now completed, or a completion newer than the one last seen (a
    // prompt that ran between two reads of the list).
    if (p.status !== "completed") return false;
    return (
      pp?.status === "running" ||
      (p.completedAt !== null && p.completedAt !== (pp?.completedAt ?? null))
    );
  }
  // A record without last_prompt: the agent went from working to idle in the same state
  // (a pause that idles the agent is no completion).
  return (
    agentStatus(prev) === "working" &&
    agentStatus(rec) === "idle" &&
    state === textValue(prev.state) &&
    state !== "paused" &&
    state !== "destroyed"
  );
}

/**
 * What a record says needs the user now. `prev` is the same session's record as last seen,
 * when there is one: a finish is a transition (newCompletion), never a state on its own.
 * `lastSeen`: when the user last saw the session (the journal's memory), for a first sight.
 */
export function recordCauses(rec: Rec, prev: Rec | null, lastSeen: number | null = null): Cause[] {
  const out: Cause[] = [];
  const state = textValue(rec.state);
  const updated = updatedAtOf(rec);
  const at = (t: number | null): Pick<Cause, "since" | "sinceFrom"> =>
    t !== null ? { since: t, sinceFrom: "record" } : { since: null, sinceFrom: "seen" };
  const prompt = lastPrompt(rec);
  const error = errorLine(rec);

  if (awaitsApproval(rec)) out.push({ reason: "approval", detail: "", ...at(updated) });

  const promptFailed = prompt?.status ? FAILED_PROMPT[prompt.status] : undefined;
  // An error_message left on a record that works again is history, not a failure now.
  const working = isWorking(rec) && state !== "error";
  if (!working && (state === "error" || promptFailed !== undefined || error !== null)) {
    const detail = error ?? promptFailed ?? "session error";
    const t = promptFailed !== undefined ? (prompt?.completedAt ?? updated) : updated;
    out.push({ reason: "failed", detail, ...at(t) });
  }

  if (newCompletion(rec, prev, lastSeen)) {
    out.push({
      reason: "finished",
      detail: "ready for review",
      ...at(prompt?.completedAt ?? updated),
    });
  }

  if (state === "paused") {
    out.push({ reason: "paused", detail: "", ...at(pausedAt(rec) ?? updated) });
  }
  if (state === "destroyed") out.push({ reason: "destroyed", detail: "", ...at(updated) });
  return out;
}

/** What a stream says: its state, how its last prompt ended, its connection. */
export interface StreamView {
  /** The session's state as the stream last told it (state_changed); null when it has not. */
  state: string | null;
  stateAt: number | null;
  /** How the prompt under way ended on the stream (an `error` or `done` item). */
  prompt: {
    status: "running" | "completed" | "error";
    at: number;
    message: string | null;
    filesChanged: number;
  } | null;
  /** The stream stopped on an error (message) or went silent past its watchdog. */
  fault: { kind: "stopped" | "silent"; message: string; at: number } | null;
}

export function streamCauses(v: StreamView): Cause[] {
  const out: Cause[] = [];
  const seenAt = (t: number | null): Pick<Cause, "since" | "sinceFrom"> =>
    t !== null ? { since: t, sinceFrom: "stream" } : { since: null, sinceFrom: "seen" };
  if (v.state === "error")
    out.push({ reason: "failed", detail: "session error", ...seenAt(v.stateAt) });
  if (v.state === "paused") out.push({ reason: "paused", detail: "", ...seenAt(v.stateAt) });
  if (v.state === "destroyed") out.push({ reason: "destroyed", detail: "", ...seenAt(v.stateAt) });
  if (v.prompt?.status === "error") {
    out.push({
      reason: "failed",
      detail: v.prompt.message !== null ? oneLine(v.prompt.message) : "prompt failed",
      ...seenAt(v.prompt.at),
    });
  }
  if (v.prompt?.status === "completed") {
    const n = v.prompt.filesChanged;
    out.push({
      reason: "finished",
      detail: n > 0 ? `${n} file${n === 1 ? "" : "s"} changed` : "ready for review",
      ...seenAt(v.prompt.at),
    });
  }
  if (v.fault) {
    out.push({
      reason: "stream",
      detail:
        v.fault.kind === "silent"
          ? "went silent past its watchdog; reconnecting"
          : `stopped: ${oneLine(v.fault.message)}`,
      ...seenAt(v.fault.at),
    });
  }
  return out;
}

/** Pending approvals as causes: each one's own message and time. */
export function approvalCauses(approvals: readonly PendingApproval[]): Cause[] {
  return approvals.map((a) => {
    const t = parseTime(a.created_at) ?? null;
    return {
      reason: "approval" as const,
      detail: a.message ? oneLine(a.message) : a.kind ? oneLine(a.kind) : "",
      since: t,
      sinceFrom: t !== null ? ("record" as const) : ("seen" as const),
      approval: a,
    };
  });
}
