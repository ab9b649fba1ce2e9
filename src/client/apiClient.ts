import type { Dispatcher } from "undici";
import { errorMessage } from "../protocol/errors.js";
import { type GitAction, type GitResult, gitRequest, readGitAnswer } from "../protocol/git.js";
import { PATHS, unsafeIdReason } from "../protocol/index.js";
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
import { keyRedactor, type Redactor } from "../text/redact.js";
import { backoffDelay, DEFAULT_MAX_DELAY_MS, parseRetryAfter } from "./backoff.js";
import {
  AgentSessionsError,
  CancelledError,
  HttpError,
  InvalidKeyError,
  MalformedResponseError,
  NetworkError,
  RateLimitedError,
} from "./errors.js";
import { classifyNetworkError, describeFailure, networkFailureOfKind } from "./networkFailure.js";
import { DEFAULT_MAX_PAGES } from "./paging.js";
import {
  type HeaderSource,
  headerValue,
  RateLimitTracker,
  type RetryCause,
  type RetryWait,
} from "./rateLimit.js";
import { type RequestBudget, sharedBudget } from "./requestBudget.js";
import { errorFromResponse } from "./responseError.js";
import { cancellableDelay, linkSignals } from "./signals.js";
import { baseHeaders, type ConnectionConfig, defaultAgent, resolveUrl } from "./transport.js";

export interface ApiClientOptions extends ConnectionConfig {
  /** Per attempt: connect, headers and the whole body. Default 15000. */
  timeoutMs?: number;
  /** Attempts per call, first one included. Default 5. */
  maxAttempts?: number;
  /** First backoff delay when the server gave no Retry-After. Default 1000. */
  backoffBaseMs?: number;
  /** Cap for any retry delay. Default 60000. */
  maxDelayMs?: number;
  /** Fraction of a backoff delay randomised either way. Default 0.2. */
  jitter?: number;
  /** Jitter source in [0, 1); injectable for tests. */
  random?: () => number;
  rateLimit?: RateLimitTracker;
  /** The key's request budget; default the process's shared one for this key and service. */
  budget?: RequestBudget;
  /** Cancels every request and retry wait of this client. */
  signal?: AbortSignal;
  /** Largest response body read. Default 32 MiB. */
  maxBodyBytes?: number;
}

export interface ListSessionsParams {
  limit?: number;
  state?: string;
  /** Documented filters of the real service; sent only when given. */
  agent?: string;
  templateId?: string;
  visibility?: string;
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
  /** /api/v1/me: the interface says any status other than 200 means the key is invalid. */
  anyNon200IsInvalidKey?: boolean;
  /** Message for a 404 without a server message. */
  notFound?: string;
}

interface RawResponse {
  status: number;
  headers: HeaderSource;
  contentType: string | undefined;
  text: string;
  truncated: boolean;
}

const MAX_REDIRECTS = 3;

/**
 * Typed calls to the Agent Sessions service over undici's keep-alive pool.
 *
 * Retry policy: 429 is retried for every call (the service refused before acting); 5xx and
 * network errors only for GETs, which are safe to repeat. The first retry waits Retry-After
 * (or the base delay), later ones double it, capped, with jitter, but never shorter than
 * the Retry-After of the answer being retried.
 *
 * Redirects are never followed by undici: a same-origin redirect of a GET is followed here
 * (at most 3), anything else is an error, so the key never reaches another origin.
 *
 * /api/v1/me: any answer but 200 is an InvalidKeyError, as the interface says, with two
 * exceptions decided here: 429 goes through the rate-limit retries (RateLimitedError when
 * they run out), and 5xx is retried like any GET first (InvalidKeyError naming the status
 * if it persists). A network failure is a NetworkError: no answer is no verdict on the key,
 * and a cross-origin redirect is the same HttpError as for any other call.
 */
