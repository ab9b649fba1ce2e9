/**
 * The one transport (DESIGN rule 12): every request and every event-stream opening goes
 * through here. It owns the key's request budget, Retry-After and 429 handling, the retry
 * waits of requests, the same-origin redirect policy, timeouts, the organization header, the
 * proxy choice and the classification of network failures. Callers (apiClient.ts,
 * eventStream.ts) only say what they send and read what came back.
 *
 * Every wait it makes is published on its RateLimitTracker (the UI's status bar, the headless
 * commands' stderr) and keeps the process alive: a script waiting a minute for the budget
 * finishes its output instead of being dropped by Node with half a JSON document.
 */
import { setMaxListeners } from "node:events";
import { type Dispatcher, EnvHttpProxyAgent, WebSocket } from "undici";
import { errorMessage } from "../protocol/errors.js";
import { formatSeconds } from "../text/format.js";
import { keyRedactor, type Redactor } from "../text/redact.js";
import { USER_AGENT } from "../version.js";
import { backoffDelay, DEFAULT_MAX_DELAY_MS, parseRetryAfter } from "./backoff.js";
import { CancelledError, HttpError, NetworkError, RateLimitedError } from "./errors.js";
import { classifyNetworkError, describeFailure, networkFailureOfKind } from "./networkFailure.js";
import { type ProxySettings, proxyClients, proxyFailure, proxySettings } from "./proxy.js";
import {
  type HeaderSource,
  headerValue,
  RateLimitTracker,
  type RetryCause,
  type RetryWait,
  readRateLimitHeaders,
} from "./rateLimit.js";
import { type BudgetUse, RequestBudget } from "./requestBudget.js";
import { type OrganizationSource, type RouteStore, ServiceRoutes } from "./routes.js";
import { cancellableDelay, linkSignals } from "./signals.js";

/** Where to talk to and as whom. The key lives only here and in request headers. */
export interface ConnectionConfig {
  baseUrl: string;
  apiKey: string;
  userAgent?: string;
  /**
   * Sent as X-Organization-Id on every request and stream: scopes calls to that organization.
   * Without it, an organization key's own organization is sent once known (see routes.ts).
   */
  organizationId?: string;
  /** Where organizationId came from, for messages (default "--org"). */
  organizationFrom?: OrganizationSource;
  /**
   * A dispatcher to send through, owned by the caller (tests pass their own). Without one the
   * transport makes its own keep-alive dispatcher on first use and closes it in close().
   */
  dispatcher?: Dispatcher;
}

export interface TransportOptions extends ConnectionConfig {
  /** Per attempt: connect, headers and the whole body. Default 15000. */
  timeoutMs?: number;
  /** Attempts per request, first one included. Default 5. */
  maxAttempts?: number;
  /** First backoff delay when the server gave no Retry-After. Default 1000. */
  backoffBaseMs?: number;
  /** Cap for any wait, Retry-After included. Default 60000. */
  maxDelayMs?: number;
  /** Fraction of a backoff delay randomised either way. Default 0.2. */
  jitter?: number;
  /** Jitter source in [0, 1); injectable for tests. */
  random?: () => number;
  /** Where waits and rate-limit figures are published. */
  rateLimit?: RateLimitTracker;
  /** The key's request budget; default a new one owned by this transport (and its client). */
  budget?: RequestBudget;
  /** Cancels every request and wait of this transport. */
  signal?: AbortSignal;
  /** Largest response body read. Default 32 MiB. */
  maxBodyBytes?: number;
  /**
   * Where this client's routes live (the API's mount) and the key's organization; default
   * new ones of this transport's own, kept in `routeStore` when one is given.
   */
  routes?: ServiceRoutes;
  /** Where new routes remember what they learn for later runs (the CLI's cache file). */
  routeStore?: RouteStore | null;
  /**
   * Without organizationId, send the key's own organization (from verify, asked once per key
   * and service and remembered by the routes' store). The CLI and the UI set it.
   */
  keyOrganization?: boolean;
}

