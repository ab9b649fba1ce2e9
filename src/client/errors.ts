/**
 * Typed errors a user can act on. Each carries the stable exit code the headless commands use
 * (documented in the README) and a one-line hint saying what to do next. Messages never
 * contain the API key.
 */
import { cutText, sanitizeLine } from "../text/sanitize.js";
import { type NetworkFailure, networkFailureOfKind } from "./networkFailure.js";

export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  invalidKey: 3,
  missingScope: 4,
  rateLimited: 5,
  network: 6,
  /** The output is incomplete: `sessions --all` stopped at a repeated cursor or its page cap. */
  incomplete: 7,
  /** `prompt`: the agent's answer ended with an error item. */
  promptError: 8,
  /** `prompt`: the prompt was cancelled (Ctrl-C, or the service said so). */
  promptCancelled: 9,
  /** `prompt`: a prompt is already running in the session (any form: protocol/prompt.ts isAlreadyRunning). */
  promptBusy: 10,
  /** `apply`: the session's patch does not apply to the checkout (nothing was changed). */
  applyConflict: 11,
  /** `pause`/`resume`: the session's state does not allow it (protocol/states.ts stateRefusal). */
  wrongState: 12,
  /** `attach`: another client took the session's terminal (WebSocket close 4009). */
  terminalTaken: 20,
  /** `attach`: the service closed the terminal after its idle timeout without input. */
  terminalIdle: 21,
  /** `attach`: the session's sandbox expired while attached. */
  sandboxExpired: 22,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Longest error message kept: a server's detail is quoted, not a 32 MiB body. */
export const MAX_ERROR_MESSAGE_CHARS = 2000;

/**
 * An error message is a single-line place, and it often quotes the server (a 403's detail, a
 * content type, a stop reason): whatever shape of error is built, its text is sanitized and
 * folded here, where it becomes an error.
 */
export function errorText(text: string): string {
  return cutText(sanitizeLine(text), MAX_ERROR_MESSAGE_CHARS);
}

export abstract class AgentSessionsError extends Error {
  constructor(message: string) {
    super(errorText(message));
  }
  abstract readonly code: string;
  abstract readonly exitCode: ExitCode;
  /** What the user can do next. */
  abstract readonly hint: string;
}

/** The key is invalid or expired (or /api/v1/me answered anything but 200). */
export class InvalidKeyError extends AgentSessionsError {
  readonly code = "invalid_key";
  readonly exitCode = EXIT.invalidKey;
  // Not "see whoami": it asks the service with the same key and fails the same way.
  readonly hint =
    "Log in again with a valid key (agent-sessions login), or set AGENT_SESSIONS_API_KEY to one.";
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "InvalidKeyError";
  }
}

/** 403: the key lacks the scope the call needs (or access to the organization asked for). */
export class MissingScopeError extends AgentSessionsError {
  readonly code = "missing_scope";
  readonly exitCode = EXIT.missingScope;
  readonly hint: string;
  /** The scope the call needs (sanitized: a server may name it). */
  readonly requiredScope: string | null;
  constructor(message: string, requiredScope: string | null, hint?: string) {
    super(message);
    this.name = "MissingScopeError";
    this.requiredScope = requiredScope === null ? null : cutText(sanitizeLine(requiredScope), 200);
    this.hint = errorText(
      hint ??
        (this.requiredScope
          ? `Use a key whose effective scopes include ${this.requiredScope} (see agent-sessions whoami).`
          : "Use a key with the scope this call needs (see agent-sessions whoami)."),
    );
  }
}

export class NotFoundError extends AgentSessionsError {
  readonly code = "not_found";
  readonly exitCode = EXIT.error;
  readonly hint: string;
  /** `hint`: what to check when the server said what it did not find (else the session id). */
  constructor(message: string, hint?: string) {
    super(message);
    this.name = "NotFoundError";
    this.hint =
      hint ?? "Check the session id (agent-sessions sessions lists them) and the base URL.";
  }
}

/** 429 still after every retry. */
export class RateLimitedError extends AgentSessionsError {
  readonly code = "rate_limited";
  readonly exitCode = EXIT.rateLimited;
  readonly hint: string;
  constructor(
    message: string,
    readonly attempts: number,
    readonly retryAfterMs: number | null,
  ) {
    super(message);
    this.name = "RateLimitedError";
    this.hint =
      retryAfterMs !== null
        ? `Wait about ${Math.ceil(retryAfterMs / 1000)} s and try again; limits are per key.`
        : "Wait a little and try again; limits are per key.";
  }
}

/** Connection refused, reset, DNS, TLS or timeout: what happened is in `failure`. */
export class NetworkError extends AgentSessionsError {
  readonly code = "network";
  readonly exitCode = EXIT.network;
  readonly hint: string;
  readonly failure: NetworkFailure;
  constructor(
    message: string,
    failure: NetworkFailure = networkFailureOfKind("other", "network error"),
  ) {
    super(message);
    this.name = "NetworkError";
    this.failure = failure;
    this.hint = failure.hint;
  }
  get timedOut(): boolean {
    return this.failure.kind === "timed_out";
  }
}

/** The server answered with something that is not what the interface promises. */
export class MalformedResponseError extends AgentSessionsError {
  readonly code = "malformed_response";
  readonly exitCode = EXIT.error;
  readonly hint = "The service sent an unexpected response; check the base URL points at it.";
  constructor(message: string) {
    super(message);
    this.name = "MalformedResponseError";
  }
}

/** Any other non-success status (4xx/5xx after retries). */
export class HttpError extends AgentSessionsError {
  readonly code = "http_error";
  readonly exitCode = EXIT.error;
  readonly hint: string;
  constructor(
    message: string,
    readonly status: number,
    hint?: string,
  ) {
    super(message);
    this.name = "HttpError";
    // A hint may name a field the server reported: the same one-line rule as the message.
    this.hint = errorText(
      hint ??
        (status >= 500 ? "The service failed; try again later." : "Check the request's arguments."),
    );
  }
}

/** A lifecycle action the session's state does not allow (resume on a running one): exit 12. */
export class WrongStateError extends AgentSessionsError {
  readonly code = "wrong_state";
  readonly exitCode = EXIT.wrongState;
  readonly hint: string;
  constructor(message: string, hint: string) {
    super(message);
    this.name = "WrongStateError";
    this.hint = hint;
  }
}

/** Input refused before anything was sent (an empty prompt, a note too long): exit 2. */
export class UsageError extends AgentSessionsError {
  readonly code = "usage";
  readonly exitCode = EXIT.usage;
  readonly hint: string;
  constructor(message: string, hint = "Check the arguments (--help shows them).") {
    super(message);
    this.name = "UsageError";
    this.hint = hint;
  }
}

/** The user cancelled (Ctrl-C, closed pane) while a request or wait was in progress. */
export class CancelledError extends AgentSessionsError {
  readonly code = "cancelled";
  readonly exitCode = EXIT.error;
  readonly hint = "";
  constructor(message = "cancelled") {
    super(message);
    this.name = "CancelledError";
  }
}
