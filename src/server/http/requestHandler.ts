import type { IncomingMessage, ServerResponse } from "node:http";
import {
  CloneRequestSchema,
  GitOperationRequestSchema,
  type LifecycleAction,
  REPOS_PER_PAGE_MAX,
} from "../../protocol/index.js";
import { flatAnswer, flatFailure, flatToRequest, isFlatGitBody } from "../git/flatGit.js";
import { bearerToken, identityBody, verifyBody } from "../keys.js";
import { historyBody } from "../sessionLog.js";
import { isSessionState, type ListFilter, SESSION_STATES } from "../sessionTable.js";
import { advanceClock, CLOCK_CONTROL_PATH } from "./clockControl.js";
import { HttpError } from "./httpError.js";
import { LAUNCH_ROUTES } from "./launchRoutes.js";
import { readJsonBody, sendJson } from "./respond.js";
import { isReviewOperation, REVIEW_ROUTES, reviewOperation } from "./reviewRoutes.js";
import {
  authorize,
  type Call,
  type HandlerContext,
  invalidBody,
  type Route,
  SEGMENT,
  sessionParam,
} from "./routeKit.js";
import { TERMINAL_ROUTES } from "./terminalRoutes.js";

const ROUTES: Route[] = [
  { method: "GET", pattern: /^\/api\/cloud\/auth\/verify$/, handle: verify },
  { method: "GET", pattern: /^\/api\/v1\/me$/, handle: me },
  { method: "GET", pattern: /^\/api\/sessions$/, handle: listSessions },
  { method: "GET", pattern: new RegExp(`^/api/sessions/${SEGMENT}$`), handle: getSession },
  { method: "GET", pattern: new RegExp(`^/api/cloud/sessions/${SEGMENT}/events$`), handle: events },
  { method: "GET", pattern: new RegExp(`^/api/sessions/${SEGMENT}/history$`), handle: history },
  {
    method: "GET",
    pattern: new RegExp(`^/api/cloud/sessions/${SEGMENT}/history$`),
    handle: history,
  },
  { method: "GET", pattern: new RegExp(`^/api/sessions/${SEGMENT}/events$`), handle: events },
  // The interface's git paths and the documented ones serve the same calls.
  { method: "POST", pattern: new RegExp(`^/api/sessions/${SEGMENT}/git/clone$`), handle: gitClone },
  {
    method: "POST",
    pattern: new RegExp(`^/api/sessions/${SEGMENT}/clone-repo$`),
    handle: gitClone,
  },
  {
    method: "POST",
    pattern: new RegExp(`^/api/sessions/${SEGMENT}/git/operation$`),
    handle: gitOperation,
  },
  // The documented `/git` also takes its flat body and then answers flat fields (flatGit.ts).
  { method: "POST", pattern: new RegExp(`^/api/sessions/${SEGMENT}/git$`), handle: gitDocumented },
  { method: "POST", pattern: new RegExp(`^/api/sessions/${SEGMENT}/prompt$`), handle: prompt },
  {
    method: "POST",
    pattern: new RegExp(`^/api/sessions/${SEGMENT}/prompt/cancel$`),
    handle: cancelPrompt,
  },
  { method: "GET", pattern: new RegExp(`^/api/sessions/${SEGMENT}/approvals$`), handle: approvals },
  {
    method: "POST",
    pattern: new RegExp(`^/api/sessions/${SEGMENT}/approvals/${SEGMENT}/resolve$`),
    handle: resolveApproval,
  },
  ...(["pause", "resume", "start"] as const).map((action) => ({
    method: "POST",
    pattern: new RegExp(`^/api/sessions/${SEGMENT}/${action}$`),
    handle: (ctx: HandlerContext, call: Call) => lifecycle(ctx, call, action),
  })),
  // Integrations (integrations.ts). The issue tracker's and chat tool's are also served under
  // /api/cloud/v1/… (mountedPath).
  { method: "GET", pattern: /^\/api\/github-app\/installations$/, handle: installations },
  { method: "GET", pattern: /^\/api\/github-app\/repos$/, handle: repos },
  {
    method: "GET",
    pattern: new RegExp(`^/api/github-app/installations/${SEGMENT}/repos$`),
    handle: installationRepos,
  },
  { method: "GET", pattern: /^\/api\/github-app\/user-token-status$/, handle: userToken },
  { method: "GET", pattern: /^\/api\/v1\/linear\/integrations$/, handle: linearList },
  { method: "POST", pattern: /^\/api\/v1\/linear\/integration$/, handle: linearUpdate },
  { method: "GET", pattern: /^\/api\/v1\/slack\/integration$/, handle: slack },
  ...REVIEW_ROUTES,
  ...LAUNCH_ROUTES,
  ...TERMINAL_ROUTES,
];

