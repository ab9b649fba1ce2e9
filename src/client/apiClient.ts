import { type GitAction, type GitResult, gitRequest, readGitAnswer } from "../protocol/git.js";
import { parseSessionHistory, type SessionHistory } from "../protocol/history.js";
import { errorMessage, PATHS, unsafeIdReason } from "../protocol/index.js";
import {
  type ApiKeyInfo,
  ApiKeyInfoSchema,
  type Identity,
  IdentitySchema,
  type PageToken,
  parseSessionPage,
  type Session,
  type SessionPage,
  SessionSchema,
} from "../protocol/resources.js";
import * as z from "../protocol/schema.js";
import { REQUIRED_SCOPES } from "../protocol/scopes.js";
import {
  AgentSessionsError,
  HttpError,
  InvalidKeyError,
  MalformedResponseError,
  NotFoundError,
} from "./errors.js";
import { DEFAULT_MAX_PAGES } from "./paging.js";
import type { RateLimitTracker } from "./rateLimit.js";
import type { RequestBudget } from "./requestBudget.js";
import { errorFromResponse } from "./responseError.js";
import { isSessionRoute } from "./routes.js";
import { type HttpAnswer, Transport, type TransportOptions, tryJson } from "./transport.js";

/** The connection and the transport's settings (see TransportOptions), or a transport to share. */
export type ApiClientOptions = TransportOptions & {
  /** A transport to go through (its connection and settings win over the other options). */
  transport?: Transport;
};

export interface ListSessionsParams {
  limit?: number;
  state?: string;
  /** Documented filters of the real service; sent only when given. */
  agent?: string;
  templateId?: string;
  visibility?: string;
  /**
   * List destroyed and error sessions too: the documented `include_destroyed=true` (the real
   * service leaves them out otherwise). Sent only when true.
   */
  includeDestroyed?: boolean;
  /** Where the page starts: a cursor or offset from the previous page (SessionPage.next). */
  page?: PageToken;
  /** Further query parameters (filter names are "not shown" by the interface). */
  filters?: Record<string, string>;
}

export interface SessionPagesParams extends Omit<ListSessionsParams, "page"> {
  /** Stop after this many pages whatever the server says. Default 1000. */
  maxPages?: number;
}

/** How a walk over every page ended. */
export type PagingEnd =
  | { complete: true; pages: number }
  /**
   * Stopped before the last page; the reason says why (a repeated cursor, an offset that does
   * not move, the same page again, more promised without a way to fetch it, the page cap).
   */
  | { complete: false; pages: number; reason: string };

type CallName = keyof typeof REQUIRED_SCOPES;

interface Call<T> {
  name: CallName;
  method: "GET" | "POST";
  path: string;
  query?: URLSearchParams;
  body?: unknown;
  parse: (json: unknown) => T;
  /**
   * Instead of parse: any 2xx answer is handed over as it came (status, JSON or text), for
   * endpoints whose answer shape is open (git).
   */
  parseAny?: (status: number, body: unknown) => T;
  /** Tried once with the same request when the path answers 404 or 405. */
  fallbackPath?: string;
  /** The body sent to fallbackPath, when it differs from `body`. */
  fallbackBody?: unknown;
  /** /api/v1/me: the interface says any status other than 200 means the key is invalid. */
  anyNon200IsInvalidKey?: boolean;
  /** Message for a 404 without a server message. */
  notFound?: string;
}

/**
 * Typed calls to the Agent Sessions service. How a call travels (the budget, retries,
 * redirects, timeouts, proxies, network errors) is the transport's (transport.ts); this class
 * says what each call sends and how its answer is read.
 *
 * /api/v1/me: any answer but 200 is an InvalidKeyError, as the interface says, with two
 * exceptions decided here: 429 goes through the rate-limit retries (RateLimitedError when
 * they run out), and 5xx is retried like any GET first (InvalidKeyError naming the status
 * if it persists). A network failure is a NetworkError: no answer is no verdict on the key,
 * and a cross-origin redirect is the same HttpError as for any other call.
 */
export class ApiClient {
  /** Everything this client sends goes through it; streams of the same key share it. */
  readonly transport: Transport;

  constructor(opts: ApiClientOptions) {
    const { transport, ...rest } = opts;
    this.transport = transport ?? new Transport(rest);
  }

  get rateLimit(): RateLimitTracker {
    return this.transport.rateLimit;
  }