/** One request, as a caller describes it. */
export interface RequestSpec {
  method: HttpMethod;
  /** An interface path ("/api/sessions"), resolved under the base URL and its prefix. */
  path: string;
  query?: URLSearchParams;
  /** Sent as JSON. */
  body?: unknown;
  /** Headers of this request only (an Idempotency-Key). */
  headers?: Record<string, string>;
  /**
   * A request that is safe to send again although it is not a GET: one carrying an
   * Idempotency-Key, which the service answers a second time with its first answer. It is
   * retried as a GET is (a network failure, a timeout, a 5xx), always with the same key.
   */
  repeatable?: boolean;
  signal?: AbortSignal;
  /**
   * The answer may be an event stream (a prompt's): a 2xx `text/event-stream` answer comes
   * back with its body unread (HttpAnswer.stream) once its headers arrive; any other answer
   * is read whole as usual.
   */
  stream?: boolean;
}

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

/** The answer a request ended with (never a 429: that is a RateLimitedError). */
export interface HttpAnswer {
  status: number;
  headers: HeaderSource;
  contentType: string | undefined;
  text: string;
  /** The body was longer than maxBodyBytes and was cut there. */
  truncated: boolean;
  /** "GET /api/sessions", for messages. */
  label: string;
  attempts: number;
  /**
   * A streamed answer's body, unread (RequestSpec.stream and a 2xx event stream; `text` is
   * then empty). Its reader must read it to the end or destroy it.
   */
  stream?: Dispatcher.ResponseData["body"];
}

/** How one opening of an event stream went. */
export type StreamOpening =
  | {
      kind: "response";
      status: number;
      headers: HeaderSource;
      body: Dispatcher.ResponseData["body"];
      /** A 5xx answer's Retry-After (null when none, garbage, or another status). */
      retryAfterMs: number | null;
    }
  | { kind: "rate_limited"; retryAfterMs: number | null; error: RateLimitedError; body: null };

const MAX_REDIRECTS = 3;
/**
 * A budget wait this long is said (stderr, the UI's status line); shorter ones are said once
 * they add up to it (a listing paced at 0.6 s a page waits longer in all than any one wait).
 */
const ANNOUNCE_BUDGET_WAIT_MS = 1000;

/**
 * A keep-alive dispatcher of one transport's own. It goes through the proxy that HTTPS_PROXY /
 * HTTP_PROXY name, except for hosts NO_PROXY lists, as curl does: an http:// service through
 * a forward request, an https:// one through a CONNECT tunnel, so the key travels inside TLS
 * end to end and never reaches the proxy in clear. The TLS options (NODE_EXTRA_CA_CERTS, …)
 * are Node's own and apply to every connection it makes.
 */
function keepAliveAgent(proxies: ProxySettings): Dispatcher {
  return new EnvHttpProxyAgent({
    httpProxy: proxies.http?.url ?? "",
    httpsProxy: proxies.https?.url ?? "",
    noProxy: proxies.noProxy,
    // Failures on a connection to the proxy are told as the proxy's, naming its variable.
    ...proxyClients(proxies),
    // A plain http proxy gets plain requests for http:// services (as curl sends them);
    // https:// services always go through a tunnel.
    proxyTunnel: false,
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    // Every open event stream holds a connection of its own (HTTP/1.1): the cap must stay
    // above the number of streams a fleet opens, or the streams past it wait forever.
    connections: 1024,
  } as ConstructorParameters<typeof EnvHttpProxyAgent>[0]);
}

/** Normalised origin of a base URL (no trailing slash, no path kept for the origin check). */
export function originOf(baseUrl: string): string {
  return new URL(baseUrl).origin;
}

