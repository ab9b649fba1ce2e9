/**
 * A subscription to one session's SSE stream that can stay open for days: reconnects with
 * backoff and Last-Event-ID, a heartbeat watchdog instead of undici's body timeout, a flat
 * memory bound per event, and a status a UI can show.
 */
import { performance } from "node:perf_hooks";
import type { Dispatcher } from "undici";
import {
  decodeEvent,
  errorMessage,
  PATHS,
  type SessionEvent,
  unsafeIdReason,
} from "../protocol/index.js";
import { RecentEvents } from "../protocol/sameEvent.js";
import { formatSeconds } from "../text/format.js";
import { keyRedactor, type Redactor } from "../text/redact.js";
import { cutText, sanitizeLine } from "../text/sanitize.js";
import { DEFAULT_MAX_DELAY_MS, httpDate } from "./backoff.js";
import {
  type AgentSessionsError,
  CancelledError,
  MalformedResponseError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
} from "./errors.js";
import { classifyNetworkError, describeFailure, networkFailureOfKind } from "./networkFailure.js";
import { headerValue } from "./rateLimit.js";
import { ReconnectPolicy } from "./reconnectPolicy.js";
import type { RequestBudget } from "./requestBudget.js";
import { errorFromResponse } from "./responseError.js";
import {
  createSseReader,
  lastEventIdHeader,
  nextLastEventId,
  type OversizedEvent,
} from "./sseReader.js";
import { type ConnectionConfig, type StreamOpening, Transport } from "./transport.js";
import { DEFAULT_WATCHDOG, HeartbeatEstimator, SilenceWatchdog } from "./watchdog.js";

export type StreamStatus =
  /** attempt: 0 for the first connection, then the number of the retry. */
  | { state: "connecting"; attempt: number }
  | {
      state: "live";
      since: number;
      /** The server's clock when it opened the stream (its `Date` header, to the second), if it
       * sent a readable one. */
      serverTime?: number;
    }
  | {
      state: "reconnecting";
      attempt: number;
      delayMs: number;
      retryAt: number;
      reason: string;
      /** The connection went silent past the watchdog's bound (not a network error). */
      silent?: boolean;
    }
  /** Final. error is null when the stream ended without a fault (closed, or 204). */
  | { state: "stopped"; reason: string; error: AgentSessionsError | null };

/**
 * What the stream says about the events themselves, besides delivering them:
 * - gap: a connection was lost on a stream that has sent no event id, so nothing can resume
 *   it; events sent between `from` (the last bytes received) and `to` (live again) may be
 *   missing.
 * - duplicates: after a reconnect the server sent again `count` events the client already
 *   had (the same id, name and data, in order; see protocol/sameEvent.ts); they were dropped,
 *   not delivered twice.
 */
export type StreamNotice =
  | { kind: "gap"; from: number; to: number }
  | { kind: "duplicates"; count: number };

export interface SubscribeOptions {
  config: ConnectionConfig;
  sessionId: string;
  /** Resume point: sent as Last-Event-ID on the first request. */
  lastEventId?: string | null;
  /** SSE comment lines (without the colon), e.g. the server's `history-end`. */
  onComment?: (text: string) => void;
  /** Every item, heartbeats, malformed and unknown ones included. */
  onEvent: (ev: SessionEvent) => void;
  /**
   * When given, SSE items go here as they arrived, not decoded (decodeEvent(event, data, id)
   * makes the event onEvent would have had), so a receiver that keeps most items unread does
   * not pay for parsing them. onEvent then gets only what the client itself makes: the
   * `malformed` item standing for an event cut off for its size. `at` is when the bytes
   * carrying the item arrived (the `now` clock, as lastActivityAt).
   */
  onItem?: (event: string | undefined, data: string, id: string | undefined, at: number) => void;
  onStatus?: (s: StreamStatus) => void;
  /** Gaps and dropped duplicates (see StreamNotice); a gap comes just before its "live". */
  onNotice?: (n: StreamNotice) => void;
  /** Most bytes one event may take before it is cut off (default 1 MiB). */
  maxEventBytes?: number;
  /**
   * Backpressure: after each chunk, when this gives a promise (the receiver's output is full),
   * nothing more is read from the socket until it settles; the silence watchdog waits too.
   */
  pace?: () => Promise<void> | null;
  /**
   * First reconnect delay and the floor under every one (default 1000): the server's `retry:`
   * may lengthen it, never shorten it (see reconnectPolicy.ts).
   */
  backoffBaseMs?: number;
  /** Cap of a reconnect delay, Retry-After included (default 60 s). */
  maxDelayMs?: number;
  /**
   * A connection open this long counts as useful even without new events (default 5000); a
   * shorter one without new events is a failure and the backoff grows.
   */
  healthyConnectionMs?: number;
  /** Failed connections in a row before giving up (default Infinity). */
  maxAttempts?: number;
  watchdog?: { floorMs?: number; ceilingMs?: number; initialMs?: number };
  /** How long to wait for response headers (default 30000). */
  headersTimeoutMs?: number;
  random?: () => number;
  /** Wall clock for the published timestamps (since, retryAt, lastActivityAt). */
  now?: () => number;
  /**
   * The key's request budget: every connection attempt waits for a token (status stays
   * "connecting" meanwhile). Default the process's shared one for this key and service.
   */
  budget?: RequestBudget;
  /**
   * The transport to open connections through (the API client's, so requests and streams
   * share one budget and one place where waits are published). Default: one made from
   * `config` (and `budget`).
   */
  transport?: Transport;
}

