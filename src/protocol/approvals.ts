/**
 * Approvals: `GET …/sessions/{id}/approvals` and `POST …/approvals/{approval_id}/resolve`,
 * as the real service documents them. One place for the client, the reference service and
 * the UI's role gate.
 */
import * as z from "./schema.js";
import { recordValue } from "./values.js";

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
 * One answer of the list, read with a bound: the approvals read, and how many the answer
 * held, read or not, so that a list cut at the bound can say so and give the real count.
 */
export interface ApprovalList {
  /** The approvals read (at most MAX_APPROVALS_READ), in the service's order. */
  items: Approval[];
  /** The approvals the answer held (an entry without an id is none). */
  total: number;
  /** How many of them are pending. */
  pending: number;
}

function isPendingStatus(status: unknown): boolean {
  return status === undefined || status === null || status === "pending";
}

/**
 * The list answer: a JSON array as documented, or the array under `approvals`, `items` or
 * `data` (other servers wrap lists). An answer that is no list at all is an error; an item
 * that is not an approval (no id) is skipped, so one bad entry never hides the others. Past
 * MAX_APPROVALS_READ the entries are only counted.
 */
export function parseApprovals(json: unknown): ApprovalList {
  let list: unknown = json;
  const o = recordValue(json);
  if (o) list = o.approvals ?? o.items ?? o.data;
  const entries = z.array(z.unknown()).parse(list);
  const items: Approval[] = [];
  let total = 0;
  let pending = 0;
  for (const entry of entries) {
    if (items.length < MAX_APPROVALS_READ) {
      const a = ApprovalSchema.safeParse(entry);
      if (!a.success) continue;
      items.push(a.data);
      total++;
      if (isPending(a.data)) pending++;
      continue;
    }
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) continue;
    const o = entry as Record<string, unknown>;
    if (typeof o.id !== "string") continue;
    total++;
    if (isPendingStatus(o.status)) pending++;
  }
  return { items, total, pending };
}

/** Whether the answer held more approvals than were read. */
export function approvalListCut(list: ApprovalList): boolean {
  return list.total > list.items.length;
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
  return isPendingStatus(a.status);
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