function verify(ctx: HandlerContext, call: Call): void {
  const record = authorize(ctx, call, "verify");
  sendJson(call.res, 200, verifyBody(record));
}

function me(ctx: HandlerContext, call: Call): void {
  const auth = ctx.keys.authenticate(call.token, Date.now());
  if (!auth.ok) {
    // The identity lookup has its own error shape: {detail: {error}}.
    throw new HttpError(
      401,
      { detail: { error: auth.message } },
      { "www-authenticate": 'Bearer realm="agent-sessions"' },
    );
  }
  sendJson(call.res, 200, identityBody(auth.record));
}

const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 20;
const FILTERS = ["agent", "template_id", "visibility"] as const;

/** A non-negative integer query value, or a documented validation error naming the field. */
function intParam(call: Call, name: string, min: number, max: number, dflt: number): number {
  const raw = call.query.get(name);
  if (raw === null || raw === "") return dflt;
  const n = /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= min && n <= max)) {
    throw HttpError.invalid(name, `${name} must be an integer from ${min} to ${max}`);
  }
  return n;
}

/**
 * A boolean query value as the real service's framework reads one (true/false, 1/0, yes/no,
 * on/off, any case; absent or empty is false), else the documented validation error.
 */
function boolParam(call: Call, name: string): boolean {
  const raw = call.query.get(name);
  if (raw === null || raw === "") return false;
  const v = raw.toLowerCase();
  if (["true", "1", "yes", "on"].includes(v)) return true;
  if (["false", "0", "no", "off"].includes(v)) return false;
  throw HttpError.invalid(name, `${name} must be a boolean (true or false)`);
}

function listSessions(ctx: HandlerContext, call: Call): void {
  authorize(ctx, call, "listSessions");
  const limit = intParam(call, "limit", 1, MAX_LIMIT, DEFAULT_LIMIT);
  const offset = intParam(call, "offset", 0, 1e9, 0);
  const filter: ListFilter = {};
  const state = call.query.get("state");
  if (state !== null && state !== "") {
    if (!isSessionState(state)) {
      throw HttpError.invalid("state", `state must be one of ${SESSION_STATES.join(", ")}`);
    }
    filter.state = state;
  }
  for (const name of FILTERS) {
    const v = call.query.get(name);
    if (v !== null && v !== "") filter[name] = v;
  }
  filter.includeDestroyed = boolParam(call, "include_destroyed");
  sendJson(call.res, 200, ctx.store.list(limit, offset, filter));
}

function getSession(ctx: HandlerContext, call: Call): void {
  authorize(ctx, call, "getSession");
  sendJson(call.res, 200, { ...sessionParam(ctx, call).record });
}

function events(ctx: HandlerContext, call: Call): void {
  authorize(ctx, call, "events");
  const s = sessionParam(ctx, call);
  const header = call.req.headers["last-event-id"];
  const raw = Array.isArray(header) ? header[0] : header;
  const lastId = raw !== undefined && /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : null;
  ctx.streams.open(call.res, s.record.id, lastId, ctx.historyOnOpen);
}

/** The documented history: the session's kept events as log entries (see sessionLog.ts). */
function history(ctx: HandlerContext, call: Call): void {
  authorize(ctx, call, "sessionHistory");
  const s = sessionParam(ctx, call);
  sendJson(call.res, 200, historyBody(s.history.last(s.history.size)));
}

