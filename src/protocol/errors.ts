import { recordValue as obj } from "./values.js";
/**
 * Error bodies. The interface shows {detail: string} (verify) and {detail: {error: string}}
 * (me); the real service's documentation adds {detail: {error, message, field}}, and
 * frameworks commonly send {detail: [{loc, msg}]} for validation. Anything else is
 * summarised rather than trusted.
 */

/** What an error body says, read from whichever known shape it has. */
export interface ErrorDetail {
  /** One readable line (or null when the body has none of the known shapes). */
  message: string | null;
  /** A machine code such as "validation_error", when the body has one besides a message. */
  code: string | null;
  /** The request field the error is about, when named. */
  field: string | null;
}

function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() !== "" ? v : null;
}

/** A list of validation items ({loc: [...], msg}) as "loc: msg; loc: msg". */
function validationList(list: unknown[]): string | null {
  const parts: string[] = [];
  for (const item of list.slice(0, 10)) {
    const o = obj(item);
    if (!o) {
      if (typeof item === "string") parts.push(item);
      continue;
    }
    const msg = str(o.msg) ?? str(o.message);
    if (!msg) continue;
    const loc = Array.isArray(o.loc)
      ? o.loc
          .map(String)
          .filter((x) => x !== "body")
          .join(".")
      : "";
    parts.push(loc ? `${loc}: ${msg}` : msg);
  }
  if (list.length > 10) parts.push(`… ${list.length - 10} more`);
  return parts.length > 0 ? parts.join("; ") : null;
}

/** Reads an error body of any of the known shapes. */
export function describeErrorBody(body: unknown): ErrorDetail {
  const none: ErrorDetail = { message: null, code: null, field: null };
  const o = obj(body);
  if (!o) return none;
  const detail = o.detail;
  if (typeof detail === "string") return { message: str(detail), code: null, field: null };
  if (Array.isArray(detail)) return { message: validationList(detail), code: null, field: null };
  const d = obj(detail);
  if (d) {
    const error = str(d.error);
    const message = str(d.message) ?? str(d.msg);
    const field = str(d.field);
    if (message) return { message, code: error, field };
    if (error) return { message: error, code: null, field };
  }
  const message = str(o.message) ?? str(o.error);
  return message ? { message, code: null, field: str(o.field) } : none;
}

/**
 * The one readable line of an error body: the message, with the code and field when the
 * body names them ("Field 'agent' is required (validation_error, field agent)").
 */
export function errorMessage(body: unknown): string | null {
  const d = describeErrorBody(body);
  if (d.message === null) return null;
  const extra: string[] = [];
  if (d.code && !d.message.includes(d.code)) extra.push(d.code);
  if (d.field && !d.message.includes(d.field)) extra.push(`field ${d.field}`);
  return extra.length > 0 ? `${d.message} (${extra.join(", ")})` : d.message;
}

const SCOPE_TOKEN = "[A-Za-z][\\w.-]*(?::[\\w.*-]+)?";
/** "requires sessions:write", "requires scope 'x'", "missing scope x", "scope x required". */
const SCOPE_PATTERNS = [
  new RegExp(`\\brequires?\\s+(?:the\\s+)?(?:scope\\s+)?[\`'"]?(${SCOPE_TOKEN})`, "i"),
  new RegExp(`\\bmissing\\s+(?:the\\s+)?scope:?\\s+[\`'"]?(${SCOPE_TOKEN})`, "i"),
  new RegExp(`\\bscope\\s+[\`'"]?(${SCOPE_TOKEN})[\`'"]?\\s+(?:is\\s+)?required`, "i"),
];

/** A 403 whose words say a role is missing ("requires the admin role"), not a scope. */
export function refusesRole(message: string | null): boolean {
  return message !== null && /\brole\b/i.test(message);
}

/** A token that looks like a scope: sessions:write, integrations:read, or a legacy name. */
function looksLikeScope(s: string): boolean {
  return /^[a-z][\w.-]*:[\w.*-]+$/i.test(s) || /^(read|deploy|delete|admin)$/.test(s);
}

/**
 * The scope a 403 names: a `required_scope` field (top level or in detail), a scope-shaped
 * `field`, or the scope in the message ("Insufficient scope: requires sessions:write").
 */
export function requiredScopeOf(body: unknown): string | null {
  const o = obj(body);
  if (!o) return null;
  const d = obj(o.detail);
  for (const v of [o.required_scope, d?.required_scope, d?.scope, o.scope]) {
    const s = str(v);
    if (s && looksLikeScope(s.trim())) return s.trim();
  }
  const f = str(d?.field) ?? str(o.field);
  if (f && looksLikeScope(f.trim())) return f.trim();
  const message = describeErrorBody(body).message;
  if (message) {
    for (const p of SCOPE_PATTERNS) {
      const m = p.exec(message);
      // "requires the admin role" names a role, not the legacy scope `admin`.
      const role = m !== null && /^\s*role\b/i.test(message.slice(m.index + m[0].length));
      if (m?.[1] && looksLikeScope(m[1]) && !role) return m[1];
    }
  }
  return null;
}
