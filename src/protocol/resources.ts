import * as z from "./schema.js";
import { parseTime } from "./values.js";

/**
 * Runtime schemas for the resources of the interface. Parsing is lenient: unknown fields are
 * kept (looseObject), a missing optional field is not an error, a wrong type is.
 */

const nullableString = z.nullable(z.string());
const optionalText = z.optional(z.nullable(z.string()));
/**
 * A field read for what it holds, never checked here: any value (or none) passes and is kept as
 * sent. The readers in sessionRecord.ts interpret it (a number sent as a string, a time as
 * text or epoch) and answer null for what they cannot read, so a wrong type costs that one
 * field, never the record.
 */
const lenient = z.optional(z.unknown());
/** Null when absent. */
const nullWhenAbsent = z._default(nullableString, null);

/** GET /api/cloud/auth/verify success body. */
export const ApiKeyInfoSchema = z.looseObject({
  valid: z.boolean(),
  key_id: z.string(),
  name: z.string(),
  user_id: z.string(),
  organization_id: nullWhenAbsent,
  tenant_id: nullWhenAbsent,
  role: nullWhenAbsent,
  scopes: z.array(z.string()),
  effective_scopes: z.array(z.string()),
  expires_at: nullWhenAbsent,
});
export type ApiKeyInfo = z.infer<typeof ApiKeyInfoSchema>;

/**
 * When a key expires (ms since the epoch, by the one time parser): null when it never does
 * (`expires_at` null or absent), undefined when the service sent something that is no time.
 */
export function keyExpiresAt(info: { readonly expires_at?: unknown }): number | null | undefined {
  const v = info.expires_at;
  return v === null || v === undefined ? null : parseTime(v);
}

/**
 * GET /api/v1/me success body. The interface shows tenant_id, principal_id and scopes; the
 * real service's documentation adds email, org_name and api_key_name, read when present.
 */
export const IdentitySchema = z.looseObject({
  tenant_id: z.string(),
  principal_id: z.string(),
  scopes: z.array(z.string()),
  email: optionalText,
  org_name: optionalText,
  api_key_name: optionalText,
});
export type Identity = z.infer<typeof IdentitySchema>;

/**
 * A session record. The interface names the id session_id and shows nothing else; the real
 * service documents `id`, `name`, `state`, `agent`, `template_id`, `visibility`,
 * `sandbox_url`, `user_id`, `organization_id`, `created_at` and `updated_at`, and, optional,
 * `github_repo`, `last_prompt`, `last_activity_at`, `error_message`, `paused_at`,
 * `prompt_count`, `total_cost_usd`, `preview_url`, `template` and `agent_status`. Either id is
 * accepted (the parsed record always carries it as session_id), every field is optional but
 * the id, and unknown fields are kept as sent. The times and the optional documented fields
 * are lenient: whatever they hold is kept, and read through sessionRecord.ts (a time may come
 * as ISO text or as an epoch number).
 */
export const SessionSchema = z.pipe(
  z
    .looseObject({
      session_id: z.optional(z.string()),
      id: z.optional(z.string()),
      name: optionalText,
      title: optionalText,
      state: optionalText,
      agent: optionalText,
      template_id: optionalText,
      visibility: optionalText,
      sandbox_url: optionalText,
      user_id: optionalText,
      organization_id: optionalText,
      repo: optionalText,
      branch: optionalText,
      created_at: lenient,
      updated_at: lenient,
      github_repo: lenient,
      last_prompt: lenient,
      last_activity_at: lenient,
      error_message: lenient,
      paused_at: lenient,
      prompt_count: lenient,
      total_cost_usd: lenient,
      preview_url: lenient,
      template: lenient,
      agent_status: lenient,
    })
    .check(
      z.refine((s) => typeof (s.session_id ?? s.id) === "string", {
        message: "session record has neither session_id nor id",
      }),
    ),
  z.transform((s) => ({ ...s, session_id: (s.session_id ?? s.id) as string })),
);
export type Session = z.infer<typeof SessionSchema>;

/** What a session is called: its name (the documented field), else its title, else null. */
export function sessionName(s: { name?: unknown; title?: unknown }): string | null {
  if (typeof s.name === "string" && s.name !== "") return s.name;
  if (typeof s.title === "string" && s.title !== "") return s.title;
  return null;
}

/**
 * Where the next page starts: an opaque cursor the server handed out, or an offset (the
 * documented paging: `limit` and `offset`, with `total` and `has_more` in the answer).
 */
export type PageToken = { cursor: string } | { offset: number };

/** One page of GET /api/sessions, normalised from whichever shape the service sent. */
export interface SessionPage {
  sessions: Session[];
  /** How many sessions match in all, when the server says. */
  total: number | null;
  /** The server says there are more (even if it gave no way to fetch them: next is null). */
  hasMore: boolean;
  /** How to ask for the next page; null at the end. */
  next: PageToken | null;
}

const LIST_KEYS = ["sessions", "items", "data"] as const;
const CURSOR_KEYS = ["next_cursor", "next", "cursor"] as const;
const TOTAL_KEYS = ["total", "total_count"] as const;

function nonNegativeInt(v: unknown): number | null {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : null;
}

/**
 * The list shape is "not shown" by the interface: accept a bare array, or an object with the
 * list under sessions/items/data. The next page is, in this order: none when has_more is
 * false; the cursor under next_cursor/next/cursor; a next_offset; offset + this page's length
 * when has_more is true, or when a total says more remain. `at` is the offset this page was
 * asked from (0 for the first page).
 */
export function parseSessionPage(
  body: unknown,
  at: { offset: number } = { offset: 0 },
): SessionPage {
  if (Array.isArray(body)) {
    return {
      sessions: z.array(SessionSchema).parse(body),
      total: null,
      hasMore: false,
      next: null,
    };
  }
  if (body === null || typeof body !== "object") {
    throw new Error("session list is neither an array nor an object");
  }
  const obj = body as Record<string, unknown>;
  const listKey = LIST_KEYS.find((k) => Array.isArray(obj[k]));
  if (!listKey) throw new Error("session list has no sessions, items or data array");
  const sessions = z.array(SessionSchema).parse(obj[listKey]);
  let total: number | null = null;
  for (const k of TOTAL_KEYS) {
    total = nonNegativeInt(obj[k]);
    if (total !== null) break;
  }
  let cursor: string | null = null;
  for (const k of CURSOR_KEYS) {
    const v = obj[k];
    if (typeof v === "string" && v !== "") {
      cursor = v;
      break;
    }
    if (typeof v === "number" && Number.isFinite(v)) {
      cursor = String(v);
      break;
    }
  }
  const hasMoreFlag = typeof obj.has_more === "boolean" ? obj.has_more : null;
  const following = at.offset + sessions.length;
  let next: PageToken | null = null;
  if (hasMoreFlag === false) next = null;
  else if (cursor !== null) next = { cursor };
  else if (nonNegativeInt(obj.next_offset) !== null && (obj.next_offset as number) > at.offset)
    next = { offset: obj.next_offset as number };
  else if (sessions.length > 0 && (hasMoreFlag === true || (total !== null && following < total)))
    next = { offset: following };
  const hasMore = next !== null || hasMoreFlag === true;
  return { sessions, total, hasMore, next };
}