async function gitClone(ctx: HandlerContext, call: Call): Promise<void> {
  authorize(ctx, call, "gitClone");
  const s = sessionParam(ctx, call);
  const parsed = CloneRequestSchema.safeParse(await readJsonBody(call.req));
  if (!parsed.success) throw invalidBody(parsed.error);
  sendJson(call.res, 200, await ctx.git.clone(s.record.id, parsed.data));
}

async function gitOperation(ctx: HandlerContext, call: Call): Promise<void> {
  authorize(ctx, call, "gitOperation");
  const s = sessionParam(ctx, call);
  await runGitOperation(ctx, call, s.record.id, await readJsonBody(call.req));
}

async function gitDocumented(ctx: HandlerContext, call: Call): Promise<void> {
  authorize(ctx, call, "gitOperation");
  const s = sessionParam(ctx, call);
  const body = await readJsonBody(call.req);
  if (!isFlatGitBody(body)) return runGitOperation(ctx, call, s.record.id, body);
  const flatOp = String(body.operation);
  // The documented refusal of git on a session that is not running.
  if (s.record.state === "paused") {
    throw HttpError.detail(400, "Session is not running (state: paused)");
  }
  const req = flatToRequest(body);
  if (typeof req === "string") return sendJson(call.res, 200, flatFailure(flatOp, req));
  try {
    sendJson(call.res, 200, flatAnswer(flatOp, await ctx.git.operate(s.record.id, req)));
  } catch (e) {
    if (!(e instanceof HttpError) || e.status >= 500) throw e;
    sendJson(call.res, 200, flatFailure(flatOp, e.message));
  }
}

async function runGitOperation(
  ctx: HandlerContext,
  call: Call,
  sessionId: string,
  body: unknown,
): Promise<void> {
  const op = (body as { operation?: unknown } | null)?.operation;
  const s = ctx.store.get(sessionId);
  if (s && isReviewOperation(op)) return reviewOperation(ctx, call.res, s, op);
  if (typeof op === "string" && !["push", "branch", "create-pr"].includes(op)) {
    throw HttpError.invalid(
      "operation",
      `operation ${op.slice(0, 40)} is not offered by this service (push, branch, create-pr, status, diff, log)`,
      422,
    );
  }
  const parsed = GitOperationRequestSchema.safeParse(body);
  if (!parsed.success) throw invalidBody(parsed.error);
  sendJson(call.res, 200, await ctx.git.operate(sessionId, parsed.data));
}

async function prompt(ctx: HandlerContext, call: Call): Promise<void> {
  authorize(ctx, call, "sendPrompt");
  const s = sessionParam(ctx, call);
  const body = (await readJsonBody(call.req)) as { prompt?: unknown } | undefined;
  if (typeof body?.prompt !== "string") {
    throw HttpError.invalid("prompt", "prompt is required and must be a string", 422);
  }
  ctx.actions.prompt(s, body.prompt, call.res);
}

function cancelPrompt(ctx: HandlerContext, call: Call): void {
  authorize(ctx, call, "cancelPrompt");
  const s = sessionParam(ctx, call);
  sendJson(call.res, 200, ctx.actions.cancel(s.record.id));
}

function approvals(ctx: HandlerContext, call: Call): void {
  authorize(ctx, call, "listApprovals");
  const s = sessionParam(ctx, call);
  sendJson(call.res, 200, ctx.actions.approvals(s.record.id));
}

async function resolveApproval(ctx: HandlerContext, call: Call): Promise<void> {
  const key = authorize(ctx, call, "resolveApproval");
  const s = sessionParam(ctx, call);
  const body = (await readJsonBody(call.req)) as { action?: unknown; note?: unknown } | undefined;
  const action = body?.action;
  if (action !== "approve" && action !== "reject") {
    throw HttpError.invalid("action", "action must be approve or reject", 422);
  }
  const note = body?.note;
  if (note !== undefined && note !== null && typeof note !== "string") {
    throw HttpError.invalid("note", "note must be a string", 422);
  }
  if (typeof note === "string" && note.length > 512) {
    throw HttpError.invalid("note", "note must be at most 512 characters", 422);
  }
  let approvalId: string;
  try {
    approvalId = decodeURIComponent(call.params[1] ?? "");
  } catch {
    approvalId = call.params[1] ?? "";
  }
  sendJson(
    call.res,
    200,
    ctx.actions.resolve(s, approvalId, key, action, typeof note === "string" ? note : null),
  );
}

