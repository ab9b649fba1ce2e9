import {
  type Approval,
  type ApprovalList,
  ApprovalSchema,
  noteProblem,
  parseApprovals,
  type ResolveAction,
  resolveBody,
} from "../protocol/approvals.js";
import { type GitAction, type GitResult, gitRequest, readGitAnswer } from "../protocol/git.js";
import {
  type DiffReading,
  type GitReviewOperation,
  gitReviewRequest,
  type LogReading,
  readDiffAnswer,
  readLogAnswer,
  readStatusAnswer,
  type StatusReading,
} from "../protocol/gitReview.js";
import { parseSessionHistory, type SessionHistory } from "../protocol/history.js";
import { errorMessage, PATHS, unsafeIdReason } from "../protocol/index.js";
import {
  INTEGRATION_PATHS,
  type Installation,
  InstallationListSchema,
  InstallationReposPageSchema,
  type LinearIntegration,
  LinearIntegrationListSchema,
  type LinearUpdate,
  LinearUpdateAnswerSchema,
  ReposListSchema,
  type SlackIntegration,
  SlackIntegrationSchema,
  type UserTokenStatus,
  UserTokenStatusSchema,
} from "../protocol/integrations.js";
import {
  type CreateRequest,
  createProblem,
  IDEMPOTENCY_HEADER,
  type LaunchAnswer,
  LaunchAnswerSchema,
  type LaunchRequest,
  launchProblem,
  renameProblem,
} from "../protocol/launch.js";
import {
  type CancelAnswer,
  CancelAnswerSchema,
  isAlreadyRunning,
  itemsOfJson,
  type LifecycleAction,
  type LifecycleAnswer,
  LifecycleAnswerSchema,
  type PromptItem,
  promptBody,
  promptProblem,
} from "../protocol/prompt.js";
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
import {
  type ConnectAnswer,
  type FileContent,
  type FileEntry,
  type FileListing,
  REVIEW_PATHS,
  type RewindAnswer,
  readConnectAnswer,
  readFileAnswer,
  readFileListing,
  readRewindAnswer,
  readSearchAnswer,
  readWorkspaceState,
  type SearchResult,
  type WorkspaceState,
} from "../protocol/review.js";
import * as z from "../protocol/schema.js";
import { REQUIRED_SCOPES } from "../protocol/scopes.js";
import {
  TERMINAL_PATHS,
  type WsCapability,
  type WsTokenAnswer,
  WsTokenAnswerSchema,
} from "../protocol/terminal.js";
import { recordValue } from "../protocol/values.js";
import {
  AgentSessionsError,
  HttpError,
  InvalidKeyError,
  MalformedResponseError,
  NotFoundError,
  UsageError,
} from "./errors.js";
import { type PagingEnd, walkSessionPages } from "./paging.js";
import { type PromptEnd, readPromptStream } from "./promptAnswer.js";
import type { RateLimitTracker } from "./rateLimit.js";
import type { RequestBudget } from "./requestBudget.js";
import { errorFromResponse } from "./responseError.js";
import { type Endpoint, isMountedRoute } from "./routes.js";
import {
  type HttpAnswer,
  type HttpMethod,
  Transport,
  type TransportOptions,
  tryJson,
} from "./transport.js";

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
  /** Where the first page starts (a page token from an earlier page); the start when absent. */
  from?: PageToken;
}

/** How a prompt went: its answer's end, or the service's "already running". */
export type PromptOutcome =
  | PromptEnd
  | { kind: "already_running"; status: number; body: unknown }
  /** A 2xx JSON answer that is neither items nor "already running" (202: accepted). */
  | { kind: "accepted"; status: number; body: unknown };

export type { PagingEnd };

/**
 * A review operation's answer (status, diff, log): the git answer as read for every git call
 * (`ok` false when the body says the operation did not succeed) and what its result holds,
 * read leniently (protocol/gitReview.ts; `kind: "unusable"` when it holds nothing usable).
 */
export interface GitReview<R> {
  answer: GitResult;
  reading: R;
}

