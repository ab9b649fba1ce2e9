/**
 * Deciding an approval, for the CLI and the UI alike: resolve it, and when the service says
 * it is already resolved (409), read the session's approvals again into the book so the user
 * learns who resolved it and when; when it says the approval is gone (404), say that.
 */
import type { ApiClient } from "../../client/apiClient.js";
import { HttpError, NotFoundError } from "../../client/errors.js";
import type { Approval, ResolveAction } from "../../protocol/approvals.js";
import { sanitizeLine } from "../../text/sanitize.js";
import type { ApprovalsBook } from "../approvals/approvalsBook.js";

export type DecisionOutcome =
  | { kind: "resolved"; approval: Approval }
  /** 409: resolved before; `approval` is the fresh read (null when it no longer lists it). */
  | { kind: "already"; approval: Approval | null; error: HttpError }
  /** 404: no such approval on this session (any more). */
  | { kind: "gone"; error: NotFoundError };

export async function decideApproval(
  client: Pick<ApiClient, "resolveApproval">,
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
      void book.read(sessionId);
      return { kind: "gone", error: e };
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