function lifecycle(ctx: HandlerContext, call: Call, action: LifecycleAction): void {
  authorize(ctx, call, action);
  const s = sessionParam(ctx, call);
  sendJson(call.res, 200, ctx.actions.lifecycle(s, action));
}

function installations(ctx: HandlerContext, call: Call): void {
  const key = authorize(ctx, call, "githubInstallations");
  sendJson(call.res, 200, ctx.integrations.installationsBody(key));
}

function repos(ctx: HandlerContext, call: Call): void {
  const key = authorize(ctx, call, "githubRepos");
  const perPage = intParam(call, "per_page", 1, REPOS_PER_PAGE_MAX, REPOS_PER_PAGE_MAX);
  sendJson(call.res, 200, ctx.integrations.reposBody(key, perPage));
}

function installationRepos(ctx: HandlerContext, call: Call): void {
  const key = authorize(ctx, call, "githubRepos");
  const page = intParam(call, "page", 1, 1e6, 1);
  const perPage = intParam(call, "per_page", 1, REPOS_PER_PAGE_MAX, 30);
  const id = decodeURIComponent(call.params[0] ?? "");
  const body = ctx.integrations.installationReposBody(key, id, page, perPage);
  if (!body) throw HttpError.detail(404, `Installation ${id.slice(0, 100)} not found`);
  sendJson(call.res, 200, body);
}

function userToken(ctx: HandlerContext, call: Call): void {
  const key = authorize(ctx, call, "githubUserToken");
  sendJson(call.res, 200, ctx.integrations.userTokenBody(key));
}

function linearList(ctx: HandlerContext, call: Call): void {
  const key = authorize(ctx, call, "linearIntegrations");
  const body = ctx.integrations.linearListBody(key);
  if (!body) throw HttpError.detail(404, "Linear integration not found");
  sendJson(call.res, 200, body);
}

async function linearUpdate(ctx: HandlerContext, call: Call): Promise<void> {
  const key = authorize(ctx, call, "updateLinearIntegration");
  const r = ctx.integrations.updateLinear(key, await readJsonBody(call.req));
  if (r.ok) return sendJson(call.res, 200, r.body);
  if (r.field) throw HttpError.invalid(r.field, r.detail, r.status);
  throw HttpError.detail(r.status, r.detail);
}

function slack(ctx: HandlerContext, call: Call): void {
  const key = authorize(ctx, call, "slackIntegration");
  const body = ctx.integrations.slackBody(key);
  if (!body) throw HttpError.detail(404, "Slack integration not found");
  sendJson(call.res, 200, body);
}

const INJECTED_DETAIL: Record<number, string> = {
  401: "Invalid API key (injected fault)",
  403: "Forbidden (injected fault)",
  404: "Not found (injected fault)",
  429: "Rate limit exceeded (injected fault)",
};

/** The web dashboard's paths on the real service: a bearer key gets 401 there. */
const DASHBOARD = /^\/api\/(?:sessions|github-app)(?=\/|$)/;
const V1_INTEGRATION = /^\/api\/v1\/(?:linear|slack)(?=\/|$)/;
const CLOUD_V1_INTEGRATION = /^\/api\/cloud\/v1\/(?:linear|slack)(?=\/|$)/;
/** Routes whose own path is under /api/cloud in either mount (verify, the event stream, history). */
const NATIVE_CLOUD = /^\/api\/cloud\/(?:auth\/verify$|sessions\/[^/]+\/(?:events|history)$)/;

/**
 * The path the routes see. In the cloud mount the API is served only under /api/cloud/…
 * (routed as the interface's /api/… form), as the real service serves it: /api/sessions… and
 * /api/github-app/… are the web dashboard's (a bearer key gets 401 there, whatever the key),
 * and the issue tracker's and chat tool's /api/v1/… form is not served.
 */
