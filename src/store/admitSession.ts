import { unsafeIdReason } from "../protocol/ids.js";
import type { Session } from "../protocol/resources.js";
import { noRedaction, type RedactFn } from "../text/redact.js";
import { sanitizeLine } from "../text/sanitize.js";
import { sanitizeRecord } from "./sanitizeRecord.js";

/**
 * The one way a session record from a server enters a store, whatever brought it (the first
 * page, a further page, a live refresh, a single read, the fleet): every field but the id
 * sanitized onto one line and the user's key redacted (sanitizeRecord), and the id checked
 * against the rule for URL paths (unsafeIdReason).
 *
 * A session's identity is `session_id` exactly as the server sent it: the store's key, the
 * selection, a pane, the attention queue and every URL use it, so `ses_a\x07` and `ses_a`
 * stay two sessions, and the first is never put into a path. What is drawn is the display
 * copy (displayId), made safe like every other field. Both extras live under symbols, so
 * they never show among the record's fields (the detail view, JSON) nor travel to a server.
 */

const DISPLAY_ID = Symbol("displayId");
const UNSAFE_ID = Symbol("unsafeId");

export type AdmittedSession = Session & {
  readonly [DISPLAY_ID]: string;
  /** Why the id cannot go into a URL path; null when it can. */
  readonly [UNSAFE_ID]: string | null;
};

export function admitSession(raw: Session, redact: RedactFn = noRedaction): AdmittedSession {
  const id = raw.session_id;
  // sanitizeRecord copies only when something changes: the copy made here is the one place
  // the raw id is put back over its sanitized form.
  const safe = sanitizeRecord(raw, redact);
  return {
    ...safe,
    session_id: id,
    [DISPLAY_ID]: safe.session_id,
    [UNSAFE_ID]: unsafeIdReason(id),
  };
}

export function admitSessions(raw: readonly Session[], redact: RedactFn): AdmittedSession[] {
  return raw.map((r) => admitSession(r, redact));
}

/**
 * A session id as it may be drawn: the admitted record's display copy when there is one, else
 * the id made safe for a single-line place. For an id that may go into a URL path this is the
 * id itself (the path rule refuses everything the sanitizer would change).
 */
export function displayId(s: Session | string): string {
  if (typeof s === "string") return sanitizeLine(s);
  const shown = (s as Partial<AdmittedSession>)[DISPLAY_ID];
  return shown ?? sanitizeLine(s.session_id);
}

/** Why this session's id cannot go into a URL path (as found at admission), or null. */
export function unsafeIdOf(s: Session): string | null {
  const r = (s as Partial<AdmittedSession>)[UNSAFE_ID];
  return r === undefined ? unsafeIdReason(s.session_id) : r;
}