  /** Every attempt of every call draws from it (see requestBudget.ts). */
  get budget(): RequestBudget {
    return this.transport.budget;
  }

  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  /**
   * GET /api/cloud/auth/verify: the key's metadata. Its organization_id is remembered for
   * the key (routes.ts): with keyOrganization, later calls send it as X-Organization-Id.
   */
  verify(signal?: AbortSignal): Promise<ApiKeyInfo> {
    return this.#call(
      {
        name: "verify",
        method: "GET",
        path: PATHS.verify,
        parse: (json) => {
          const info = ApiKeyInfoSchema.parse(json);
          if (!info.valid) throw new InvalidKeyError("The service says the key is not valid", 200);
          this.transport.routes.keyVerifiedAs(info.organization_id ?? null);
          return info;
        },
      },
      signal,
    );
  }

  /** GET /api/v1/me: who the key acts as. */
  me(signal?: AbortSignal): Promise<Identity> {
    return this.#call(
      {
        name: "me",
        method: "GET",
        path: PATHS.me,
        parse: (json) => {
          const identity = IdentitySchema.parse(json);
          this.transport.routes.keyVerified = true;
          return identity;
        },
        anyNon200IsInvalidKey: true,
      },
      signal,
    );
  }

  /** GET /api/sessions: one page, from the start or from `p.page`. */
  listSessions(p: ListSessionsParams = {}, signal?: AbortSignal): Promise<SessionPage> {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(p.filters ?? {})) query.set(k, v);
    if (p.limit !== undefined) query.set("limit", String(p.limit));
    if (p.state !== undefined) query.set("state", p.state);
    if (p.agent !== undefined) query.set("agent", p.agent);
    if (p.templateId !== undefined) query.set("template_id", p.templateId);
    if (p.visibility !== undefined) query.set("visibility", p.visibility);
    if (p.includeDestroyed === true) query.set("include_destroyed", "true");
    const page = p.page;
    let offset = 0;
    if (page !== undefined && "cursor" in page) query.set("cursor", page.cursor);
    if (page !== undefined && "offset" in page) {
      offset = page.offset;
      query.set("offset", String(offset));
    }
    return this.#call(
      {
        name: "listSessions",
        method: "GET",
        path: PATHS.sessions,
        query,
        parse: (json) => parseSessionPage(json, { offset }),
      },
      signal,
    );
  }

  /**
   * Every page of GET /api/sessions until the server says there is no next one (cursor or
   * offset paging alike). Stops early after maxPages, when a cursor comes back that was given
   * before, when an offset does not move forward, or when a page holds only the sessions of
   * the page before (a server ignoring the offset): each would loop forever. The generator's
   * return value says whether the listing was complete, so a caller can say so instead of
   * presenting a cut list as whole. Only the current and the previous page's ids are held.
   */
  async *sessionPages(
    p: SessionPagesParams = {},
    signal?: AbortSignal,
  ): AsyncGenerator<SessionPage, PagingEnd, undefined> {
    const { maxPages = DEFAULT_MAX_PAGES, ...params } = p;
    const seen = new Set<string>();
    let page: PageToken | undefined;
    let offset = 0;
    let previousIds: ReadonlySet<string> = new Set();
    const cut = (pages: number, reason: string): PagingEnd => ({ complete: false, pages, reason });
    for (let n = 1; ; n++) {
      const got = await this.listSessions({ ...params, ...(page ? { page } : {}) }, signal);
      yield got;
      const ids = new Set<string>();
      for (const s of got.sessions) ids.add(s.session_id);
      let same = n > 1 && ids.size > 0;
      for (const id of ids) {
        if (!same) break;
        same = previousIds.has(id);
      }
      if (same) return cut(n, "the service sent the same page again");
      previousIds = ids;
      const next = got.next;
      if (next === null) {
        return got.hasMore
          ? cut(n, "the service says there are more sessions but gave no way to fetch them")
          : { complete: true, pages: n };
      }
      if ("cursor" in next) {
        if (seen.has(next.cursor)) {
          return cut(n, "the service repeated a page cursor it had already given");
        }
        seen.add(next.cursor);
      } else {
        if (next.offset <= offset) return cut(n, "the service's next offset does not move forward");
        if (got.total !== null && next.offset >= got.total) {
          return cut(
            n,
            `the service says there are more sessions past its own total of ${got.total}`,
          );
        }
        offset = next.offset;
      }
      if (n >= maxPages) return cut(n, `stopped at the limit of ${maxPages} pages`);
      page = next;
    }
  }

  /** GET /api/sessions/{id}. */
  async getSession(id: string, signal?: AbortSignal): Promise<Session> {
    return this.#call(
      {
        name: "getSession",
        method: "GET",
        path: idPath(id, PATHS.session),
        parse: (json) => SessionSchema.parse(unwrapSession(json)),
        notFound: `Session ${id} was not found`,
      },
      signal,
    );
  }

  /**
   * GET /api/sessions/{id}/history (the `/api/cloud` form on 404 or 405): the session's past
   * as the service logs it (see protocol/history.ts). Null when neither path is served (a
   * server without the endpoint: panes start live). Entries come back unread; the answer's
   * size is bounded by the transport's body limit.
   */
  async sessionHistory(id: string, signal?: AbortSignal): Promise<SessionHistory | null> {
    try {
      return await this.#call(
        {
          name: "sessionHistory",
          method: "GET",
          // A session route: the mount this service uses is the routes' (routes.ts).
          path: idPath(id, PATHS.sessionHistory),
          parse: parseSessionHistory,
          notFound: `No history of session ${id} was found`,
        },
        signal,
      );
    } catch (e) {
      if (e instanceof NotFoundError) return null;
      if (e instanceof HttpError && e.status === 405) return null;
      throw e;
    }
  }

  /**
   * A git action in a session (gitRequest in src/protocol/git.ts builds the request). The
   * interface's path first; on 404 or 405 the documented path once. Any 2xx answer comes
   * back read by readGitAnswer: `ok` is false only when the body says so.
   */
  async git(id: string, action: GitAction, signal?: AbortSignal): Promise<GitResult> {
    const req = gitRequest(checkedId(id), action);
    return this.#call(
      {
        name: action.kind === "clone" ? "gitClone" : "gitOperation",
        method: "POST",
        path: req.paths[0],
        fallbackPath: req.paths[1],
        body: req.body,
        ...(req.fallbackBody ? { fallbackBody: req.fallbackBody } : {}),
        parse: (json) => readGitAnswer(200, json),
        parseAny: readGitAnswer,
        notFound: `Session ${id} was not found`,
      },
      signal,
    );
  }

  /**
   * One call. A session route goes to the mount known for it (routes.ts); when that answers
   * 404 or 405, or 401 while the key is good (verify answered 200 in this process, or does
   * now), the other mount's form is tried, and what answered is remembered. A call with a
   * documented fallback path (git) tries it the same way after the interface's path.
   */
  async #call<T>(call: Call<T>, signal?: AbortSignal): Promise<T> {
    const routes = this.transport.routes;
    // The known mount's form of each path first (the interface's path, then a documented
    // fallback), then the other mount's (when it is still worth a try).
    const forms = [call.path, call.fallbackPath].flatMap((p) =>
      p === undefined ? [] : [routes.candidates(p)],
    );
    const tries: { path: string; otherMount: boolean; fallback: boolean }[] = [];
    for (const m of [0, 1]) {
      for (const [j, f] of forms.entries()) {
        const path = f[m];
        if (path !== undefined) tries.push({ path, otherMount: m === 1, fallback: j === 1 });
      }
    }
    const ok = (status: number) =>
      call.anyNon200IsInvalidKey ? status === 200 : status >= 200 && status < 300;
    const missing = (status: number) => status === 404 || status === 405;
    let first: HttpAnswer | null = null;
    let probe = false;
    for (let i = 0; i < tries.length; i++) {
      const { path, otherMount, fallback } = tries[i] as (typeof tries)[number];
      // The documented fallback route takes its own body (git's flat one), when it has one.
      const body = fallback ? (call.fallbackBody ?? call.body) : call.body;
      if (otherMount && !probe) break;
      const res = await this.transport.request({
        method: call.method,
        path,
        ...(call.query ? { query: call.query } : {}),
        ...(body !== undefined ? { body } : {}),
        ...(signal ? { signal } : {}),
      });
      first ??= res;
      if (ok(res.status)) {
        routes.worked(path);
        return this.#parseOk(call, res);
      }
      if (otherMount && missing(res.status)) continue;
      if (missing(res.status) || res.status === 401) {
        // Worth the other mount: a route this service does not serve, or the 401 of a web
        // dashboard (the key is good, so the 401 is not about it).
        // Decided by the first answer: a later path of the same mount (a documented
        // fallback) that is missing says nothing about the mount.
        if (i === 0) {
          probe =
            routeMissing(res) ||
            (res.status === 401 && isSessionRoute(path) && (await this.#keyIsGood(signal)));
        }
        if (missing(res.status) || probe) continue;
      }
      // A refusal by a route that exists (a scope, a body, a state) confirms its mount.
      if (ROUTE_EXISTS.has(res.status)) routes.worked(path);
      throw this.#errorFor(call, otherMount && res.status === 401 ? (first as HttpAnswer) : res);
    }
    // Every form missing: the first answer says more (its path is the interface's).
    throw this.#errorFor(call, first as HttpAnswer);
  }

  /** Whether the key is good: known from this process, or verify asked now (once). */
  async #keyIsGood(signal?: AbortSignal): Promise<boolean> {
    const routes = this.transport.routes;
    if (!routes.keyVerified) {
      try {
        await this.verify(signal);
      } catch {
        return false;
      }
    }
    return routes.keyVerified;
  }

  #parseOk<T>(call: Call<T>, res: HttpAnswer): T {
    const { label } = res;
    if (res.truncated) {
      throw new MalformedResponseError(
        `${label} returned a response larger than ${this.transport.maxBodyBytes} bytes`,
      );
    }
    const json = tryJson(res.text);
    if (call.parseAny) return call.parseAny(res.status, json === undefined ? res.text : json);
    if (json === undefined) {
      const what =
        res.text.trim() === ""
          ? "an empty body"
          : `a body that is not JSON (${res.contentType ?? "no content type"}, ${Buffer.byteLength(res.text)} bytes)`;
      throw new MalformedResponseError(`${label} returned ${what}`);
    }
    try {
      return call.parse(json);
    } catch (e) {
      if (e instanceof AgentSessionsError) throw e;
      throw new MalformedResponseError(
        this.transport.redactor.redact(
          `${label} returned an unexpected response: ${describeParseError(e)}`,
        ),
      );
    }
  }

  #errorFor<T>(call: Call<T>, res: HttpAnswer): Error {
    return errorFromResponse({
      label: res.label,
      status: res.status,
      body: tryJson(res.text),
      requiredScope: REQUIRED_SCOPES[call.name],
      notFound: call.notFound,
      anyNon200IsInvalidKey: call.anyNon200IsInvalidKey,
      attempts: res.attempts,
      redact: this.transport.redactor.redact,
      organization: this.transport.organization,
    });
  }
}