export function mountedPath(mount: "interface" | "cloud", path: string): string {
  // The issue tracker and chat tool: both documented forms in the interface mount.
  if (CLOUD_V1_INTEGRATION.test(path)) return `/api${path.slice("/api/cloud".length)}`;
  if (mount === "interface" || NATIVE_CLOUD.test(path)) return path;
  if (V1_INTEGRATION.test(path)) throw HttpError.detail(404, "Not Found");
  if (DASHBOARD.test(path)) {
    throw new HttpError(401, { detail: "Not authenticated" }, { "www-authenticate": "Cookie" });
  }
  if (path.startsWith("/api/cloud/")) return `/api${path.slice("/api/cloud".length)}`;
  return path;
}

/** Rate limit, injected faults, then routing; every answer carries the rate-limit headers. */
export async function handleRequest(
  ctx: HandlerContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const started = Date.now();
  if (ctx.manualClock && (req.url ?? "").split("?")[0] === CLOCK_CONTROL_PATH) {
    await advanceClock(ctx.manualClock, req, res);
    return;
  }
  ctx.counts.requests++;
  ctx.counts.firstAt ??= started;
  const rawUrl = req.url ?? "/";
  const q = rawUrl.indexOf("?");
  const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
  const query = new URLSearchParams(q === -1 ? "" : rawUrl.slice(q + 1));
  const token = bearerToken(req.headers.authorization);
  const record = ctx.keys.lookup(token);
  if (ctx.log) {
    const log = ctx.log;
    res.on("close", () => {
      const who = record ? ` key=${record.name}` : "";
      log(`${req.method} ${path} ${res.statusCode} ${Date.now() - started}ms${who}`);
    });
  }
  try {
    if (ctx.limiter) {
      const bucket = record ? `key:${record.keyId}` : `addr:${req.socket.remoteAddress ?? "?"}`;
      const d = ctx.limiter.hit(bucket, started);
      res.setHeader("X-RateLimit-Limit", String(d.limit));
      res.setHeader("X-RateLimit-Remaining", String(d.remaining));
      // Unix seconds, as documented (not a delta).
      res.setHeader("X-RateLimit-Reset", String(Math.ceil(started / 1000) + d.resetSeconds));
      if (!d.allowed) {
        throw new HttpError(
          429,
          {
            detail: `Rate limit exceeded: ${d.limit} requests per ${Math.round(ctx.limiter.windowMs / 1000)} s for this key; retry in ${d.retryAfterSeconds} s`,
          },
          { "retry-after": String(d.retryAfterSeconds) },
        );
      }
    }
    const injected = ctx.faults.takeInjectedStatus(path);
    if (injected) {
      if (injected.status === 429) res.setHeader("X-RateLimit-Remaining", "0");
      const headers: Record<string, string> = {};
      if (injected.retryAfter !== null) headers["retry-after"] = injected.retryAfter;
      const detail = INJECTED_DETAIL[injected.status] ?? `Injected fault: HTTP ${injected.status}`;
      throw new HttpError(injected.status, { detail }, headers);
    }
    const routed = mountedPath(ctx.mount ?? "interface", path);
    let allowed: string[] = [];
    for (const route of ROUTES) {
      const m = route.pattern.exec(routed);
      if (!m) continue;
      if (route.method !== req.method) {
        allowed.push(route.method);
        continue;
      }
      await route.handle(ctx, { req, res, path, query, token, params: m.slice(1) });
      return;
    }
    allowed = [...new Set(allowed)];
    if (allowed.length > 0) {
      throw new HttpError(
        405,
        { detail: `Method ${req.method} not allowed on ${path}` },
        { allow: allowed.join(", ") },
      );
    }
    throw HttpError.detail(404, `Not found: ${req.method} ${path.slice(0, 200)}`);
  } catch (e) {
    if (e instanceof HttpError) {
      if (e.status === 429) ctx.counts.rateLimited++;
      sendJson(res, e.status, e.body, e.headers);
    } else {
      sendJson(res, 500, { detail: `Internal error: ${(e as Error).message}` });
    }
  }
}
