import type { Transport } from "../../client/transport.js";
import { tryJson } from "../../client/transport.js";
import { pathSegment } from "../../protocol/ids.js";
import { noRedaction, type RedactFn } from "../../text/redact.js";
import { sanitizeRecord } from "../sanitizeRecord.js";
import type { PendingApproval } from "./reasons.js";

/**
 * Where the attention queue learns a session's pending approvals: a function from a session
 * id to them. The queue takes any such function, so the source can change without touching
 * it (an ApiClient method, a test's list).
 *
 * approvalsFromService reads the documented `GET /api/sessions/{id}/approvals` (its
 * `/api/cloud` form where that is the mount): a JSON array of approval objects, newest first
 * (`{approvals: [...]}` is read too). Only `status: pending` ones count. Null means the
 * approvals could not be read (a server without the endpoint, a refusal, a network
 * failure): the record's `agent_status` then speaks alone.
 */
export type ApprovalsSource = (
  sessionId: string,
  signal?: AbortSignal,
) => Promise<readonly PendingApproval[] | null>;

/** Most approvals kept per session. */
const MAX_APPROVALS = 20;

function str(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

/** The pending approvals in an answer, whatever of it is well formed. */
export function readPendingApprovals(json: unknown): PendingApproval[] | null {
  const list = Array.isArray(json)
    ? json
    : json !== null &&
        typeof json === "object" &&
        Array.isArray((json as { approvals?: unknown }).approvals)
      ? (json as { approvals: unknown[] }).approvals
      : null;
  if (list === null) return null;
  const out: PendingApproval[] = [];
  for (const a of list) {
    if (a === null || typeof a !== "object") continue;
    const o = a as Record<string, unknown>;
    const id = str(o.id);
    if (id === null || (o.status !== undefined && o.status !== "pending")) continue;
    out.push({
      id,
      kind: str(o.kind),
      message: str(o.message),
      required_role: str(o.required_role),
      created_at: str(o.created_at),
    });
    if (out.length >= MAX_APPROVALS) break;
  }
  return out;
}

/**
 * Reads the approvals through the one transport (its budget, retries and mount); what comes
 * back is sanitized and the key redacted, as the list's records are.
 */
export function approvalsFromService(
  transport: Transport,
  redact: RedactFn = noRedaction,
): ApprovalsSource {
  return async (sessionId, signal) => {
    let path: string;
    try {
      path = `/api/sessions/${pathSegment(sessionId)}/approvals`;
    } catch {
      return null;
    }
    for (const p of transport.routes.candidates(path)) {
      let res: Awaited<ReturnType<Transport["request"]>>;
      try {
        res = await transport.request({ method: "GET", path: p, ...(signal ? { signal } : {}) });
      } catch {
        return null;
      }
      if (res.status === 404 || res.status === 405) continue;
      if (res.status < 200 || res.status >= 300 || res.truncated) return null;
      transport.routes.worked(p);
      const got = readPendingApprovals(tryJson(res.text));
      return got === null ? null : sanitizeRecord(got, redact);
    }
    return null;
  };
}
