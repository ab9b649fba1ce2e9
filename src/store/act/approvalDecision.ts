/**
 * Deciding an approval, for the CLI and the UI alike: resolve it, and when the service says
 * it is already resolved (409), read the session's approvals again into the book so the user
 * learns who resolved it and when; when it says not found (404), tell whether the approval or
 * the session itself is missing; when it refuses (403) because of the approval's role, say so
 * in the words of the UI's role gate (approvalGate), not as a missing scope.
 */
import type { ApiClient } from "../../client/apiClient.js";
import { HttpError, MissingScopeError, NotFoundError } from "../../client/errors.js";
import { type Approval, approvalGate, type ResolveAction } from "../../protocol/approvals.js";
import { REQUIRED_SCOPES } from "../../protocol/scopes.js";
import { sanitizeLine } from "../../text/sanitize.js";
import type { ApprovalsBook } from "../approvals/approvalsBook.js";

export type DecisionOutcome =
  | { kind: "resolved"; approval: Approval }
  /** 409: resolved before; `approval` is the fresh read (null when it no longer lists it). */
  | { kind: "already"; approval: Approval | null; error: HttpError }
  /** 404: no such approval on this session (any more). */
  | { kind: "gone"; error: NotFoundError }
  /** 404, and the session itself is not found either (read again to tell). */
  | { kind: "no_session"; sessionId: string; error: NotFoundError }
  /** 403 by the approval's role gate: `reason` is approvalGate's ("needs the admin role (yours is member)"). */
  | { kind: "not_allowed"; reason: string; error: MissingScopeError };

/** What a decision calls: the resolve, and what tells its refusals apart. */
export type DecideApi = Pick<ApiClient, "resolveApproval" | "verify"> & {
  getSession(id: string, signal?: AbortSignal): Promise<unknown>;
};

export async function decideApproval(
  client: DecideApi,
  book: Pick<ApprovalsBook, "read" | "resolved">,
  sessionId: string,
  approvalId: string,
  action: ResolveAction,
  note?: string,
  signal?: AbortSignal,
): Promise<DecisionOutcome> {
  try {
    const answer = await client.resolveApproval(sessionId, approvalId, action, note, signal);
    return { kind: "resolved", approval: book.resolved(sessionId, answer) };
  } catch (e) {
    if (e instanceof NotFoundError) {
      try {
        await client.getSession(sessionId, signal);
      } catch (g) {
        // The session is what is missing, not the approval.
        if (g instanceof NotFoundError) return { kind: "no_session", sessionId, error: e };
      }
      void book.read(sessionId);
      return { kind: "gone", error: e };
    }
    if (e instanceof MissingScopeError) {
      const reason = await roleRefusal(client, book, sessionId, approvalId);
      if (reason === null) throw e;
      return { kind: "not_allowed", reason, error: e };
    }
    if (!(e instanceof HttpError) || e.status !== 409) throw e;
    const fresh = await book.read(sessionId);
    return {
      kind: "already",
      approval: fresh.all.find((a) => a.id === approvalId) ?? null,
      error: e,
    };
  }
}

/**
 * Why a 403 of the decision is the approval's role gate: the key holds the scope the call
 * needs, and its role is not one the approval admits (approvalGate, the UI's own check).
 * Null when that is not it (a missing scope, a team, the organization): the service's words
 * stand.
 */
async function roleRefusal(
  client: DecideApi,
  book: Pick<ApprovalsBook, "read">,
  sessionId: string,
  approvalId: string,
): Promise<string | null> {
  const [key, entry] = await Promise.allSettled([client.verify(), book.read(sessionId)]);
  if (key.status !== "fulfilled" || entry.status !== "fulfilled") return null;
  if (!key.value.effective_scopes.includes(REQUIRED_SCOPES.resolveApproval)) return null;
  const approval = entry.value.all.find((a) => a.id === approvalId);
  return approval ? approvalGate(approval, key.value.role) : null;
}

const clean = (s: string | null | undefined) => (s ? sanitizeLine(s) : null);

/** "approved by user_123 at 2026-07-28T18:14:30Z (note: ship it)", from what the record says. */
export function describeResolution(a: Approval): string {
  const status = clean(a.status) ?? "resolved";
  const by = clean(a.resolved_by);
  const at = clean(a.resolved_at);
  const note = clean(a.resolution_note);
  return `${status}${by ? ` by ${by}` : ""}${at ? ` at ${at}` : ""}${note ? ` (note: ${note})` : ""}`;
}

/** One line for an outcome, as the CLI prints it and the pane says it. */
export function describeDecision(
  outcome: DecisionOutcome,
  approvalId: string,
  action: ResolveAction,
): string {
  const id = sanitizeLine(approvalId);
  switch (outcome.kind) {
    case "resolved":
      return `${id}: ${describeResolution(outcome.approval)}`;
    case "already":
      return outcome.approval
        ? `${id} was already ${describeResolution(outcome.approval)}; nothing was ${action === "approve" ? "approved" : "rejected"}`
        : `${id} was already resolved (the service no longer lists it); nothing was ${action === "approve" ? "approved" : "rejected"}`;
    case "gone":
      return `${id} is gone: the session has no such approval (any more)`;
    case "no_session":
      return `session ${sanitizeLine(outcome.sessionId)} does not exist (or this key cannot see it); nothing was ${action === "approve" ? "approved" : "rejected"}`;
    case "not_allowed":
      return `${id} ${outcome.reason}; nothing was ${action === "approve" ? "approved" : "rejected"}`;
  }
}

/** What an approval asks, in one line: kind, message, who may decide, since when. */
export function describeApproval(a: Approval): string {
  const kind = clean(a.kind) ?? "approval";
  const msg = clean(a.message);
  const who = [
    a.required_role ? `role ${clean(a.required_role)}` : null,
    a.required_team_id ? `team ${clean(a.required_team_id)}` : null,
  ].filter(Boolean);
  const since = clean(a.created_at);
  return `${kind}${msg ? `: ${msg}` : ""}${who.length > 0 ? ` [needs ${who.join(" or ")}]` : ""}${since ? ` since ${since}` : ""}`;
}
