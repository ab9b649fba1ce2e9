import { z } from "zod";

/**
 * Runtime schemas for the resources of the interface. Parsing is lenient: unknown fields are
 * kept (looseObject), a missing optional field is not an error, a wrong type is.
 */

const nullableString = z.string().nullable();

/** GET /api/cloud/auth/verify success body. */
export const ApiKeyInfoSchema = z.looseObject({
  valid: z.boolean(),
  key_id: z.string(),
  name: z.string(),
  user_id: z.string(),
  organization_id: nullableString.optional().default(null),
  tenant_id: nullableString.optional().default(null),
  role: nullableString.optional().default(null),
  scopes: z.array(z.string()),
  effective_scopes: z.array(z.string()),
  expires_at: nullableString.optional().default(null),
});
export type ApiKeyInfo = z.infer<typeof ApiKeyInfoSchema>;

/** GET /api/v1/me success body. */
export const IdentitySchema = z.looseObject({
  tenant_id: z.string(),
  principal_id: z.string(),
  scopes: z.array(z.string()),
});
export type Identity = z.infer<typeof IdentitySchema>;

/**
 * A session record. Only the id is known ("ses_<id>"); the service may call it session_id or
 * id. Every other field is kept as sent. Our reference service sends state, title, repo,
 * branch, created_at and updated_at.
 */
export const SessionSchema = z
  .looseObject({
    session_id: z.string().optional(),
    id: z.string().optional(),
    state: z.string().optional(),
    title: z.string().nullable().optional(),
    repo: z.string().nullable().optional(),
    branch: z.string().nullable().optional(),
    created_at: z.string().optional(),
    updated_at: z.string().optional(),
  })
  .refine((s) => typeof (s.session_id ?? s.id) === "string", {
    message: "session record has neither session_id nor id",
  })
  .transform((s) => ({ ...s, session_id: (s.session_id ?? s.id) as string }));
export type Session = z.infer<typeof SessionSchema>;

export const SESSION_ID_PATTERN = /^ses_[A-Za-z0-9_-]+$/;

export function isSessionId(s: string): boolean {
  return SESSION_ID_PATTERN.test(s);
}

/** One page of GET /api/sessions, normalised from whichever shape the service sent. */
export interface SessionPage {
  sessions: Session[];
  nextCursor: string | null;
}

const LIST_KEYS = ["sessions", "items", "data"] as const;
const CURSOR_KEYS = ["next_cursor", "next", "cursor"] as const;

/**
 * The list shape is "not shown": accept a bare array, or an object with the list under
 * sessions/items/data and the next cursor under next_cursor/next/cursor; has_more: false
 * ends pagination even when a cursor is present.
 */
export function parseSessionPage(body: unknown): SessionPage {
  let rawList: unknown;
  let cursor: string | null = null;
  if (Array.isArray(body)) {
    rawList = body;
  } else if (body !== null && typeof body === "object") {
    const obj = body as Record<string, unknown>;
    const listKey = LIST_KEYS.find((k) => Array.isArray(obj[k]));
    if (!listKey) throw new Error("session list has no sessions, items or data array");
    rawList = obj[listKey];
    for (const k of CURSOR_KEYS) {
      const v = obj[k];
      if (typeof v === "string" && v !== "") {
        cursor = v;
        break;
      }
      if (typeof v === "number") {
        cursor = String(v);
        break;
      }
    }
    if (obj.has_more === false) cursor = null;
  } else {
    throw new Error("session list is neither an array nor an object");
  }
  const sessions = z.array(SessionSchema).parse(rawList);
  return { sessions, nextCursor: cursor };
}