export interface Subscription {
  readonly status: StreamStatus;
  readonly lastEventId: string | null;
  /** Wall-clock time any byte was last received. */
  readonly lastActivityAt: number | null;
  /** Observed heartbeat interval (longest recent one), null before two heartbeats. */
  readonly heartbeatIntervalMs: number | null;
  /** Current silence bound of the watchdog. */
  readonly watchdogMs: number;
  readonly stats: { events: number; reconnects: number; bytes: number; duplicates: number };
  /** Skip a pending backoff wait (and the request budget's pacing, once). */
  reconnectNow(): void;
  /** Cancel everything: no timer or socket is left behind. */
  close(): void;
  /** The final stopped status. */
  readonly done: Promise<StreamStatus>;
}

export const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;
const DEFAULT_BACKOFF_BASE_MS = 1000;
const DEFAULT_HEADERS_TIMEOUT_MS = 30_000;
const BACKOFF_JITTER = 0.2;
/** How much of an error body is read for its message. */
const ERROR_BODY_LIMIT = 16 * 1024;
const REQUIRED_SCOPE = "sessions:prompt";
/** Recent events kept to recognise a replay (a power of two: the ring index is masked). */
const RECENT_EVENTS = 256;

export function subscribeToSession(opts: SubscribeOptions): Subscription {
  return new EventStreamSubscription(opts);
}

/** How one connection ended. */
type Outcome =
  | { kind: "stop"; reason: string; error: AgentSessionsError | null }
  | {
      kind: "retry";
      reason: string;
      error: AgentSessionsError;
      retryAfterMs: number | null;
      /** The connection delivered new events: the failure count starts over. */
      delivered: boolean;
      /** The server answered with an event stream (200) before this ended. */
      live?: boolean;
      /** Cut by the silence watchdog. */
      silent?: boolean;
    };

/** Why we aborted a live connection ourselves. */
type AbortCause = { kind: "closed" } | { kind: "watchdog"; boundMs: number };

class EventStreamSubscription implements Subscription {
  private _status: StreamStatus = { state: "connecting", attempt: 0 };
  private _lastEventId: string | null;
  private _lastActivityAt: number | null = null;
  private readonly _stats = { events: 0, reconnects: 0, bytes: 0, duplicates: 0 };
  /**
   * The last RECENT_EVENTS events with ids (what a replaying server would send again) and,
   * after a (re)connection, the window in which those are dropped.
   */
  private readonly recent = new RecentEvents(RECENT_EVENTS);
  /**
   * A connection has been live before: the next live one is a reconnection, and a network
   * failure is retried even when it could not be on a first connection.
   */
  private wasLive = false;
  /**
   * Set when a live connection of a stream without ids ended: from when events may be
   * missing (its last bytes). Cleared, with a gap notice, once live again.
   */
  private gapFrom: number | null = null;
  private readonly heartbeats: HeartbeatEstimator;
  private readonly now: () => number;
  private readonly policy: ReconnectPolicy;
  private readonly redactor: Redactor;
  private readonly headersTimeoutMs: number;
  private readonly transport: Transport;
  /** No transport was given: this subscription made its own and closes it when it stops. */
  private readonly ownsTransport: boolean;
  private closed = false;
  private controller: AbortController | null = null;
  private abortCause: AbortCause | null = null;
  private watchdog: SilenceWatchdog | null = null;
  private backoffTimer: NodeJS.Timeout | null = null;
  private wakeBackoff: (() => void) | null = null;
  /** The budget wait of the next connection, which reconnectNow() cuts short. */
  private budgetWait: AbortController | null = null;
  /** reconnectNow() asked: the next connection goes without waiting for the budget. */
  private forceNext = false;
  private resolveDone!: (s: StreamStatus) => void;
  readonly done: Promise<StreamStatus>;