/**
 * Absolute URL for an interface path under the base URL. A base URL may carry a path prefix
 * (https://host/prefix/); the interface paths are appended to it. A prefix ending in
 * `/api/cloud` (the real service's own CLI uses such a base URL) is the mount, not a prefix:
 * the interface's `/api/…` paths replace it instead of doubling it.
 */
export function resolveUrl(baseUrl: string, path: string): URL {
  const base = new URL(baseUrl);
  let prefix = base.pathname.replace(/\/+$/, "");
  if (path.startsWith("/api/") && prefix.endsWith("/api/cloud")) {
    prefix = prefix.slice(0, -"/api/cloud".length);
  }
  return new URL(`${prefix}${path}`, base.origin);
}

/** A base URL checked before anything is sent: http(s) only. */
export function checkBaseUrl(baseUrl: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new TypeError("The base URL is not a valid URL (expected http://host:port)");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new TypeError(
      `The base URL must start with http:// or https:// (got ${parsed.protocol})`,
    );
  }
  return parsed;
}

export class Transport {
  readonly budget: RequestBudget;
  readonly rateLimit: RateLimitTracker;
  readonly redactor: Redactor;
  /** Where session routes live for this service and what the key said about itself. */
  readonly routes: ServiceRoutes;
  readonly #conn: ConnectionConfig;
  readonly #timeoutMs: number;
  readonly #maxAttempts: number;
  readonly #baseMs: number;
  readonly #maxDelayMs: number;
  readonly #jitter: number;
  readonly #random: () => number;
  readonly #signal: AbortSignal | undefined;
  readonly #maxBodyBytes: number;
  /** The keep-alive dispatcher this transport made (none given), and the proxies it uses. */
  #own: { agent: Dispatcher; proxies: ProxySettings } | null = null;
  #closed = false;
  /** Short budget waits since one was last said, and all of them (ms). */
  #pacing = { unsaid: 0, total: 0 };
  /** Send the key's own organization when none was given. */
  readonly keyOrganization: boolean;