/**
 * A 404 or 405 that says the route is not served here (rather than that a session is not
 * found): 405, or a 404 whose message is the framework's bare "Not Found".
 */
function routeMissing(res: HttpAnswer): boolean {
  if (res.status === 405) return true;
  if (res.status !== 404) return false;
  const msg = errorMessage(tryJson(res.text));
  return msg !== null && /^not found\b/i.test(msg.trim());
}

/** Answers only a route that exists gives: its mount is the right one. */
const ROUTE_EXISTS = new Set([400, 403, 409, 410, 422]);

/**
 * A session id checked before it enters a URL path: a typed error before any request when
 * it could leave its path segment (`..`, `/`, `?`, …), so the key is never sent to a path the
 * id made up. The rule is unsafeIdReason (src/protocol/ids.ts), the one the paths use.
 */
function checkedId(id: string): string {
  const bad = unsafeIdReason(id);
  if (bad !== null) {
    throw new MalformedResponseError(`The session id "${id}" cannot be used in a request: ${bad}.`);
  }
  return id;
}

function idPath(id: string, build: (id: string) => string): string {
  return build(checkedId(id));
}

/** GET /api/sessions/{id} shape is "not shown": accept the record itself or {session: record}. */
function unwrapSession(json: unknown): unknown {
  if (json !== null && typeof json === "object" && !Array.isArray(json)) {
    const o = json as Record<string, unknown>;
    if (o.session_id === undefined && o.id === undefined && typeof o.session === "object") {
      return o.session;
    }
  }
  return json;
}

function describeParseError(e: unknown): string {
  if (e instanceof z.SchemaError) {
    const issue = e.issues[0];
    if (!issue) return "schema mismatch";
    const where = issue.path.length > 0 ? issue.path.map(String).join(".") : "body";
    return `${where}: ${issue.message}`;
  }
  return e instanceof Error ? e.message : String(e);
}