  constructor(private readonly opts: SubscribeOptions) {
    this._lastEventId = opts.lastEventId ?? null;
    this.now = opts.now ?? Date.now;
    this.policy = new ReconnectPolicy({
      baseMs: opts.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS,
      maxMs: opts.maxDelayMs ?? DEFAULT_MAX_DELAY_MS,
      ...(opts.healthyConnectionMs !== undefined ? { healthyMs: opts.healthyConnectionMs } : {}),
      jitter: BACKOFF_JITTER,
      ...(opts.random ? { random: opts.random } : {}),
    });
    this.redactor = keyRedactor(opts.config.apiKey);
    this.ownsTransport = opts.transport === undefined;
    this.transport =
      opts.transport ??
      new Transport({ ...opts.config, ...(opts.budget ? { budget: opts.budget } : {}) });
    this.headersTimeoutMs = opts.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
    this.heartbeats = new HeartbeatEstimator({
      floorMs: opts.watchdog?.floorMs ?? DEFAULT_WATCHDOG.floorMs,
      ceilingMs: opts.watchdog?.ceilingMs ?? DEFAULT_WATCHDOG.ceilingMs,
      initialMs: opts.watchdog?.initialMs ?? DEFAULT_WATCHDOG.initialMs,
    });
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
    // Start on the next tick so a caller can read `status` and attach to `done` first; the
    // first onStatus call still says "connecting".
    queueMicrotask(() => {
      if (this.closed) return;
      this.publish(this._status);
      this.run().catch((e: unknown) => {
        // A bug, not a network condition: end the stream visibly and let it surface.
        if (!this.closed) {
          this.closed = true;
          this.finish({ state: "stopped", reason: `internal error: ${String(e)}`, error: null });
        }
        queueMicrotask(() => {
          throw e;
        });
      });
    });
  }

  get status(): StreamStatus {
    return this._status;
  }
  get lastEventId(): string | null {
    return this._lastEventId;
  }
  get lastActivityAt(): number | null {
    return this._lastActivityAt;
  }
  get heartbeatIntervalMs(): number | null {
    return this.heartbeats.intervalMs;
  }
  get watchdogMs(): number {
    return this.heartbeats.boundMs;
  }
  get stats(): { events: number; reconnects: number; bytes: number; duplicates: number } {
    return { ...this._stats };
  }

  reconnectNow(): void {
    this.forceNext = true;
    this.budgetWait?.abort();
    this.wakeBackoff?.();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.abortCause = { kind: "closed" };
    this.watchdog?.stop();
    this.watchdog = null;
    this.controller?.abort();
    this.controller = null;
    this.wakeBackoff?.();
    this.finish({ state: "stopped", reason: "closed", error: null });
  }

  private publish(s: StreamStatus): void {
    // A reason may quote the server (a detail, a content type): one line, no escapes, no key.
    const status =
      s.state === "reconnecting" || s.state === "stopped"
        ? { ...s, reason: this.clean(s.reason) }
        : s;
    this._status = status;
    if (this.opts.onStatus) callSafely(this.opts.onStatus, status);
  }

  private notice(n: StreamNotice): void {
    if (this.opts.onNotice) callSafely(this.opts.onNotice, n);
  }

  /** After a connection, or at its first new event: report what the window dropped. */
  private endReplay(): void {
    const dropped = this.recent.closeWindow();
    if (dropped > 0) this.notice({ kind: "duplicates", count: dropped });
  }

  /**
   * True when the item is one the client already has: the same id, name and data as one of
   * the recent events, arriving in order in the replay window after a (re)connection. Any
   * other item is new (and the first new one closes the window).
   */
  private isReplayed(event: string | undefined, id: string, data: string): boolean {
    const open = this.recent.windowOpen;
    if (this.recent.isReplay(event, id, data)) {
      this._stats.duplicates++;
      return true;
    }
    if (open) this.endReplay();
    return false;
  }

