import {
  describeErrorBody,
  errorMessage,
  refusesRole,
  requiredScopeOf,
} from "../protocol/errors.js";
import {
  type AgentSessionsError,
  HttpError,
  InvalidKeyError,
  MissingScopeError,
  NotFoundError,
} from "./errors.js";

/**
 * The one place that turns an HTTP error answer (status and body) into a typed error, for
 * the API client and the event stream alike. Messages quote the server's words; the error
 * constructors (errors.ts) sanitize, fold and cut every message, so no caller has to. Hints
 * fit the cause, not only the status code.
 */

export interface ErrorResponse {
  /** "GET /api/sessions", for messages that need to say which call failed. */
  label: string;
  status: number;
  /** The body parsed as JSON, or undefined when it was empty or not JSON. */
  body: unknown;
  /** The scope the call needs, when the answer does not name one (a 403 still names it). */
  requiredScope: string | null;
  /** Message for a 404 without a server message. */
  notFound?: string;
  /** The identity lookup: any answer but 200 means the key is invalid (the interface says so). */
  anyNon200IsInvalidKey?: boolean;
  /** Attempts made, for a 5xx that persisted. */
  attempts?: number;
  /** Takes the caller's key out of the message: a server may echo the key (or a piece). */
  redact?: (text: string) => string;
  /** The X-Organization-Id the request carried and where it came from (null: none). */
  organization?: { id: string; from: string } | null;
  /** The base URL the request was made against (a 404's hint may be about it). */
  baseUrl?: string;
}

/** Where an organization id came from, in words. */
function organizationSource(from: string): string {
  if (from === "key") return "the key's own organization (from verify)";
  if (from === "the profile") return "the profile's organization";
  return from;
}

/** A 403 about the organization: what was sent, and what to do about it. */
function organizationRefusal(msg: string, sent: { id: string; from: string } | null | undefined) {
  if (sent === undefined) {
    return new MissingScopeError(
      msg,
      null,
      "Check the organization (--org / AGENT_SESSIONS_ORG): the key's owner must be a member of it.",
    );
  }
  if (sent === null) {
    return new MissingScopeError(
      `${msg} (no X-Organization-Id was sent)`,
      null,
      "Name the organization with --org (or AGENT_SESSIONS_ORG); the key's owner must be a member of it.",
    );
  }
  const hint =
    sent.from === "key"
      ? "The key's own organization was sent; give another with --org, or check the key (agent-sessions whoami)."
      : sent.from === "the profile"
        ? "Check the profile's organization (agent-sessions login --org ID to change it), or give --org."
        : `Check the organization (${sent.from}): the key's owner must be a member of it.`;
  return new MissingScopeError(
    `${msg} (sent X-Organization-Id ${sent.id}, ${organizationSource(sent.from)})`,
    null,
    hint,
  );
}

export function errorFromResponse(r: ErrorResponse): AgentSessionsError {
  const e = typedError(r);
  if (r.redact) e.message = r.redact(e.message);
  return e;
}

function typedError(r: ErrorResponse): AgentSessionsError {
  const { status, label } = r;
  const msg = r.body === undefined ? null : errorMessage(r.body);
  if (r.anyNon200IsInvalidKey) {
    const tail =
      status >= 500 && r.attempts !== undefined
        ? ` after ${r.attempts} attempts (the service may also be failing)`
        : "";
    return new InvalidKeyError(
      msg ??
        `The identity lookup answered HTTP ${status}${tail}; the interface treats any answer but 200 as an invalid or expired key`,
      status,
    );
  }
  if (status === 401) {
    return new InvalidKeyError(msg ?? `The service refused the key (HTTP 401 on ${label})`, status);
  }
  if (status === 403) {
    const named = requiredScopeOf(r.body);
    const scope = named ?? r.requiredScope;
    if (named === null && msg !== null && /\b(member|organi[sz]ation)\b/i.test(msg)) {
      // A 403 about the organization, not a scope: the documented other cause of 403.
      return organizationRefusal(msg, r.organization);
    }
    if (named === null && refusesRole(msg)) {
      // The key's role, not its scopes: a key with more scopes would be refused the same.
      return new MissingScopeError(
        forbiddenText(r.body, null, label, null),
        null,
        "Your role in the organization does not allow this (agent-sessions whoami shows it): ask an admin or owner.",
      );
    }
    return new MissingScopeError(forbiddenText(r.body, named, label, scope), scope);
  }
  if (status === 404) {
    return new NotFoundError(
      msg ?? r.notFound ?? `${label}: not found (HTTP 404)`,
      notFoundHint(msg) ?? baseUrlHint(r),
    );
  }
  const field = describeErrorBody(r.body).field;
  return new HttpError(
    msg ? `${label} failed (HTTP ${status}): ${msg}` : `${label} failed (HTTP ${status})`,
    status,
    hintFor(status, msg ?? "", field),
  );
}

