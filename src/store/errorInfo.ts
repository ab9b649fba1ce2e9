import { NetworkError } from "../client/errors.js";
import type { NetworkFailureKind } from "../client/networkFailure.js";
import { noRedaction, type RedactFn } from "../text/redact.js";
import { sanitizeLine } from "../text/sanitize.js";

/**
 * An error as the stores keep it: plain data (no Error instance in state), its message
 * sanitized, on one line and without the key, because it may quote the server verbatim (a
 * 403's detail, for example).
 */
export interface ErrorInfo {
  message: string;
  /** What to do next, when the error type says. */
  hint: string | null;
  /** Stable code of a typed client error ("missing_scope", "rate_limited", …). */
  code: string | null;
  /** The scope a 403 named, when it named one. */
  requiredScope: string | null;
  /** What a network failure was (refused, host_not_found, tls, timed_out, …), when it was one. */
  network?: NetworkFailureKind;
}

export function toErrorInfo(e: unknown, redact: RedactFn = noRedaction): ErrorInfo {
  const o = (e !== null && typeof e === "object" ? e : {}) as Record<string, unknown>;
  const raw = e instanceof Error ? e.message : typeof e === "string" ? e : String(e);
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? redact(sanitizeLine(v)) : null);
  return {
    message: redact(sanitizeLine(raw)) || "unknown error",
    hint: str(o.hint),
    code: str(o.code),
    requiredScope: str(o.requiredScope),
    ...(e instanceof NetworkError ? { network: e.failure.kind } : {}),
  };
}