  /** Server text on its way into a reason or an error message. */
  private clean(text: string): string {
    return cutText(this.redactor.redact(sanitizeLine(text)), 1000);
  }

  /** The final status, published once: a later close() or a second stop says nothing more. */
  private finish(s: Extract<StreamStatus, { state: "stopped" }>): void {
    if (this._status.state === "stopped") return;
    this.closed = true;
    this.publish(s);
    this.resolveDone(this._status);
    // Its connections go with it (a transport given is its owner's to close).
    if (this.ownsTransport) void this.transport.close();
  }

  private async run(): Promise<void> {
    const bad = unsafeIdReason(this.opts.sessionId);
    if (bad !== null) {
      // Never let an id turn into another path (`..`, `/`, `?`): refused before any request.
      const msg = `The session id "${this.opts.sessionId}" cannot be used in a request: ${bad}.`;
      this.finish({ state: "stopped", reason: msg, error: new MalformedResponseError(msg) });
      return;
    }
    const maxAttempts = this.opts.maxAttempts ?? Number.POSITIVE_INFINITY;
    while (!this.closed) {
      const startedAt = performance.now();
      const outcome = await this.connectOnce();
      if (this.closed) return;
      if (outcome.kind === "stop") {
        this.finish({ state: "stopped", reason: outcome.reason, error: outcome.error });
        return;
      }
      // Failed connections in a row; a useful one (new events, or open for a while) resets it.
      const plan = this.policy.next({
        live: outcome.live === true,
        openMs: performance.now() - startedAt,
        progress: outcome.delivered,
        retryAfterMs: outcome.retryAfterMs,
      });
      const failures = plan.failures;
      if (failures >= maxAttempts) {
        const error =
          outcome.error instanceof RateLimitedError
            ? new RateLimitedError(outcome.error.message, failures, outcome.retryAfterMs)
            : outcome.error;
        this.finish({
          state: "stopped",
          reason: `gave up after ${failures} failed attempt${failures === 1 ? "" : "s"}: ${outcome.reason}`,
          error,
        });
        return;
      }
      const delayMs = plan.delayMs;
      const capped =
        plan.cappedFromMs !== null
          ? ` (the server asked for ${formatSeconds(plan.cappedFromMs)}; waiting at most ${formatSeconds(delayMs)})`
          : "";
      this._stats.reconnects++;
      this.publish({
        state: "reconnecting",
        attempt: failures,
        delayMs,
        retryAt: this.now() + delayMs,
        reason: `${outcome.reason}${capped}`,
        ...(outcome.silent ? { silent: true } : {}),
      });
      // onStatus may have closed us.
      if (this.closed) return;
      await this.backoff(delayMs);
      if (this.closed) return;
      this.publish({ state: "connecting", attempt: failures });
    }
  }

