/**
 * Approvals: `GET …/sessions/{id}/approvals` and `POST …/approvals/{approval_id}/resolve`,
 * as the real service documents them. One place for the client, the reference service and
 * the UI's role gate.
 */
import * as z from "./schema.js";

/** The longest resolution note (characters); longer is refused before sending. */
export const MAX_APPROVAL_NOTE_CHARS = 512;

export const RESOLVE_ACTIONS = ["approve", "reject"] as const;
export type ResolveAction = (typeof RESOLVE_ACTIONS)[number];

const text = z.optional(z.nullable(z.string()));

/** One approval request. Lenient: only the id is required; unknown fields are kept. */
export const ApprovalSchema = z.looseObject({
  id: z.string(),
  session_id: text,
  kind: text,
  message: text,
  required_role: text,
  required_team_id: text,
  status: text,
  requested_by: text,
  created_at: text,
  resolved_by: text,
  resolved_at: text,
  resolution_note: text,
});
export type Approval = z.infer<typeof ApprovalSchema>;

/** Most approvals read from one answer. */
export const MAX_APPROVALS_READ = 500;

/**
 * The list answer: a JSON array as documented, or the array under `approvals`, `items` or
 * `data` (other servers wrap lists). An answer that is no list at all is an error; an item
 * that is not an approval (no id) is skipped, so one bad entry never hides the others.
 */
export function parseApprovals(json: unknown): Approval[] {
  let list: unknown = json;
  if (json !== null && typeof json === "object" && !Array.isArray(json)) {
    const o = json as Record<string, unknown>;
    list = o.approvals ?? o.items ?? o.data;
  }
  const items = z.array(z.unknown()).parse(list);
  const out: Approval[] = [];
  for (const item of items) {
    const a = ApprovalSchema.safeParse(item);
    if (a.success) out.push(a.data);
    if (out.length >= MAX_APPROVALS_READ) break;
  }
  return out;
}

/** The resolve body. */
export function resolveBody(
  action: ResolveAction,
  note?: string,
): { action: string; note?: string } {
  return note !== undefined && note !== "" ? { action, note } : { action };
}

/** Why a note cannot be sent, or null. */
export function noteProblem(note: string | undefined): string | null {
  if (note === undefined) return null;
  if (note.length > MAX_APPROVAL_NOTE_CHARS) {
    return `the note is ${note.length} characters, more than the ${MAX_APPROVAL_NOTE_CHARS} the service accepts`;
  }
  return null;
}

export function isPending(a: Approval): boolean {
  return (a.status ?? "pending") === "pending";
}

/**
 * Whether a key of this role may resolve the approval, as the service documents its gate:
 * org admins and owners always; otherwise the required role must match (a team constraint
 * cannot be checked from here, so it is left to the service); no constraint: anyone with
 * access. Null when allowed (or not decidable here), else the reason.
 */
export function approvalGate(a: Approval, role: string | null | undefined): string | null {
  const required = a.required_role ?? null;
  if (required === null || required === "") return null;
  if (role === "owner" || role === "admin") return null;
  if (role === required) return null;
  if (a.required_team_id) return null;
  return role
    ? `needs the ${required} role (yours is ${role})`
    : `needs the ${required} role (a personal key has none)`;
}