type CallName = keyof typeof REQUIRED_SCOPES;

interface Call<T> {
  name: CallName;
  method: HttpMethod;
  path: string;
  query?: URLSearchParams;
  body?: unknown;
  /** Headers of this call only (an Idempotency-Key). */
  headers?: Record<string, string>;
  /** Safe to send again on a lost answer: it carries an Idempotency-Key (transport.ts). */
  repeatable?: boolean;
  parse: (json: unknown) => T;
  /**
   * Instead of parse: any 2xx answer is handed over as it came (status, JSON or text), for
   * endpoints whose answer shape is open (git).
   */
  parseAny?: (status: number, body: unknown) => T;
  /**
   * A refusal (a non-2xx answer) that is an outcome of the call rather than an error: its
   * result, or undefined for the usual typed error (prompt: "already running" as a 409).
   */
  refusal?: (status: number, body: unknown) => T | undefined;
  /** The answer may be an event stream: a streamed 2xx answer is handed here unread. */
  stream?: (res: HttpAnswer & { stream: NonNullable<HttpAnswer["stream"]> }) => Promise<T>;
  /** Tried once with the same request when the path answers 404 or 405. */
  fallbackPath?: string;
  /**
   * The endpoint path and fallbackPath are two paths of: which one answers is learned per
   * base URL (routes.ts), so later calls go straight to it.
   */
  endpoint?: Endpoint;
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
  /** The verify asked for a 401 of a mounted route, while one is in flight (#keyIsGood). */
  #keyCheck: Promise<boolean> | null = null;

  constructor(opts: ApiClientOptions) {
    const { transport, ...rest } = opts;
    this.transport = transport ?? new Transport(rest);
  }