  /** A wait that close() and reconnectNow() cut short. Ref'd: a waiting stream is work. */
  private backoff(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        if (this.backoffTimer !== null) clearTimeout(this.backoffTimer);
        this.backoffTimer = null;
        this.wakeBackoff = null;
        resolve();
      };
      this.wakeBackoff = wake;
      this.backoffTimer = setTimeout(wake, ms);
    });
  }

  /**
   * One connection: the event stream's path in the mount the client learned for this service
   * (routes.ts, shared with the API client), else the interface's order; the other form on
   * 404 or 405, or on 401 while the key is known good. What answered is remembered there.
   */
  private async connectOnce(): Promise<Outcome> {
    const routes = this.transport.routes;
    const bare = routes.candidates(PATHS.events(this.opts.sessionId));
    for (let i = 0; i < bare.length; i++) {
      const path = bare[i] as string;
      const outcome = await this.tryPath(path, path, i + 1 < bare.length);
      if (outcome !== "not_found") return outcome;
      if (this.closed) return { kind: "stop", reason: "closed", error: null };
    }
    const tried = bare.join(" and ");
    return {
      kind: "stop",
      reason: `session ${this.opts.sessionId} has no event stream (404 on ${tried})`,
      error: new NotFoundError(
        `Session ${this.opts.sessionId} was not found: its event stream answered 404 on ${bare.length === 1 ? "its path" : "both paths"}.`,
      ),
    };
  }

  /**
   * One request. "not_found" means: try the other path (`more` says there is one; `route` is
   * the path without its query, as the routes know it).
   */
  private async tryPath(
    path: string,
    route: string,
    more: boolean,
  ): Promise<Outcome | "not_found"> {
    const ac = new AbortController();
    this.controller = ac;
    this.abortCause = null;
    const headers: Record<string, string> = {
      accept: "text/event-stream",
      "cache-control": "no-cache",
    };
    const resumeFrom = lastEventIdHeader(this._lastEventId);
    if (resumeFrom !== null) headers["last-event-id"] = resumeFrom;
    // Openings are paced by the key's budget (in the transport); close() aborts the wait,
    // reconnectNow() ends it.
    const force = this.forceNext;
    this.forceNext = false;
    const wait = new AbortController();
    this.budgetWait = wait;
    let opening: StreamOpening;
    try {
      opening = await this.transport.openStream({
        path,
        headers,
        signal: ac.signal,
        headersTimeoutMs: this.headersTimeoutMs,
        force,
        budgetSignal: wait.signal,
      });
    } catch (e) {
      if (this.closed || ac.signal.aborted || e instanceof CancelledError) {
        return { kind: "stop", reason: "closed", error: null };
      }
      return this.networkFailure(e, false);
    } finally {
      this.budgetWait = null;
    }
    if (opening.kind === "rate_limited") {
      const { retryAfterMs, error } = opening;
      return {
        kind: "retry",
        reason: `rate limited (429)${retryAfterMs !== null ? `, retry after ${formatSeconds(retryAfterMs)}` : ""}`,
        error,
        retryAfterMs,
        delivered: false,
      };
    }
    const res = opening;
    if (this.closed) {
      discard(res.body);
      return { kind: "stop", reason: "closed", error: null };
    }
    const status = res.status;
    if (status === 200) {
      const rawType = headerValue(res.headers, "content-type") ?? null;
      if (mediaType(rawType) !== "text/event-stream") {
        discard(res.body);
        const type = rawType === null ? null : this.clean(rawType);
        return {
          kind: "stop",
          reason: `the server answered ${type ? `"${type}"` : "without a content type"} instead of an event stream`,
          error: new MalformedResponseError(
            `Expected an event stream (text/event-stream) but got ${type ? `"${type}"` : "no content type"}.`,
          ),
        };
      }
      this.transport.routes.worked(route);
      return this.readStream(res.body, ac, httpDate(headerValue(res.headers, "date")));
    }
    if (status === 204) {
      discard(res.body);
      return { kind: "stop", reason: "server has no stream for this session (204)", error: null };
    }
    // bodyTimeout is off for streams, so an error body that never ends needs its own bound.
    const bodyTimer = setTimeout(() => ac.abort(), this.headersTimeoutMs);
    bodyTimer.unref();
    const body = await readErrorBody(res.body);
    clearTimeout(bodyTimer);
    if (this.closed) return { kind: "stop", reason: "closed", error: null };
    if (status === 404 || (more && status === 405)) return "not_found";
    // The key is good, so a 401 here is the other mount's web dashboard refusing it.
    if (status === 401 && more && this.transport.routes.keyVerified) return "not_found";
    const quoted = errorMessage(body);
    const serverMessage = quoted === null ? null : this.clean(quoted);
    const error = errorFromResponse({
      label: `GET ${path}`,
      status,
      body: body ?? undefined,
      requiredScope: REQUIRED_SCOPE,
      redact: this.redactor.redact,
      organization: this.transport.organization,
    });
    if (status === 401) {
      const msg = serverMessage ?? "The API key is invalid or expired.";
      return { kind: "stop", reason: `401: ${msg}`, error };
    }
    if (status === 403) {
      return { kind: "stop", reason: `403: ${error.message}`, error };
    }
    const msg = serverMessage ? `HTTP ${status}: ${serverMessage}` : `HTTP ${status}`;
    if (status >= 500 || status === 408) {
      // Read by the transport, as every Retry-After is.
      return {
        kind: "retry",
        reason: msg,
        error,
        retryAfterMs: res.retryAfterMs,
        delivered: false,
      };
    }
    // WHATWG fails the connection on any other status; a redirect is not followed so the key
    // never goes to another origin.
    return { kind: "stop", reason: msg, error };
  }

  private networkFailure(e: unknown, delivered: boolean, live = false): Outcome {
    if (this.closed) return { kind: "stop", reason: "closed", error: null };
    // Opening failures come classified by the transport (the proxy's own included); a body
    // that breaks off is classified here the same way.
    const failure =
      e instanceof NetworkError
        ? e.failure
        : classifyNetworkError(e, new URL(this.opts.config.baseUrl));
    const detail =
      failure.code === "UND_ERR_HEADERS_TIMEOUT"
        ? "no response headers in time"
        : e instanceof NetworkError && failure.summary.startsWith("proxy")
          ? this.clean(e.message.replace(/^GET \S+: /, ""))
          : this.clean(describeFailure(failure));
    const error = new NetworkError(`The event stream connection failed: ${detail}.`, failure);
    // A stream that never connected stops at once when trying again cannot help (a name that
    // does not resolve, a bad certificate, nothing listening on loopback). Once it has been
    // live, a failure is a server restarting or a network blip: keep reconnecting.
    if (!failure.retryable && !this.wasLive) {
      return { kind: "stop", reason: `connection failed: ${detail}`, error };
    }
    return {
      kind: "retry",
      reason: `connection failed: ${detail}`,
      error,
      retryAfterMs: null,
      delivered,
      live,
    };
  }

  private async readStream(
    body: Dispatcher.ResponseData["body"],
    ac: AbortController,
    serverTime: number | null,
  ): Promise<Outcome> {
    const liveAt = this.now();
    if (this.gapFrom !== null) {
      // Told before the "live" it belongs to, so a receiver can mark that reconnect as a gap.
      const from = this.gapFrom;
      this.gapFrom = null;
      this.notice({ kind: "gap", from, to: liveAt });
    }
    this.publish({ state: "live", since: liveAt, ...(serverTime !== null ? { serverTime } : {}) });
    if (this.closed) {
      discard(body);
      return { kind: "stop", reason: "closed", error: null };
    }
    const reconnection = this.wasLive;
    this.wasLive = true;
    if (reconnection || this.opts.lastEventId) this.recent.openWindow();
    const outcome = await this.readBody(body, ac);
    this.endReplay();
    // A stream that has given no id cannot be resumed: whatever it sends until it is live
    // again may be lost, from the last bytes it received on.
    if (outcome.kind === "retry" && this._lastEventId === null && !this.closed) {
      this.gapFrom = Math.max(this._lastActivityAt ?? liveAt, liveAt);
    }
    return outcome;
  }

  private async readBody(
    body: Dispatcher.ResponseData["body"],
    ac: AbortController,
  ): Promise<Outcome> {
    const maxEventBytes = this.opts.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
    const onItem = this.opts.onItem;
    // Whether the connection brought something new (see ReconnectPolicy): events that are not
    // heartbeats, and, when they carry ids, a last event id that moved on. A server replaying
    // the same items on every connection makes no progress.
    let events = 0;
    let idLess = false;
    const resumedFrom = this._lastEventId;
    const progress = () => events > 0 && (idLess || this._lastEventId !== resumedFrom);
    this.heartbeats.connectionStarted();
    const reader = createSseReader({
      maxEventBytes,
      onMessage: (m) => {
        const id = m.id;
        if (id !== undefined && id !== "" && this.isReplayed(m.event, id, m.data)) return;
        this._lastEventId = nextLastEventId(this._lastEventId, id);
        // By name: a heartbeat with a bad payload still shows the server is alive on schedule.
        if (m.event === "heartbeat") {
          if (this.heartbeats.beat(performance.now())) this.watchdog?.reschedule();
        } else {
          events++;
          if (m.id === undefined) idLess = true;
        }
        if (onItem) {
          if (this.closed) return;
          this._stats.events++;
          callSafely4(onItem, m.event, m.data, m.id, this._lastActivityAt ?? this.now());
        } else this.deliver(decodeEvent(m.event, m.data, m.id));
      },
      onId: (id) => {
        this._lastEventId = nextLastEventId(this._lastEventId, id);
      },
      onRetry: (ms) => {
        this.policy.serverRetry(ms);
      },
      ...(this.opts.onComment
        ? {
            onComment: (text: string) => {
              if (!this.closed) callSafely(this.opts.onComment as (t: string) => void, text.trim());
            },
          }
        : {}),
    });
    const watchdog = new SilenceWatchdog(
      () => this.heartbeats.boundMs,
      () => {
        this.abortCause = { kind: "watchdog", boundMs: this.heartbeats.boundMs };
        ac.abort();
      },
    );
    this.watchdog = watchdog;
    watchdog.start();
    let cut: OversizedEvent | null = null;
    try {
      for await (const chunk of body) {
        const bytes = chunk as Buffer;
        watchdog.activity();
        this._lastActivityAt = this.now();
        this._stats.bytes += bytes.byteLength;
        cut = reader.push(bytes);
        // onEvent may have closed us; stop reading at once.
        if (this.closed || cut) break;
        const room = this.opts.pace?.();
        if (room) {
          watchdog.stop();
          await room;
          if (this.closed) break;
          watchdog.start();
        }
      }
      if (!cut && !this.closed) reader.end();
    } catch (e) {
      const cause = this.abortCause as AbortCause | null;
      if (this.closed || cause?.kind === "closed") {
        return { kind: "stop", reason: "closed", error: null };
      }
      if (cause?.kind === "watchdog") {
        const reason = `no data for ${formatSeconds(cause.boundMs)} (watchdog)`;
        return {
          kind: "retry",
          reason,
          error: new NetworkError(
            `The event stream went silent: ${reason}.`,
            networkFailureOfKind("timed_out", "the stream went silent"),
          ),
          retryAfterMs: null,
          delivered: progress(),
          live: true,
          silent: true,
        };
      }
      return this.networkFailure(e, progress(), true);
    } finally {
      watchdog.stop();
      if (this.watchdog === watchdog) this.watchdog = null;
      // Leaving the loop early (cut, close) must not leave the socket open.
      if (!body.destroyed) body.destroy();
    }
    if (this.closed) return { kind: "stop", reason: "closed", error: null };
    if (cut) {
      const reason = `event larger than ${maxEventBytes} bytes cut off; reconnecting`;
      // Resume after the cut item when its id came before the flood, or a replaying server
      // would send it again on every reconnect.
      if (cut.id !== undefined) this._lastEventId = nextLastEventId(this._lastEventId, cut.id);
      this.deliver({
        kind: "malformed",
        event: cut.event ?? "oversized",
        id: cut.id ? cut.id : null,
        raw: cut.head,
        error: reason,
      });
      return {
        kind: "retry",
        reason,
        error: new MalformedResponseError(
          `An event larger than ${maxEventBytes} bytes was cut off.`,
        ),
        retryAfterMs: null,
        delivered: progress(),
        live: true,
      };
    }
    return {
      kind: "retry",
      reason: "stream ended by the server",
      error: new NetworkError(
        "The event stream kept ending.",
        networkFailureOfKind("reset", "the stream ended"),
      ),
      retryAfterMs: null,
      delivered: progress(),
      live: true,
    };
  }

  private deliver(ev: SessionEvent): void {
    if (this.closed) return;
    this._stats.events++;
    callSafely(this.opts.onEvent, ev);
  }
}