export class ApiClient {
  readonly rateLimit: RateLimitTracker;
  /** Every attempt of every call draws from it (see requestBudget.ts). */
  readonly budget: RequestBudget;
  readonly #conn: ConnectionConfig;
  readonly #dispatcher: Dispatcher;
  readonly #timeoutMs: number;
  readonly #maxAttempts: number;
  readonly #baseMs: number;
  readonly #maxDelayMs: number;
  readonly #jitter: number;
  readonly #random: () => number;
  readonly #signal: AbortSignal | undefined;
  readonly #maxBodyBytes: number;
  readonly #redactor: Redactor;

  constructor(opts: ApiClientOptions) {
    let parsed: URL;
    try {
      parsed = new URL(opts.baseUrl);
    } catch {
      throw new TypeError("The base URL is not a valid URL (expected http://host:port)");
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new TypeError(
        `The base URL must start with http:// or https:// (got ${parsed.protocol})`,
      );
    }
    this.#conn = {
      baseUrl: opts.baseUrl,
      apiKey: opts.apiKey,
      userAgent: opts.userAgent,
      organizationId: opts.organizationId,
      dispatcher: opts.dispatcher,
    };
    this.#dispatcher = opts.dispatcher ?? defaultAgent();
    this.#timeoutMs = opts.timeoutMs ?? 15_000;
    this.#maxAttempts = Math.max(1, Math.floor(opts.maxAttempts ?? 5));
    this.#baseMs = opts.backoffBaseMs ?? 1000;
    this.#maxDelayMs = opts.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
    this.#jitter = opts.jitter ?? 0.2;
    this.#random = opts.random ?? Math.random;
    this.#signal = opts.signal;
    this.#maxBodyBytes = opts.maxBodyBytes ?? 32 * 1024 * 1024;
    this.rateLimit = opts.rateLimit ?? new RateLimitTracker();
    this.#redactor = keyRedactor(opts.apiKey);
    this.budget = opts.budget ?? sharedBudget(opts.baseUrl, opts.apiKey);
  }

  get baseUrl(): string {
    return this.#conn.baseUrl;
  }

  /** GET /api/cloud/auth/verify: the key's metadata. */
  verify(signal?: AbortSignal): Promise<ApiKeyInfo> {
    return this.#call(
      {
        name: "verify",
        method: "GET",
        path: PATHS.verify,
        parse: (json) => {
          const info = ApiKeyInfoSchema.parse(json);
          if (!info.valid) throw new InvalidKeyError("The service says the key is not valid", 200);
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
        parse: (json) => IdentitySchema.parse(json),
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
        parse: (json) => readGitAnswer(200, json),
        parseAny: readGitAnswer,
        notFound: `Session ${id} was not found`,
      },
      signal,
    );
  }

  async #call<T>(call: Call<T>, signal?: AbortSignal): Promise<T> {
    const linked = linkSignals(this.#signal, signal);
    try {
      return await this.#run(call, linked.signal);
    } finally {
      linked.dispose();
    }
  }

  async #run<T>(call: Call<T>, signal: AbortSignal): Promise<T> {
    const firstLabel = `${call.method} ${call.path}`;
    let label = firstLabel;
    let fellBack = false;
    let firstMiss: RawResponse | null = null;
    const idempotent = call.method === "GET";
    const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
    let url = resolveUrl(this.#conn.baseUrl, call.path);
    if (call.query && [...call.query].length > 0) url.search = call.query.toString();
    const backoff = { anchorMs: undefined as number | undefined };
    let attempt = 1;
    let redirects = 0;
    // Bounded: every pass either returns, throws, follows one of at most MAX_REDIRECTS
    // redirects, or increments attempt, which throws once it reaches maxAttempts.
    for (;;) {
      let res: RawResponse;
      try {
        // Paced by the key's budget, but never held longer than a retry could wait.
        await this.budget.acquire("request", signal, this.#maxDelayMs).catch(() => {
          throw new CancelledError(`cancelled: ${label}`);
        });
        res = await this.#send(call.method, url, payload, signal, label);
      } catch (e) {
        // Only what can succeed on a second try is tried again: not a name that does not
        // resolve, a certificate that does not verify, or a port nothing listens on here.
        if (
          e instanceof NetworkError &&
          e.failure.retryable &&
          idempotent &&
          attempt < this.#maxAttempts
        ) {
          const cause: RetryCause = { kind: "network", failure: e.failure.kind };
          await this.#retryWait(attempt, null, e.failure.summary, cause, signal, backoff);
          attempt += 1;
          continue;
        }
        throw e;
      }
      this.rateLimit.update(res.headers);
      const { status } = res;
      this.budget.observe(res.headers, status === 429);

      if (status >= 300 && status < 400 && status !== 304) {
        redirects += 1;
        url = this.#redirectTarget(call, label, url, res, redirects);
        continue;
      }

      if (status === 429) {
        const retryAfterMs = parseRetryAfter(headerValue(res.headers, "retry-after"));
        // Everything of this key slows down, not only this call.
        this.budget.penalize(retryAfterMs);
        if (attempt >= this.#maxAttempts) {
          const msg = errorMessage(tryJson(res.text));
          throw new RateLimitedError(
            this.#redact(
              `${label} was still rate limited (HTTP 429) after ${attempt} attempt${attempt === 1 ? "" : "s"}${msg ? `: ${msg}` : ""}`,
            ),
            attempt,
            retryAfterMs,
          );
        }
        await this.#retryWait(
          attempt,
          retryAfterMs,
          "rate limited (HTTP 429)",
          { kind: "rate_limited" },
          signal,
          backoff,
        );
        attempt += 1;
        continue;
      }

      if (status >= 500 && idempotent && attempt < this.#maxAttempts) {
        const retryAfterMs = parseRetryAfter(headerValue(res.headers, "retry-after"));
        await this.#retryWait(
          attempt,
          retryAfterMs,
          `service error (HTTP ${status})`,
          { kind: "service_error", status },
          signal,
          backoff,
        );
        attempt += 1;
        continue;
      }

      const ok = call.anyNon200IsInvalidKey ? status === 200 : status >= 200 && status < 300;
      if (ok) return this.#parseOk(call, label, res);
      if ((status === 404 || status === 405) && call.fallbackPath !== undefined && !fellBack) {
        // The seed's path is not served here: the documented route, once, same request.
        fellBack = true;
        firstMiss = res;
        label = `${call.method} ${call.fallbackPath}`;
        url = resolveUrl(this.#conn.baseUrl, call.fallbackPath);
        continue;
      }
      // Both paths missing: the first answer says more (its path is the interface's).
      const shown = (status === 404 || status === 405) && firstMiss ? firstMiss : res;
      throw this.#errorFor(
        call,
        fellBack && shown === firstMiss ? firstLabel : label,
        shown,
        attempt,
      );
    }
  }

  async #retryWait(
    retryNo: number,
    retryAfterMs: number | null,
    reason: string,
    cause: RetryCause,
    signal: AbortSignal,
    backoff: { anchorMs: number | undefined },
  ): Promise<void> {
    // Retry-After: 0 (or a date in the past) must not turn the retries into a burst: the
    // schedule never starts below the base delay.
    if (retryNo === 1 && retryAfterMs !== null) {
      backoff.anchorMs = Math.max(retryAfterMs, this.#baseMs);
    }
    let delayMs = backoffDelay(
      retryNo,
      { baseMs: this.#baseMs, maxMs: this.#maxDelayMs, jitter: this.#jitter, random: this.#random },
      backoff.anchorMs,
    );
    // Retrying before the server's own Retry-After would only earn another 429.
    if (retryAfterMs !== null)
      delayMs = Math.max(delayMs, Math.min(retryAfterMs, this.#maxDelayMs));
    const wait: RetryWait = {
      attempt: retryNo + 1,
      maxAttempts: this.#maxAttempts,
      delayMs,
      until: Date.now() + delayMs,
      reason,
      cause,
      requestedMs: retryAfterMs,
    };
    this.rateLimit.beginWait(wait);
    try {
      await cancellableDelay(delayMs, signal, "waiting to retry");
    } finally {
      this.rateLimit.endWait(wait);
    }
  }

  #redirectTarget<T>(
    call: Call<T>,
    label: string,
    from: URL,
    res: RawResponse,
    redirects: number,
  ): URL {
    const { status } = res;
    const location = headerValue(res.headers, "location");
    if (!location) {
      throw new HttpError(`${label} answered HTTP ${status} without a Location to follow`, status);
    }
    let target: URL;
    try {
      target = new URL(location, from);
    } catch {
      throw new HttpError(`${label} answered HTTP ${status} with an invalid Location`, status);
    }
    if (target.origin !== from.origin) {
      throw new HttpError(
        `${label}: the service redirected to another origin (${target.origin}); the redirect was not followed and the key was not sent there. Check the base URL.`,
        status,
      );
    }
    if (call.method !== "GET") {
      throw new HttpError(
        `${label} answered with a redirect (HTTP ${status}); redirects are only followed for reads. Check the base URL.`,
        status,
      );
    }
    if (redirects > MAX_REDIRECTS) {
      throw new HttpError(`${label}: more than ${MAX_REDIRECTS} redirects; giving up`, status);
    }
    return target;
  }

  #parseOk<T>(call: Call<T>, label: string, res: RawResponse): T {
    if (res.truncated) {
      throw new MalformedResponseError(
        `${label} returned a response larger than ${this.#maxBodyBytes} bytes`,
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
        this.#redact(`${label} returned an unexpected response: ${describeParseError(e)}`),
      );
    }
  }

  #errorFor<T>(call: Call<T>, label: string, res: RawResponse, attempts: number): Error {
    return errorFromResponse({
      label,
      status: res.status,
      body: tryJson(res.text),
      requiredScope: REQUIRED_SCOPES[call.name],
      notFound: call.notFound,
      anyNon200IsInvalidKey: call.anyNon200IsInvalidKey,
      attempts,
      redact: this.#redactor.redact,
    });
  }

  async #send(
    method: "GET" | "POST",
    url: URL,
    payload: string | undefined,
    signal: AbortSignal,
    label: string,
  ): Promise<RawResponse> {
    if (signal.aborted) throw new CancelledError(`cancelled: ${label}`);
    const ctl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctl.abort();
    }, this.#timeoutMs);
    const onAbort = () => ctl.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    const headers: Record<string, string> = {
      ...baseHeaders(this.#conn),
      accept: "application/json",
    };
    if (payload !== undefined) headers["content-type"] = "application/json";
    try {
      const res = await this.#dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        body: payload ?? null,
        signal: ctl.signal,
      });
      // Read every body to its end (or destroy it) so the socket goes back to the pool.
      const { text, truncated } = await readBody(res.body, this.#maxBodyBytes);
      return {
        status: res.statusCode,
        headers: res.headers,
        contentType: headerValue(res.headers, "content-type"),
        text,
        truncated,
      };
    } catch (e) {
      if (signal.aborted) throw new CancelledError(`cancelled: ${label}`);
      const failure = timedOut
        ? networkFailureOfKind("timed_out", "no complete answer in time")
        : classifyNetworkError(e, url);
      if (
        timedOut ||
        failure.code === "UND_ERR_HEADERS_TIMEOUT" ||
        failure.code === "UND_ERR_BODY_TIMEOUT"
      ) {
        throw new NetworkError(
          `${label}: no complete answer from ${url.origin} within ${formatSeconds(this.#timeoutMs)}`,
          failure,
        );
      }
      throw new NetworkError(
        this.#redact(`${label}: could not reach ${url.origin} (${describeFailure(failure)})`),
        failure,
      );
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** Belt and braces: a server that echoes the key (or a piece of it) must not get it printed. */
  #redact(s: string): string {
    return this.#redactor.redact(s);
  }
}

async function readBody(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  limit: number,
): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      return { text: Buffer.concat(chunks).toString("utf8"), truncated: true };
    }
    chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks).toString("utf8"), truncated: false };
}

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

function tryJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
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

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}
