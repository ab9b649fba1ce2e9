import type { ApiClient } from "../../client/apiClient.js";
import { isPending } from "../../protocol/approvals.js";
import { noRedaction, type RedactFn } from "../../text/redact.js";
import { sanitizeRecord } from "../sanitizeRecord.js";
import type { PendingApproval } from "./reasons.js";

/**
 * Where the attention queue learns a session's pending approvals: a function from a session
 * id to them. The queue takes any such function, so the source can change without touching
 * it (the API client, a test's list).
 *
 * approvalsFromService reads them with the API client's `listApprovals` (the documented
 * `GET …/sessions/{id}/approvals`, through the one transport, its budget and mount). Only
 * pending ones count; what comes back is sanitized and the key redacted, as the list's
 * records are. Null means the approvals could not be read (a server without the
 * endpoint, a refusal, a network failure): the record's `agent_status` then speaks alone.
 */
export type ApprovalsSource = (
  sessionId: string,
  signal?: AbortSignal,
) => Promise<readonly PendingApproval[] | null>;

/** Most approvals kept per session. */
const MAX_APPROVALS = 20;

export function approvalsFromService(
  api: Pick<ApiClient, "listApprovals">,
  redact: RedactFn = noRedaction,
): ApprovalsSource {
  return async (sessionId, signal) => {
    try {
      const all = await api.listApprovals(sessionId, signal);
      const pending = all
        .filter(isPending)
        .slice(0, MAX_APPROVALS)
        .map((a) => ({
          id: a.id,
          kind: a.kind ?? null,
          message: a.message ?? null,
          required_role: a.required_role ?? null,
          created_at: a.created_at ?? null,
        }));
      return sanitizeRecord(pending, redact);
    } catch {
      return null;
    }
  };
}