/**
 * A throwing callback is a bug in the caller: surface it as an uncaught error instead of
 * letting it masquerade as a network failure inside the stream loop.
 */
function callSafely<T>(fn: (arg: T) => void, arg: T): void {
  try {
    fn(arg);
  } catch (e) {
    queueMicrotask(() => {
      throw e;
    });
  }
}

/** callSafely for the arguments of onItem (no array or closure per item). */
function callSafely4<A, B, C, D>(fn: (a: A, b: B, c: C, d: D) => void, a: A, b: B, c: C, d: D) {
  try {
    fn(a, b, c, d);
  } catch (e) {
    queueMicrotask(() => {
      throw e;
    });
  }
}

/**
 * Drops a response body that will not be read. undici turns destroying an unread body into a
 * "Request aborted" error event; with nobody listening, that would crash the process.
 */
function discard(body: Dispatcher.ResponseData["body"]): void {
  body.on("error", () => {});
  body.destroy();
}

function mediaType(contentType: string | null): string | null {
  if (contentType === null) return null;
  return (contentType.split(";")[0] ?? "").trim().toLowerCase();
}

/** Up to ERROR_BODY_LIMIT bytes of an error body as JSON (or null); the rest is dropped. */
async function readErrorBody(body: Dispatcher.ResponseData["body"]): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const b = chunk as Buffer;
      parts.push(b);
      size += b.byteLength;
      if (size >= ERROR_BODY_LIMIT) break;
    }
  } catch {
    return null;
  } finally {
    if (!body.destroyed) body.destroy();
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString("utf8"));
  } catch {
    return null;
  }
}