/** A 403's words: the server's message, its code, and the scope it requires when named. */
function forbiddenText(
  body: unknown,
  named: string | null,
  label: string,
  scope: string | null,
): string {
  const d = describeErrorBody(body);
  if (d.message === null) {
    return `The key is not allowed to call ${label} (HTTP 403)${scope ? `; it needs ${scope}` : ""}`;
  }
  const extra: string[] = [];
  if (d.code && !d.message.includes(d.code)) extra.push(d.code);
  if (named !== null && !d.message.includes(named)) extra.push(`requires ${named}`);
  return extra.length > 0 ? `${d.message} (${extra.join(", ")})` : d.message;
}

/**
 * What to check after a 404 whose message names what was missing, when that is not the
 * session (a repository to clone, a branch): undefined keeps the session-id hint.
 */
export function notFoundHint(message: string | null): string | undefined {
  if (message === null) return undefined;
  if (/\brepo(sitory)?\b/i.test(message)) {
    return "Check the repository URL: the service does not know that repository (its message may list the ones it does).";
  }
  if (/\bbranch\b/i.test(message))
    return "Check the branch name (agent-sessions sessions shows each session's).";
  return undefined;
}

/**
 * A 404 of a call that names no session (the list, the identity) says the base URL is wrong,
 * not a session id; one that ends in /api has it twice (the client adds /api itself).
 */
function baseUrlHint(r: ErrorResponse): string | undefined {
  const path = r.baseUrl === undefined ? "" : safePath(r.baseUrl);
  if (/\/api\/?$/.test(path)) {
    const root = (r.baseUrl as string).replace(/\/api\/?$/, "");
    return `The base URL ends in /api, which the client adds itself: use ${root} (--base-url or the profile's).`;
  }
  if (r.notFound === undefined) {
    return "Check the base URL: it should be the service's root (or its /api/cloud), where the client finds /api/… itself.";
  }
  return undefined;
}

function safePath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return "";
  }
}

/** What to do next, from the status and what the server said. */
export function hintFor(status: number, message: string, field: string | null): string {
  const m = message.toLowerCase();
  // The documented refusal of an action on a session that is not running (git on a paused
  // session: 400 "Session is not running (state: paused)").
  const notRunning = /not running \(state: ([a-z_-]{1,32})\)/.exec(m);
  if (notRunning && status >= 400 && status < 500) {
    const state = notRunning[1] as string;
    return state === "paused"
      ? "The session is paused: resume it first (the service resumes it on its own when a prompt arrives)."
      : `The session is ${state}, not running: wait until it runs (agent-sessions sessions shows its state).`;
  }
  if (/prompt is running/.test(m) && status >= 400 && status < 500) {
    return "A prompt is running in the session: wait for it to finish, or cancel it first (agent-sessions cancel <session>).";
  }
  const onlyIn =
    /can only (pause|resume) (running|paused) sessions \(state: ([a-z_-]{1,32})\)/.exec(m);
  if (onlyIn && status >= 400 && status < 500) {
    return `The session is ${onlyIn[3]}: it can only be ${onlyIn[1] === "pause" ? "paused while running" : "resumed while paused"} (agent-sessions sessions shows its state).`;
  }
  if (/provision/.test(m) && status === 503) {
    return "The session is still being provisioned: try again in a little while.";
  }
  if (status === 409) {
    if (/already (resolved|approved|rejected)/.test(m))
      return "Someone decided first; agent-sessions approvals lists what is still pending.";
    if (/clone/.test(m) && /first|no (clone|repo)|not cloned/.test(m))
      return "Clone a repository into the session first: agent-sessions git clone <session> <repo_url>.";
    if (/push/.test(m) && /first|not on|not pushed/.test(m))
      return "Push the branch first: agent-sessions git push <session>.";
    if (/pull request/.test(m) && /already open/.test(m))
      return "That pull request is open already: push to its branch to add to it, or open the one the message names.";
    if (/already (exists|open)/.test(m))
      return "It exists already: choose another name, or use the existing one.";
    if (/rejected|non-fast-forward|fetch first/.test(m))
      return "The remote has commits the session lacks: push to another branch (--branch).";
    if (/detached/.test(m)) return "Name the branch explicitly (--branch / --head).";
    return "The session's current state does not allow this; check it (agent-sessions sessions) and try again.";
  }
  if (status === 410)
    return "The session is gone (destroyed or expired); pick another one (agent-sessions sessions).";
  if (status === 400 || status === 422) {
    if (field) return `Check the value given for ${field}.`;
    return "The service rejected the request's arguments; its message above says which.";
  }
  if (status === 405)
    return "The service does not offer this call at this path; check the base URL points at it.";
  if (status === 413) return "The request is too large for the service; send less.";
  if (status >= 500) return "The service failed; try again later.";
  return "Check the request's arguments.";
}