  /**
   * Let go of the client's connections (its transport's keep-alive dispatcher) so the process
   * can exit promptly; what is still in flight finishes first. Every command and the UI close
   * the client they made when they are done with it.
   */
  close(): Promise<void> {
    return this.transport.close();
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

  /** Every page of GET /api/sessions, through the one paging loop (walkSessionPages). */
  sessionPages(
    p: SessionPagesParams = {},
    signal?: AbortSignal,
  ): AsyncGenerator<SessionPage, PagingEnd, undefined> {
    const { maxPages, from, ...params } = p;
    return walkSessionPages(
      (q: ListSessionsParams, sig?: AbortSignal) => this.listSessions(q, sig),
      params,
      { ...(maxPages !== undefined ? { maxPages } : {}), ...(from ? { from } : {}) },
      signal,
    );
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
   * interface's path first; on 404 or 405 the documented path once; which one answered is
   * remembered for the base URL, so later actions go straight there. Any 2xx answer comes
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
        endpoint: action.kind === "clone" ? "clone" : "git",
        body: req.body,
        ...(req.fallbackBody ? { fallbackBody: req.fallbackBody } : {}),
        parse: (json) => readGitAnswer(200, json),
        parseAny: readGitAnswer,
        notFound: `Session ${id} was not found`,
      },
      signal,
    );
  }

  /** `git status` in the session: the changed files (protocol/gitReview.ts readStatusAnswer). */
  gitStatus(id: string, signal?: AbortSignal): Promise<GitReview<StatusReading>> {
    return this.#review(id, "status", readStatusAnswer, signal);
  }

  /**
   * `git diff` in the session: its patch as sent (or assembled from per-file patches), to be
   * indexed by protocol/unifiedDiff.ts. The text is not sanitized here: `git apply` needs it
   * byte for byte; what is drawn or printed to a terminal is sanitized and redacted there.
   */
  gitDiff(id: string, signal?: AbortSignal): Promise<GitReview<DiffReading>> {
    return this.#review(id, "diff", readDiffAnswer, signal);
  }

  /** `git log` in the session: its commits, newest first as sent. */
  gitLog(id: string, signal?: AbortSignal): Promise<GitReview<LogReading>> {
    return this.#review(id, "log", readLogAnswer, signal);
  }

  /**
   * A review operation through the git endpoint's two paths, learned per base URL like every
   * git action (the `endpoint: "git"` of #call), with the documented `{operation, args}` body.
   */
  #review<R>(
    id: string,
    operation: GitReviewOperation,
    read: (body: unknown) => R,
    signal?: AbortSignal,
  ): Promise<GitReview<R>> {
    const req = gitReviewRequest(checkedId(id), operation);
    const both = (status: number, body: unknown): GitReview<R> => {
      const answer = readGitAnswer(status, body);
      return { answer, reading: read(body) };
    };
    return this.#call(
      {
        name: "gitOperation",
        method: "POST",
        path: req.paths[0],
        fallbackPath: req.paths[1],
        endpoint: "git",
        body: req.body,
        parse: (json) => both(200, json),
        parseAny: both,
        notFound: `Session ${id} was not found`,
      },
      signal,
    );
  }

  /** GET /api/sessions/{id}/files?path=&recursive=: the entries at a path (sessions:read). */
  async listFiles(
    id: string,
    opts: { path?: string; recursive?: boolean } = {},
    signal?: AbortSignal,
  ): Promise<FileEntry[]> {
    return (await this.listFilesBounded(id, opts, signal)).files;
  }

  /** listFiles, and whether the service cut the listing at its bound. */
  listFilesBounded(
    id: string,
    opts: { path?: string; recursive?: boolean } = {},
    signal?: AbortSignal,
  ): Promise<FileListing> {
    const query = new URLSearchParams({ path: opts.path ?? "/" });
    if (opts.recursive) query.set("recursive", "true");
    return this.#call(
      {
        name: "listFiles",
        method: "GET",
        path: idPath(id, REVIEW_PATHS.files),
        query,
        parse: readFileListing,
        notFound: `Session ${id} or its path ${opts.path ?? "/"} was not found`,
      },
      signal,
    );
  }

  /** GET /api/sessions/{id}/file?path=: one file's bytes (sessions:read). */
  readFile(id: string, path: string, signal?: AbortSignal): Promise<FileContent> {
    return this.#call(
      {
        name: "readFile",
        method: "GET",
        path: idPath(id, REVIEW_PATHS.file),
        query: new URLSearchParams({ path }),
        parse: (json) => readFileAnswer(json, path),
        // A server may send the file itself rather than JSON: its text is the content.
        parseAny: (_status, body) => readFileAnswer(body, path),
        notFound: `No file ${path} in session ${id}`,
      },
      signal,
    );
  }

  /** GET /api/sessions/{id}/files/search?query=&path=: files and lines that match. */
  searchFiles(
    id: string,
    query: string,
    opts: { path?: string } = {},
    signal?: AbortSignal,
  ): Promise<SearchResult[]> {
    const q = new URLSearchParams({ query });
    if (opts.path !== undefined) q.set("path", opts.path);
    return this.#call(
      {
        name: "searchFiles",
        method: "GET",
        path: idPath(id, REVIEW_PATHS.search),
        query: q,
        parse: readSearchAnswer,
        notFound: `Session ${id} was not found`,
      },
      signal,
    );
  }

  /** GET /api/sessions/{id}/workspace-state: detected ports and running processes. */
  workspaceState(id: string, signal?: AbortSignal): Promise<WorkspaceState> {
    return this.#call(
      {
        name: "workspaceState",
        method: "GET",
        path: idPath(id, REVIEW_PATHS.workspaceState),
        parse: readWorkspaceState,
        notFound: `Session ${id} was not found`,
      },
      signal,
    );
  }

  /**
   * POST /api/sessions/{id}/prompt/rewind: undo the last prompt and its file changes; the
   * files the service reverted (sessions:write). Never retried but on 429, like every POST.
   */
  rewindPrompt(id: string, signal?: AbortSignal): Promise<RewindAnswer> {
    return this.#call(
      {
        name: "rewindPrompt",
        method: "POST",
        path: idPath(id, REVIEW_PATHS.rewind),
        parse: readRewindAnswer,
        notFound: `Session ${id} was not found`,
      },
      signal,
    );
  }

  /**
   * POST /api/v2/sessions/{id}/connect?port=: a preview URL for a port the sandbox listens
   * on. Its `v2` family goes to the mount learned for it, like every family (routes.ts).
   */
  connectPort(id: string, port: number, signal?: AbortSignal): Promise<ConnectAnswer> {
    if (!(Number.isInteger(port) && port >= 1 && port <= 65535)) {
      return Promise.reject(new UsageError(`Port ${port} is not a port number (1-65535).`));
    }
    return this.#call(
      {
        name: "connectPort",
        method: "POST",
        path: idPath(id, REVIEW_PATHS.connect),
        query: new URLSearchParams({ port: String(port) }),
        parse: readConnectAnswer,
        notFound: `Session ${id} was not found`,
      },
      signal,
    );
  }

  // Integrations (protocol/integrations.ts): one documented endpoint each. The issue
  // tracker's and the chat tool's go to the mount learned for them (routes.ts).

  /** GET /api/github-app/installations. */
  githubInstallations(signal?: AbortSignal): Promise<Installation[]> {
    return this.#call(
      {
        name: "githubInstallations",
        method: "GET",
        path: INTEGRATION_PATHS.installations,
        parse: (json) => InstallationListSchema.parse(json).installations,
        notFound: "The service has no code hosting app installations endpoint",
      },
      signal,
    );
  }

  /** GET /api/github-app/repos?per_page=N: every installation with its first repositories. */
  githubRepos(perPage: number, signal?: AbortSignal) {
    return this.#call(
      {
        name: "githubRepos",
        method: "GET",
        path: INTEGRATION_PATHS.repos,
        query: new URLSearchParams({ per_page: String(perPage) }),
        parse: (json) => ReposListSchema.parse(json).installations,
        notFound: "The service has no code hosting app repositories endpoint",
      },
      signal,
    );
  }

  /** GET /api/github-app/installations/{id}/repos?page=&per_page=: one page of one installation's. */
  githubInstallationRepos(id: string, page: number, perPage: number, signal?: AbortSignal) {
    const bad = unsafeIdReason(id);
    if (bad !== null) {
      throw new MalformedResponseError(
        `The installation id "${id}" cannot be used in a request: ${bad}.`,
      );
    }
    return this.#call(
      {
        name: "githubRepos",
        method: "GET",
        path: INTEGRATION_PATHS.installationRepos(id),
        query: new URLSearchParams({ page: String(page), per_page: String(perPage) }),
        parse: (json) => InstallationReposPageSchema.parse(json),
        notFound: `Installation ${id} was not found`,
      },
      signal,
    );
  }

  /** GET /api/github-app/user-token-status: whether the user's own token is connected. */
  githubUserToken(signal?: AbortSignal): Promise<UserTokenStatus> {
    return this.#call(
      {
        name: "githubUserToken",
        method: "GET",
        path: INTEGRATION_PATHS.userTokenStatus,
        parse: (json) => UserTokenStatusSchema.parse(json),
        notFound: "The service has no user token status endpoint",
      },
      signal,
    );
  }

  /** GET /api/v1/linear/integrations: every issue tracker bot of the organization. */
  linearIntegrations(signal?: AbortSignal): Promise<LinearIntegration[]> {
    return this.#call(
      {
        name: "linearIntegrations",
        method: "GET",
        path: INTEGRATION_PATHS.linearIntegrations,
        parse: (json) => LinearIntegrationListSchema.parse(json).integrations,
        notFound: "No issue tracker integration is set up",
      },
      signal,
    );
  }

  /** GET /api/v1/slack/integration. */
  slackIntegration(signal?: AbortSignal): Promise<SlackIntegration> {
    return this.#call(
      {
        name: "slackIntegration",
        method: "GET",
        path: INTEGRATION_PATHS.slackIntegration,
        parse: (json) => SlackIntegrationSchema.parse(json),
        notFound: "No chat tool integration is set up",
      },
      signal,
    );
  }

  /** POST /api/v1/linear/integration: a partial update (only the fields given change). */
  updateLinearIntegration(update: LinearUpdate, signal?: AbortSignal) {
    return this.#call(
      {
        name: "updateLinearIntegration",
        method: "POST",
        path: INTEGRATION_PATHS.linearIntegration,
        body: update,
        parse: (json) => LinearUpdateAnswerSchema.parse(json),
        notFound: "No issue tracker integration is set up to change",
      },
      signal,
    );
  }

  /**
   * POST /api/sessions/{id}/prompt {prompt}: sends a prompt and reads its answer, a
   * `text/event-stream` of `{type, content}` items handed to onItem as they arrive (a JSON
   * answer of one item or a list is read the same way). "Already running", in any of its
   * forms (`202 {status: "already_running"}`, a 409 saying it: protocol/prompt.ts), comes
   * back as such. Like every POST it is retried only on 429 (the service refused before
   * acting): a prompt that may have reached the service is never sent twice.
   */
  async sendPrompt(
    id: string,
    prompt: string,
    opts: {
      onItem: (item: PromptItem) => void;
      signal?: AbortSignal;
      idleMs?: number;
      /** Backpressure on the streamed answer (see ReadPromptOptions.pace). */
      pace?: () => Promise<void> | null;
      /** Return once the service accepted the prompt: its streamed answer is not read. */
      acceptOnly?: boolean;
    },
  ): Promise<PromptOutcome> {
    const bad = promptProblem(prompt);
    if (bad !== null) throw new UsageError(`Cannot send the prompt: ${bad}.`);
    const fromItems = (items: PromptItem[]): PromptEnd => {
      for (const [n, item] of items.entries()) {
        opts.onItem(item);
        if (item.type === "done") return { kind: "done", items: n + 1 };
        if (item.type === "error") return { kind: "error", items: n + 1, message: item.content };
      }
      return { kind: "cut", items: items.length, reason: "the service's answer did not say done" };
    };
    return this.#call<PromptOutcome>(
      {
        name: "sendPrompt",
        method: "POST",
        path: idPath(id, PATHS.prompt),
        body: promptBody(prompt),
        parse: () => {
          throw new MalformedResponseError("unreachable");
        },
        refusal: (status, body) =>
          isAlreadyRunning(status, body) ? { kind: "already_running", status, body } : undefined,
        parseAny: (status, body) => {
          if (isAlreadyRunning(status, body)) return { kind: "already_running", status, body };
          const items = itemsOfJson(body);
          if (items !== null) return fromItems(items);
          if (status === 202) return { kind: "accepted", status, body };
          throw new MalformedResponseError(
            `POST ${PATHS.prompt(id)} answered HTTP ${status} with neither an event stream nor prompt items`,
          );
        },
        stream: async (res) => {
          if (opts.acceptOnly) {
            res.stream.destroy();
            return { kind: "accepted", status: res.status, body: null };
          }
          return readPromptStream(res.stream, {
            onItem: opts.onItem,
            ...(opts.signal ? { signal: opts.signal } : {}),
            ...(opts.idleMs !== undefined ? { idleMs: opts.idleMs } : {}),
            ...(opts.pace ? { pace: opts.pace } : {}),
          });
        },
        notFound: `Session ${id} was not found`,
      },
      opts.signal,
    );
  }

  /** POST /api/sessions/{id}/prompt/cancel: `{session_id, cancelled}`. */
  cancelPrompt(id: string, signal?: AbortSignal): Promise<CancelAnswer> {
    return this.#call(
      {
        name: "cancelPrompt",
        method: "POST",
        path: idPath(id, PATHS.promptCancel),
        parse: (json) => CancelAnswerSchema.parse(json),
        notFound: `Session ${id} was not found`,
      },
      signal,
    );
  }

  /**
   * GET /api/sessions/{id}/approvals: the session's approval requests, newest first, read up
   * to a bound, with the count of all the answer held (protocol/approvals.ts).
   */
  listApprovals(id: string, signal?: AbortSignal): Promise<ApprovalList> {
    return this.#call(
      {
        name: "listApprovals",
        method: "GET",
        path: idPath(id, PATHS.approvals),
        parse: parseApprovals,
        notFound: `Session ${id} was not found`,
      },
      signal,
    );
  }

  /**
   * POST /api/sessions/{id}/approvals/{approval_id}/resolve {action, note?}: the resolved
   * approval. A note over 512 characters or an approval id that cannot be a path segment is
   * refused before anything is sent. 403 (role), 404 (gone) and 409 (already resolved) come
   * back as the usual typed errors; see store/approvalActions.ts for the fresh read after 409.
   */
  resolveApproval(
    id: string,
    approvalId: string,
    action: ResolveAction,
    note?: string,
    signal?: AbortSignal,
  ): Promise<Approval> {
    const bad = noteProblem(note);
    if (bad !== null) return Promise.reject(new UsageError(`Cannot send the decision: ${bad}.`));
    let path: string;
    try {
      path = PATHS.resolveApproval(checkedId(id), checkedApprovalId(approvalId));
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#call(
      {
        name: "resolveApproval",
        method: "POST",
        path,
        body: resolveBody(action, note),
        parse: (json) => ApprovalSchema.parse(json),
        notFound: `Approval ${approvalId} of session ${id} was not found`,
      },
      signal,
    );
  }

  /**
   * POST /api/sessions/{id}/pause|resume|start: the documented answer (every field optional).
   * 400 (wrong state), 409 (a prompt runs), 410 (gone) and 503 (still provisioning) are the
   * usual typed errors with the service's words; a 503 is not retried here (a POST), the
   * user is told to try again.
   */
  lifecycle(id: string, action: LifecycleAction, signal?: AbortSignal): Promise<LifecycleAnswer> {
    return this.#call(
      {
        name: action,
        method: "POST",
        path: idPath(id, (sid) => PATHS.lifecycle(sid, action)),
        parse: (json) => LifecycleAnswerSchema.parse(json ?? {}),
        parseAny: (_status, body) =>
          LifecycleAnswerSchema.parse(body !== null && typeof body === "object" ? body : {}),
        notFound: `Session ${id} was not found`,
      },
      signal,
    );
  }

  /**
   * POST /api/sessions/{id}/ws-token {capability}: a short-lived token (5 minutes, documented)
   * for one WebSocket of one session. 404 (unknown session), 409 ("Session is not active")
   * and 403 (the capability's scope) are the usual typed errors.
   */
  wsToken(id: string, capability: WsCapability, signal?: AbortSignal): Promise<WsTokenAnswer> {
    return this.#call(
      {
        name: "wsToken",
        method: "POST",
        path: idPath(id, TERMINAL_PATHS.wsToken),
        body: { capability },
        parse: (json) => WsTokenAnswerSchema.parse(json),
        notFound: `Session ${id} was not found`,
      },
      signal,
    );
  }

  /** The session terminal's path, under the mount the session routes answered (routes.ts). */
  terminalPath(id: string): string {
    const path = idPath(id, TERMINAL_PATHS.terminal);
    return this.transport.routes.candidates(path)[0] ?? path;
  }

  pause(id: string, signal?: AbortSignal): Promise<LifecycleAnswer> {
    return this.lifecycle(id, "pause", signal);
  }

  resume(id: string, signal?: AbortSignal): Promise<LifecycleAnswer> {
    return this.lifecycle(id, "resume", signal);
  }

  start(id: string, signal?: AbortSignal): Promise<LifecycleAnswer> {
    return this.lifecycle(id, "start", signal);
  }

  // Starting work (protocol/launch.ts): each request is checked against the documented
  // schema before anything is sent; a bad one is a UsageError and nothing leaves.

  /**
   * POST /api/v0/sessions/launch: a session and its first prompt in one call, answered 201
   * `{id, state: "creating", message}`. It carries the Idempotency-Key given (one per user
   * intent: the caller keeps it to try the same launch again), so an answer lost to a
   * timeout, a reset connection or a 5xx is asked for again with the same key, as a GET is
   * retried, and the service answers with the session it made the first time.
   */
  async launch(
    req: LaunchRequest,
    opts: { idempotencyKey: string; signal?: AbortSignal },
  ): Promise<LaunchAnswer> {
    const bad = launchProblem(req);
    if (bad !== null) throw new UsageError(`Cannot launch: ${bad}.`);
    return this.#call(
      {
        name: "launchSession",
        method: "POST",
        path: PATHS.launch,
        body: req,
        ...idempotent(opts.idempotencyKey),
        parse: (json) => LaunchAnswerSchema.parse(json),
        notFound: "The service has no launch endpoint",
      },
      opts.signal,
    );
  }

  /** POST /api/sessions: a session without a prompt (201 with the session), idempotent as launch. */
  async createSession(
    req: CreateRequest,
    opts: { idempotencyKey: string; signal?: AbortSignal },
  ): Promise<Session> {
    const bad = createProblem(req);
    if (bad !== null) throw new UsageError(`Cannot create: ${bad}.`);
    return this.#call(
      {
        name: "createSession",
        method: "POST",
        path: PATHS.sessions,
        body: req,
        ...idempotent(opts.idempotencyKey),
        parse: (json) => SessionSchema.parse(unwrapSession(json)),
      },
      opts.signal,
    );
  }

  /** PATCH /api/sessions/{id}/name {name}: the updated session (at least its id and name). */
  renameSession(id: string, name: string, signal?: AbortSignal): Promise<Session> {
    const bad = renameProblem(name);
    if (bad !== null) return Promise.reject(new UsageError(`Cannot rename: ${bad}.`));
    let path: string;
    try {
      path = idPath(id, PATHS.sessionName);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#call(
      {
        name: "renameSession",
        method: "PATCH",
        path,
        body: { name },
        parse: (json) => SessionSchema.parse({ id, ...(unwrapSession(json) as object) }),
        notFound: `Session ${id} was not found`,
      },
      signal,
    );
  }

  /**
   * DELETE /api/sessions/{id}: destroys the session and its sandbox, irreversibly. Answered
   * 204 (delete.mdx) or 200 with `{id, destroyed_at, message}` (the v0 page); either is done.
   */
  destroySession(id: string, signal?: AbortSignal): Promise<{ message: string | null }> {
    let path: string;
    try {
      path = idPath(id, PATHS.session);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#call(
      {
        name: "destroySession",
        method: "DELETE",
        path,
        parse: () => ({ message: null }),
        parseAny: (_status, body) => ({
          message:
            body !== null &&
            typeof body === "object" &&
            typeof (body as { message?: unknown }).message === "string"
              ? (body as { message: string }).message
              : null,
        }),
        notFound: `Session ${id} was not found (or was destroyed already)`,
      },
      signal,
    );
  }

  /**
   * One call. A route goes to the mount known for its family (routes.ts); when that answers
   * 404 or 405, or 401 while the key is good (verify answered 200 in this process, or does
   * now), the other mount's form is tried, and what answered is remembered. A call with a
   * documented fallback path (git) tries it after the first path in the same mount, in the
   * order learned for the endpoint; once one answered in this run the other is not tried.
   */
  async #call<T>(call: Call<T>, signal?: AbortSignal): Promise<T> {
    const routes = this.transport.routes;
    const endpoint = call.endpoint;
    let alts: { path: string; body: unknown; form: 0 | 1 }[] = [
      { path: call.path, body: call.body, form: 0 },
    ];
    if (call.fallbackPath !== undefined) {
      alts.push({ path: call.fallbackPath, body: call.fallbackBody ?? call.body, form: 1 });
      const learned = endpoint === undefined ? undefined : routes.formOf(endpoint);
      if (learned === 1) alts.reverse();
      if (endpoint !== undefined && routes.isSettled(endpoint)) alts = alts.slice(0, 1);
    }
    const learnedForm = endpoint !== undefined && routes.formOf(endpoint) !== undefined;
    const ok = (status: number) =>
      call.anyNon200IsInvalidKey ? status === 200 : status >= 200 && status < 300;
    const missing = (status: number) => status === 404 || status === 405;
    const answered = (path: string, form: 0 | 1) => {
      routes.worked(path);
      if (endpoint !== undefined && alts.length > 1) routes.formWorked(endpoint, form);
    };
    let first: HttpAnswer | null = null;
    // Whether the other mount is worth a try: decided by the first answer.
    let probe: boolean | null = null;
    for (const otherMount of [false, true]) {
      if (otherMount && !probe) break;
      let last: HttpAnswer | null = null;
      for (const alt of alts) {
        const path = routes.candidates(alt.path)[otherMount ? 1 : 0];
        if (path === undefined) break;
        // The endpoint's other path: after a missing route (any 404 while nothing is known
        // of the endpoint; a route the service does not serve once one path answered before).
        if (last !== null && !(learnedForm ? routeMissing(last) : missing(last.status))) break;
        const res = await this.transport.request({
          method: call.method,
          path,
          ...(call.query ? { query: call.query } : {}),
          ...(alt.body !== undefined ? { body: alt.body } : {}),
          ...(call.headers ? { headers: call.headers } : {}),
          ...(call.repeatable ? { repeatable: true } : {}),
          ...(signal ? { signal } : {}),
          ...(call.stream ? { stream: true } : {}),
        });
        first ??= res;
        last = res;
        if (ok(res.status)) {
          answered(path, alt.form);
          const streamed = res.stream;
          if (streamed && call.stream) return call.stream({ ...res, stream: streamed });
          return this.#parseOk(call, res);
        }
        // Worth the other mount: a route this service does not serve, or the 401 of a web
        // dashboard (the key is good, so the 401 is not about it).
        probe ??=
          routeMissing(res) ||
          (res.status === 401 && isMountedRoute(path) && (await this.#keyIsGood(signal)));
        if (missing(res.status)) continue;
        if (res.status === 401 && probe) break;
        // A refusal by a route that exists (a scope, a body, a state) confirms its mount.
        if (ROUTE_EXISTS.has(res.status)) answered(path, alt.form);
        const outcome = call.refusal?.(res.status, tryJson(res.text));
        if (outcome !== undefined) return outcome;
        throw this.#errorFor(call, otherMount && res.status === 401 ? (first as HttpAnswer) : res);
      }
    }
    // Every form missing: the first answer says more (its path is the first tried).
    throw this.#errorFor(call, first as HttpAnswer);
  }

  /**
   * Whether the key is good: known from this process, or verify asked now. Calls made side by
   * side (a command reading several integrations at once) share one verify: one request
   * against the service's burst, not one each.
   */
  #keyIsGood(signal?: AbortSignal): Promise<boolean> {
    const routes = this.transport.routes;
    if (routes.keyVerified) return Promise.resolve(true);
    this.#keyCheck ??= this.verify(signal)
      .then(
        () => routes.keyVerified,
        () => false,
      )
      .finally(() => {
        this.#keyCheck = null;
      });
    return this.#keyCheck;
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
      baseUrl: this.transport.baseUrl,
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

/** An approval id from a server, checked like a session id before it enters a path. */
function checkedApprovalId(id: string): string {
  const bad = unsafeIdReason(id);
  if (bad !== null) {
    throw new MalformedResponseError(
      `The approval id "${id}" cannot be used in a request: ${bad}.`,
    );
  }
  return id;
}

function idPath(id: string, build: (id: string) => string): string {
  return build(checkedId(id));
}

/** A creating POST made safe to send again: its Idempotency-Key (protocol/launch.ts). */
function idempotent(key: string): { headers: Record<string, string>; repeatable: true } {
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new UsageError("An Idempotency-Key must be 1 to 255 visible ASCII characters.");
  }
  return { headers: { [IDEMPOTENCY_HEADER]: key }, repeatable: true };
}

/** GET /api/sessions/{id} shape is "not shown": accept the record itself or {session: record}. */
function unwrapSession(json: unknown): unknown {
  const o = recordValue(json);
  if (o && o.session_id === undefined && o.id === undefined && typeof o.session === "object") {
    return o.session;
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
