/**
 * What every route module of the reference service shares: the handler context, a call, a
 * route, and the checks a handler makes first (the key and its scope, the session named in the
 * path, a body that fails its schema). requestHandler.ts and the routes modules it spreads
 * (launch, review, terminal) import it; it imports none of them.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { hasScope, REQUIRED_SCOPES } from "../../protocol/index.js";
import type * as z from "../../protocol/schema.js";
import type { ManualClock } from "../clock.js";
import type { EventStreams } from "../eventStreams.js";
import type { Faults } from "../faults.js";
import type { GitWorkspaces } from "../git/gitWorkspaces.js";
import type { IntegrationDemo } from "../integrations.js";
import type { KeyRecord, KeyRing } from "../keys.js";
import type { RateLimiter } from "../rateLimiter.js";
import type { SessionActions } from "../sessionActions.js";
import type { SessionTable } from "../sessionTable.js";
import type { Terminals } from "../terminal.js";
import { HttpError } from "./httpError.js";

export interface HandlerContext {
  keys: KeyRing;
  limiter: RateLimiter | null;
  faults: Faults;
  store: SessionTable;
  streams: EventStreams;
  git: GitWorkspaces;
  /** Prompts, approvals and the lifecycle (sessionActions.ts). */
  actions: SessionActions;
  /** The code hosting app, user tokens, issue tracker and chat tool (integrations.ts). */
  integrations: IntegrationDemo;
  /** Events a new subscriber is sent before live ones (default none, as the real service). */
  historyOnOpen: number;
  log?: (line: string) => void;
  /** Counted as requests come in (read by ReferenceServer.requestCounts). */
  counts: RequestCounts;
  /**
   * Where session routes live: "interface" (default) under /api/sessions…; "cloud" only under
   * /api/cloud/sessions…, as the real service serves them, with /api/sessions… answering a
   * bearer key 401 like its web dashboard does.
   */
  mount?: "interface" | "cloud";
  /** The simulator's manual clock, stepped at CLOCK_CONTROL_PATH; null on real time. */
  manualClock?: ManualClock | null;
  /** Launches an organization (or a personal key's user) may make an hour; default 30. */
  launchesPerHour?: number;
  /** Session terminals and their WebSocket tokens (src/server/terminal.ts). */
  terminals?: Terminals;
}

/** Requests the service has had, and the 429s it answered (the limiter's and injected ones). */
export interface RequestCounts {
  requests: number;
  rateLimited: number;
  /** When the first request came in (ms since epoch), or null. */
  firstAt: number | null;
}

export interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  query: URLSearchParams;
  token: string | null;
  params: string[];
}

export type Operation = keyof typeof REQUIRED_SCOPES;

export interface Route {
  method: string;
  pattern: RegExp;
  handle: (ctx: HandlerContext, call: Call) => Promise<void> | void;
}

export const SEGMENT = "([^/]+)";

export function unauthorized(message: string): HttpError {
  return new HttpError(
    401,
    { detail: message },
    { "www-authenticate": 'Bearer realm="agent-sessions"' },
  );
}

/**
 * The key of an authenticated call that holds the scope the operation needs, and is a member
 * of the organization X-Organization-Id names (when the header is sent).
 */
export function authorize(ctx: HandlerContext, call: Call, op: Operation): KeyRecord {
  const auth = ctx.keys.authenticate(call.token, Date.now());
  if (!auth.ok) throw unauthorized(auth.message);
  const needed = REQUIRED_SCOPES[op];
  if (!hasScope(auth.effective, needed)) {
    // The real service's documented wording.
    throw HttpError.detail(403, `Insufficient scope: requires ${needed}`);
  }
  const org = organizationHeader(call);
  if (org !== null && org !== auth.record.organizationId) {
    throw HttpError.detail(
      403,
      auth.record.organizationId === null
        ? `This key's user is not a member of organization ${org.slice(0, 100)}`
        : `Organization mismatch: the key belongs to ${auth.record.organizationId}, not ${org.slice(0, 100)}`,
    );
  }
  return auth.record;
}

function organizationHeader(call: Call): string | null {
  const h = call.req.headers["x-organization-id"];
  const v = Array.isArray(h) ? h[0] : h;
  return v === undefined || v.trim() === "" ? null : v.trim();
}

export function sessionParam(ctx: HandlerContext, call: Call) {
  let id: string;
  try {
    id = decodeURIComponent(call.params[0] ?? "");
  } catch {
    id = call.params[0] ?? "";
  }
  const s = ctx.store.get(id);
  if (!s) throw HttpError.detail(404, `Session ${id.slice(0, 100)} not found`);
  return s;
}

function zodMessage(error: z.SchemaError): string {
  return error.issues
    .map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
}

/** A body that fails its schema: the documented structured error, naming the first field. */
export function invalidBody(error: z.SchemaError, status = 400): HttpError {
  const first = error.issues[0];
  return HttpError.invalid(
    first ? first.path.join(".") || "body" : "body",
    zodMessage(error),
    status,
  );
}
