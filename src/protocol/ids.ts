/**
 * Ids that go into a URL path. A server's id is untrusted: `..` would walk the request up the
 * path (`/api/cloud/sessions/../events` is `/api/cloud/events`, and the key goes with it), and
 * `/`, `\`, `?`, `#` or `%` would change which resource or query is asked for. Such an id is
 * refused before any request is made, in the CLI and the UI alike; every other id is
 * percent-encoded as one path segment.
 */

/** Longest id used in a path; an id longer than this is not a session id. */
export const MAX_PATH_ID_LENGTH = 256;

/** Why this id cannot be used in a URL path, or null when it can. */
export function unsafeIdReason(id: string): string | null {
  if (id === "") return "it is empty";
  if (/^\.+$/.test(id)) return "it is a dot path segment";
  if (id.length > MAX_PATH_ID_LENGTH) return `it is longer than ${MAX_PATH_ID_LENGTH} characters`;
  const bad = /[/\\?#%]/.exec(id);
  if (bad) return `it contains "${bad[0]}"`;
  if (/[\x00-\x20\x7f-\x9f]/.test(id)) return "it contains a control character or a space";
  if (/[\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/.test(id)) {
    return "it contains a bidirectional control or line separator";
  }
  return null;
}

export function isSafePathId(id: string): boolean {
  return unsafeIdReason(id) === null;
}

/** One path segment for a validated id; throws a TypeError for an id that is not safe. */
export function pathSegment(id: string): string {
  const bad = unsafeIdReason(id);
  if (bad !== null) throw new TypeError(`unsafe id in a URL path: ${bad}`);
  return encodeURIComponent(id);
}

/**
 * The interface's ses_<id>, or the UUID form the real service's documentation also uses: the
 * shape a user may type. Whether an id may go into a URL path is the one rule above
 * (unsafeIdReason), which every id of this shape passes and which also holds for ids a server
 * sends in other spec-legal shapes.
 */
export const SESSION_ID_PATTERN =
  /^(?:ses_[A-Za-z0-9_-]+|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;

export function isSessionId(s: string): boolean {
  return SESSION_ID_PATTERN.test(s);
}

/**
 * The one order of ids where only a stable order is wanted (a tie in a sort): by code point.
 * Not the locale's collation: ids are machine words, and the first collation of a process
 * initializes ICU's collator (about 8 ms), which the UI's start does not otherwise need.
 */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