  constructor(opts: TransportOptions) {
    checkBaseUrl(opts.baseUrl);
    this.#conn = {
      baseUrl: opts.baseUrl,
      apiKey: opts.apiKey,
      ...(opts.userAgent !== undefined ? { userAgent: opts.userAgent } : {}),
      ...(opts.organizationId ? { organizationId: opts.organizationId } : {}),
      ...(opts.organizationId && opts.organizationFrom
        ? { organizationFrom: opts.organizationFrom }
        : {}),
      ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
    };
    this.#timeoutMs = opts.timeoutMs ?? 15_000;
    this.#maxAttempts = Math.max(1, Math.floor(opts.maxAttempts ?? 5));
    this.#baseMs = opts.backoffBaseMs ?? 1000;
    this.#maxDelayMs = opts.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
    this.#jitter = opts.jitter ?? 0.2;
    this.#random = opts.random ?? Math.random;
    this.#signal = opts.signal === undefined ? undefined : fanOut(opts.signal);
    this.#maxBodyBytes = opts.maxBodyBytes ?? 32 * 1024 * 1024;
    this.rateLimit = opts.rateLimit ?? new RateLimitTracker();
    this.redactor = keyRedactor(opts.apiKey);
    // Its own unless one is passed in: a budget belongs to a client, never to the process.
    this.budget = opts.budget ?? new RequestBudget();
    this.routes =
      opts.routes ?? new ServiceRoutes(opts.baseUrl, opts.apiKey, opts.routeStore ?? null);
    this.keyOrganization = opts.keyOrganization ?? false;
  }

  /**
   * The X-Organization-Id this transport sends and where it comes from: the one given
   * (--org, AGENT_SESSIONS_ORG, the profile), else the key's own organization once verify
   * said it; null when none is sent (a personal key, or not known yet).
   */
  get organization(): { id: string; from: OrganizationSource } | null {
    if (this.#conn.organizationId) {
      return { id: this.#conn.organizationId, from: this.#conn.organizationFrom ?? "--org" };
    }
    const own = this.keyOrganization ? this.routes.keyOrganization : null;
    return own ? { id: own, from: "key" } : null;
  }

  /** An organization was given explicitly: the key's own is not needed for the header. */
  get organizationGiven(): boolean {
    return Boolean(this.#conn.organizationId);
  }

  get baseUrl(): string {
    return this.#conn.baseUrl;
  }

  get maxBodyBytes(): number {
    return this.#maxBodyBytes;
  }

  /** The longest any wait of this transport lasts (Retry-After included). */
  get maxDelayMs(): number {
    return this.#maxDelayMs;
  }

  /** Headers every request and stream carries. */
  headers(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#conn.apiKey}`,
      "user-agent": this.#conn.userAgent ?? USER_AGENT,
    };
    const org = this.organization;
    if (org) headers["x-organization-id"] = org.id;
    return Object.assign(headers, extra);
  }

  /**
   * One call. Retry policy: 429 is retried for every call (the service refused before acting);
   * 5xx and network errors only for GETs, which are safe to repeat. The first retry waits
   * Retry-After (or the base delay), later ones double it, capped, with jitter, but never
   * shorter than the Retry-After being answered. A Retry-After longer than the cap ends the
   * call at once (RateLimitedError naming the wait): waiting the cap only to be refused again
   * helps nobody. A 429 also holds every other request of the key for the same wait.
   *
   * Redirects are never followed by undici: a same-origin redirect of a GET is followed here
   * (at most 3), anything else is an error, so the key never reaches another origin.
   */
  async request(spec: RequestSpec): Promise<HttpAnswer> {
    const linked = linkSignals(this.#signal, spec.signal);
    let answer: HttpAnswer | undefined;
    try {
      answer = await this.#request(spec, linked.signal);
      return answer;
    } finally {
      // A streamed body still needs the signals that end it: unlinked once it closes.
      if (answer?.stream) answer.stream.once("close", linked.dispose);
      else linked.dispose();
    }
  }

  async #request(spec: RequestSpec, signal: AbortSignal): Promise<HttpAnswer> {
    const label = `${spec.method} ${spec.path}`;
    const idempotent = spec.method === "GET" || spec.repeatable === true;
    const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    let url = resolveUrl(this.#conn.baseUrl, spec.path);
    if (spec.query && [...spec.query].length > 0) url.search = spec.query.toString();
    const schedule = { anchorMs: undefined as number | undefined };
    let attempt = 1;
    let redirects = 0;
    // Bounded: every pass either returns, throws, follows one of at most MAX_REDIRECTS
    // redirects, or increments attempt, which throws once it reaches maxAttempts.
    for (;;) {
      let res: Omit<HttpAnswer, "label" | "attempts">;
      let ticket: number;
      try {
        // Paced by the key's budget, but never held longer than a retry could wait.
        ticket = await this.#acquire("request", signal, this.#maxDelayMs, label);
        res = await this.#send(
          spec.method,
          url,
          payload,
          signal,
          label,
          spec.stream === true,
          spec.headers,
        );
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
          const delay = this.#retryDelay(attempt, null, schedule);
          await this.#wait(delay, attempt, e.failure.summary, cause, null, signal);
          attempt += 1;
          continue;
        }
        throw e;
      }
      const { status } = res;
      const retryAfterMs = this.#observe(res.headers, status, ticket);

      if (status >= 300 && status < 400 && status !== 304) {
        redirects += 1;
        url = redirectTarget(spec.method, label, url, res.headers, status, redirects);
        continue;
      }

      if (status === 429) {
        const quoted = errorMessage(tryJson(res.text));
        const error = this.#rateLimitedError(label, attempt, retryAfterMs, quoted);
        if (error !== null) {
          this.#holdKeyFor(res.headers, retryAfterMs === null ? null : this.#maxDelayMs);
          throw error;
        }
        const delay = this.#retryDelay(attempt, retryAfterMs, schedule);
        // Everything of this key slows down for the same wait, not only this call.
        this.#holdKeyFor(res.headers, delay);
        const why = "rate limited (HTTP 429)";
        await this.#wait(delay, attempt, why, { kind: "rate_limited" }, retryAfterMs, signal);
        attempt += 1;
        continue;
      }

      if (status >= 500 && idempotent && attempt < this.#maxAttempts) {
        const delay = this.#retryDelay(attempt, retryAfterMs, schedule);
        const cause: RetryCause = { kind: "service_error", status };
        const why = `service error (HTTP ${status})`;
        await this.#wait(delay, attempt, why, cause, retryAfterMs, signal);
        attempt += 1;
        continue;
      }
      return { ...res, label, attempts: attempt };
    }
  }

  /**
   * One opening of an event stream: paced by the budget like any request (`force` goes
   * without waiting; `budgetSignal` cuts the wait short and the opening then goes at once).
   * A 429 is handled here as for requests (the budget holds for its wait) and handed back
   * with its Retry-After; any other answer is the caller's to read. A failure to connect is
   * a classified NetworkError.
   */
  async openStream(opts: {
    path: string;
    headers: Record<string, string>;
    signal: AbortSignal;
    headersTimeoutMs: number;
    force?: boolean;
    budgetSignal?: AbortSignal;
  }): Promise<StreamOpening> {
    const label = `GET ${opts.path}`;
    let ticket: number;
    if (opts.force) ticket = await this.#acquire("stream", opts.signal, 0, label);
    else {
      const linked = linkSignals(opts.signal, opts.budgetSignal);
      try {
        ticket = await this.#acquire("stream", linked.signal, undefined, label);
      } catch (e) {
        if (opts.signal.aborted || !opts.budgetSignal?.aborted) throw e;
        // Asked to go now (reconnect now): the wait ends and the opening goes anyway.
        ticket = await this.#acquire("stream", opts.signal, 0, label);
      } finally {
        linked.dispose();
      }
    }
    const url = resolveUrl(this.#conn.baseUrl, opts.path);
    const dispatcher = this.#dispatcher();
    let res: Dispatcher.ResponseData;
    try {
      res = await dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: "GET",
        headers: this.headers(opts.headers),
        signal: opts.signal,
        // The stream's watchdog bounds silence on the body; undici's own 300 s limit would
        // cut quiet streams.
        bodyTimeout: 0,
        headersTimeout: opts.headersTimeoutMs,
      });
    } catch (e) {
      if (opts.signal.aborted) throw new CancelledError(`cancelled: ${label}`);
      throw this.#networkError(e, url, label, null);
    }
    const retryAfterMs = this.#observe(res.headers, res.statusCode, ticket);
    if (res.statusCode !== 429) {
      return {
        kind: "response",
        status: res.statusCode,
        headers: res.headers,
        body: res.body,
        retryAfterMs,
      };
    }
    const text = await readBody(res.body, 16 * 1024).catch(() => ({ text: "" }));
    const quoted = errorMessage(tryJson(text.text));
    const wait = Math.min(
      retryAfterMs ?? this.#retryDelay(1, null, { anchorMs: undefined }),
      this.#maxDelayMs,
    );
    this.#holdKeyFor(res.headers, wait);
    const error =
      this.#rateLimitedError(label, 1, retryAfterMs, quoted) ??
      new RateLimitedError(
        this.redactor.redact(`${label} was rate limited (HTTP 429)${quoted ? `: ${quoted}` : ""}`),
        1,
        retryAfterMs,
      );
    return { kind: "rate_limited", retryAfterMs, error, body: null };
  }

  /**
   * A WebSocket (the session terminal) at an interface path, opened like an event stream:
   * paced by the key's budget, through the same dispatcher (proxies, TLS, keep-alive) and with
   * the same organization header and user agent. The key itself is not sent: the path's query
   * carries the short-lived token the socket needs.
   */
  async openWebSocket(
    path: string,
    query: URLSearchParams,
    signal: AbortSignal,
  ): Promise<WebSocket> {
    const label = `GET ${path}`;
    await this.#acquire("stream", signal, undefined, label);
    const url = resolveUrl(this.#conn.baseUrl, path);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    url.search = query.toString();
    const { authorization: _key, ...headers } = this.headers();
    const ws = new WebSocket(url, { dispatcher: this.#dispatcher(), headers });
    ws.binaryType = "arraybuffer";
    return ws;
  }

  /**
   * A 429 holds every request of the key for its wait, unless the same answer says the key
   * still has room (X-RateLimit-Remaining above 0): the limit is then the call's own (the
   * organization's launches an hour, say), and only this call waits or fails. A launch refused
   * for an hour no longer stalls the list and the panes for a minute.
   */
  #holdKeyFor(headers: HeaderSource, waitMs: number | null): void {
    const room = readRateLimitHeaders(headers)?.remaining ?? null;
    if (room !== null && room > 0) return;
    this.budget.penalize(waitMs);
  }

  /**
   * What a response says about the limits, learnt once for every kind of call: the figures
   * shown, the budget's pace, and a 429's Retry-After (null when it gave none or garbage).
   */
  #observe(headers: HeaderSource, status: number, ticket: number): number | null {
    this.rateLimit.update(headers);
    this.budget.observe(headers, status === 429, ticket);
    if (status !== 429 && status !== 408 && status < 500) return null;
    return parseRetryAfter(headerValue(headers, "retry-after"));
  }

  /**
   * Null while retrying can still help; else the error that ends the call: the attempts are
   * spent, or the service asks for a wait longer than this client ever waits.
   */
  #rateLimitedError(
    label: string,
    attempt: number,
    retryAfterMs: number | null,
    quoted: string | null,
  ): RateLimitedError | null {
    const said = quoted ? `: ${quoted}` : "";
    if (retryAfterMs !== null && retryAfterMs > this.#maxDelayMs) {
      return new RateLimitedError(
        this.redactor.redact(
          `${label} was rate limited (HTTP 429) and the service asks to wait ${formatSeconds(retryAfterMs)}, longer than the ${formatSeconds(this.#maxDelayMs)} this client waits${said}`,
        ),
        attempt,
        retryAfterMs,
      );
    }
    if (attempt < this.#maxAttempts) return null;
    return new RateLimitedError(
      this.redactor.redact(
        `${label} was still rate limited (HTTP 429) after ${attempt} attempt${attempt === 1 ? "" : "s"}${said}`,
      ),
      attempt,
      retryAfterMs,
    );
  }

  /** The wait before retry number `retryNo`: the one schedule for 429, 5xx and network errors. */
  #retryDelay(
    retryNo: number,
    retryAfterMs: number | null,
    schedule: { anchorMs: number | undefined },
  ): number {
    // Retry-After: 0 (or a date in the past) must not turn the retries into a burst: the
    // schedule never starts below the base delay.
    if (retryNo === 1 && retryAfterMs !== null) {
      schedule.anchorMs = Math.max(retryAfterMs, this.#baseMs);
    }
    const delayMs = backoffDelay(
      retryNo,
      { baseMs: this.#baseMs, maxMs: this.#maxDelayMs, jitter: this.#jitter, random: this.#random },
      schedule.anchorMs,
    );
    // Retrying before the server's own Retry-After would only earn another 429.
    return retryAfterMs === null
      ? delayMs
      : Math.max(delayMs, Math.min(retryAfterMs, this.#maxDelayMs));
  }

  /** A retry wait, published while it lasts; ref'd, so the process waits with it. */
  async #wait(
    delayMs: number,
    retryNo: number,
    reason: string,
    cause: RetryCause,
    requestedMs: number | null,
    signal: AbortSignal,
  ): Promise<void> {
    const wait: RetryWait = {
      attempt: retryNo + 1,
      maxAttempts: this.#maxAttempts,
      delayMs,
      until: Date.now() + delayMs,
      reason,
      cause,
      requestedMs,
    };
    this.rateLimit.beginWait(wait);
    try {
      await cancellableDelay(delayMs, signal, "waiting to retry");
    } finally {
      this.rateLimit.endWait(wait);
    }
  }

  /**
   * A token from the budget. A wait longer than a second is published (the headless
   * commands say it on stderr, the UI in its status line), and shorter ones each time they
   * add up to a second since the last said; the budget's own timer keeps the
   * process alive meanwhile. Resolves to the grant's ticket (see RequestBudget.observe).
   */
  async #acquire(
    use: BudgetUse,
    signal: AbortSignal,
    maxWaitMs: number | undefined,
    label: string,
  ): Promise<number> {
    const expected = this.budget.expectedWaitMs(use);
    let wait: RetryWait | null = null;
    const short = expected > 0 && expected < ANNOUNCE_BUDGET_WAIT_MS;
    if (short) {
      this.#pacing.unsaid += expected;
      this.#pacing.total += expected;
    }
    const say = short
      ? this.#pacing.unsaid >= ANNOUNCE_BUDGET_WAIT_MS
      : expected >= ANNOUNCE_BUDGET_WAIT_MS;
    if (say && maxWaitMs !== 0) {
      const f = this.budget.state.figures;
      const delayMs = Math.min(expected, maxWaitMs ?? expected);
      const summed = short
        ? `; short waits add up: ${formatSeconds(this.#pacing.total)} so far`
        : "";
      if (short) this.#pacing.unsaid = 0;
      wait = {
        attempt: 1,
        maxAttempts: 1,
        delayMs,
        until: Date.now() + delayMs,
        reason: `pacing ${use === "stream" ? "stream openings" : "requests"} to the service's limit (${f.limit} per ${describeWindow(f.windowMs)}, burst ${f.burst})${summed}`,
        cause: { kind: "budget" },
        requestedMs: null,
      };
      this.rateLimit.beginWait(wait);
    }
    try {
      return await this.budget.acquire(use, signal, maxWaitMs);
    } catch {
      throw new CancelledError(`cancelled: ${label}`);
    } finally {
      if (wait) this.rateLimit.endWait(wait);
    }
  }

  #dispatcher(): Dispatcher {
    if (this.#conn.dispatcher) return this.#conn.dispatcher;
    if (this.#closed) throw new CancelledError("cancelled: the client was closed");
    if (!this.#own) {
      const proxies = proxySettings();
      this.#own = { agent: keepAliveAgent(proxies), proxies };
    }
    return this.#own.agent;
  }

  /**
   * Close the dispatcher this transport made (its idle keep-alive connections and any still
   * open), so the process can exit promptly; a dispatcher passed in stays its owner's. Later
   * requests are refused as cancelled.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const own = this.#own;
    this.#own = null;
    if (own) await own.agent.close();
  }

  async #send(
    method: HttpMethod,
    url: URL,
    payload: string | undefined,
    signal: AbortSignal,
    label: string,
    stream = false,
    headers: Record<string, string> = {},
  ): Promise<Omit<HttpAnswer, "label" | "attempts">> {
    if (signal.aborted) throw new CancelledError(`cancelled: ${label}`);
    // Before the timer and the try: a proxy variable that cannot be used is a usage error,
    // not a network failure.
    const dispatcher = this.#dispatcher();
    const ctl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctl.abort();
    }, this.#timeoutMs);
    const onAbort = () => ctl.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    const extra: Record<string, string> = {
      ...headers,
      accept: stream ? "text/event-stream, application/json" : "application/json",
    };
    if (payload !== undefined) extra["content-type"] = "application/json";
    try {
      const res = await dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method,
        headers: this.headers(extra),
        body: payload ?? null,
        signal: ctl.signal,
        // A streamed answer may be quiet between items; its reader bounds the silence.
        ...(stream ? { bodyTimeout: 0 } : {}),
      });
      const contentType = headerValue(res.headers, "content-type");
      if (
        stream &&
        res.statusCode >= 200 &&
        res.statusCode < 300 &&
        /^\s*text\/event-stream\b/i.test(contentType ?? "")
      ) {
        // The timeout covered the headers; from here the caller's signal ends the body.
        clearTimeout(timer);
        const body = res.body;
        const stop = () => body.destroy();
        signal.addEventListener("abort", stop, { once: true });
        body.once("close", () => signal.removeEventListener("abort", stop));
        return {
          status: res.statusCode,
          headers: res.headers,
          contentType,
          text: "",
          truncated: false,
          stream: body,
        };
      }
      // Read every body to its end (or destroy it) so the socket goes back to the pool.
      const { text, truncated } = await readBody(res.body, this.#maxBodyBytes);
      return { status: res.statusCode, headers: res.headers, contentType, text, truncated };
    } catch (e) {
      if (signal.aborted) throw new CancelledError(`cancelled: ${label}`);
      throw this.#networkError(e, url, label, timedOut ? this.#timeoutMs : null);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** The one classification of a failure below HTTP, the proxy's own failures included. */
  #networkError(e: unknown, url: URL, label: string, timedOutAfterMs: number | null): NetworkError {
    if (this.#own) {
      const viaProxy = proxyFailure(e, url, this.#own.proxies);
      if (viaProxy)
        return new NetworkError(
          this.redactor.redact(`${label}: ${viaProxy.message}`),
          viaProxy.failure,
        );
    }
    const failure =
      timedOutAfterMs !== null
        ? networkFailureOfKind("timed_out", "no complete answer in time")
        : classifyNetworkError(e, url);
    if (
      timedOutAfterMs !== null ||
      failure.code === "UND_ERR_HEADERS_TIMEOUT" ||
      failure.code === "UND_ERR_BODY_TIMEOUT"
    ) {
      const within =
        timedOutAfterMs !== null ? ` within ${formatSeconds(timedOutAfterMs)}` : " in time";
      return new NetworkError(`${label}: no complete answer from ${url.origin}${within}`, failure);
    }
    return new NetworkError(
      this.redactor.redact(`${label}: could not reach ${url.origin} (${describeFailure(failure)})`),
      failure,
    );
  }
}

/** Where a redirect may be followed to: same origin, reads only, a few times. */
function redirectTarget(
  method: HttpMethod,
  label: string,
  from: URL,
  headers: HeaderSource,
  status: number,
  redirects: number,
): URL {
  const location = headerValue(headers, "location");
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
  if (method !== "GET") {
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

/** A whole body up to `limit` bytes; past it the body is destroyed and marked truncated. */
export async function readBody(
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

/** JSON of a body, or undefined for an empty or non-JSON one. */
export function tryJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** "minute", "5 minutes", "30 s": a rate-limit window as people say it (a second either way). */
function describeWindow(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes >= 1 && Math.abs(ms - minutes * 60_000) <= 1000) {
    return minutes === 1 ? "minute" : `${minutes} minutes`;
  }
  return formatSeconds(ms);
}

/**
 * A signal of our own that follows `signal`: every request in flight listens to it (a fleet's
 * history reads are dozens at once), which is no leak, so Node is told not to warn of one
 * (its warning would land on stderr, and in the middle of the UI's frames).
 */
function fanOut(signal: AbortSignal): AbortSignal {
  const own = new AbortController();
  setMaxListeners(0, own.signal);
  if (signal.aborted) own.abort(signal.reason);
  else signal.addEventListener("abort", () => own.abort(signal.reason), { once: true });
  return own.signal;
}
