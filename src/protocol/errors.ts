/**
 * Error bodies. The interface shows two shapes: {detail: string} (verify) and
 * {detail: {error: string}} (me). Anything else is summarised rather than trusted.
 */

export interface ErrorBody {
  detail: string | { error: string; [k: string]: unknown };
  /** Set by our reference service on 403: the scope the call needs. */
  required_scope?: string;
}

/** The human message inside an error body, or null when the body has none of the known shapes. */
export function errorMessage(body: unknown): string | null {
  if (body === null || typeof body !== "object") return null;
  const detail = (body as Record<string, unknown>).detail;
  if (typeof detail === "string") return detail;
  if (detail !== null && typeof detail === "object") {
    const err = (detail as Record<string, unknown>).error;
    if (typeof err === "string") return err;
    const msg = (detail as Record<string, unknown>).message;
    if (typeof msg === "string") return msg;
  }
  const message = (body as Record<string, unknown>).message;
  if (typeof message === "string") return message;
  return null;
}

/** The scope a 403 names, when the body says so (our service's `required_scope`). */
export function requiredScopeOf(body: unknown): string | null {
  if (body === null || typeof body !== "object") return null;
  const o = body as Record<string, unknown>;
  if (typeof o.required_scope === "string") return o.required_scope;
  const d = o.detail;
  if (d !== null && typeof d === "object") {
    const r = (d as Record<string, unknown>).required_scope;
    if (typeof r === "string") return r;
  }
  return null;
}
