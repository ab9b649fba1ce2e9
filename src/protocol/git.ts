import { errorMessage } from "./errors.js";
import { pathSegment } from "./ids.js";
import * as z from "./schema.js";
import { recordValue as rec } from "./values.js";

/**
 * Git actions in a session: the one type the CLI, the UI and the client share, the one
 * function that turns an action into its request, and the one reading of any answer.
 *
 * The interface names the paths (POST /api/sessions/{id}/git/clone and …/git/operation) and
 * says bodies and answers are "not shown". The real service documents POST
 * /api/sessions/{id}/clone-repo with {repo_url, branch?} and POST /api/sessions/{id}/git
 * with {operation, args}, operations including push, branch and create-pr (args {title,
 * body, base}). So the bodies follow those documents, the interface's paths are tried first,
 * and the documented path once when they answer 404 or 405.
 */

export type GitAction =
  | { kind: "clone"; repoUrl: string; branch?: string }
  | { kind: "push"; branch?: string }
  | { kind: "branch"; name: string; from?: string }
  | { kind: "pr"; title: string; body?: string; base?: string; head?: string };

export type GitActionKind = GitAction["kind"];

/** The documented operation name of each non-clone action. */
export const GIT_OPERATIONS = { push: "push", branch: "branch", pr: "create-pr" } as const;

export interface GitRequest {
  /** The interface's path first, then the documented one (tried once on 404/405). */
  paths: readonly [string, string];
  body: Record<string, unknown>;
  /** The body for the documented path, when it differs (the flat body of `/git`). */
  fallbackBody?: Record<string, unknown>;
}

/** The operation names of the documented `/git` endpoint's flat body. */
export const FLAT_GIT_OPERATIONS = {
  push: "push",
  branch: "create_branch",
  pr: "create_pr",
} as const;

/** An id as its path segment; one that could leave the segment throws (see ids.ts). */
const seg = pathSegment;

/** Paths of the git endpoints: the interface's and the documented ones. */
export const GIT_PATHS = {
  clone: (id: string) => `/api/sessions/${seg(id)}/git/clone`,
  cloneDocumented: (id: string) => `/api/sessions/${seg(id)}/clone-repo`,
  operation: (id: string) => `/api/sessions/${seg(id)}/git/operation`,
  operationDocumented: (id: string) => `/api/sessions/${seg(id)}/git`,
} as const;

/** Drops undefined and empty optional values, so a body carries only what was given. */
function given(o: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== "") out[k] = v;
  return out;
}

/** The request of an action: where it goes and what it carries. */
export function gitRequest(sessionId: string, action: GitAction): GitRequest {
  switch (action.kind) {
    case "clone":
      return {
        paths: [GIT_PATHS.clone(sessionId), GIT_PATHS.cloneDocumented(sessionId)],
        body: { repo_url: action.repoUrl, ...given({ branch: action.branch }) },
      };
    case "push":
      return operation(sessionId, GIT_OPERATIONS.push, given({ branch: action.branch }), {
        operation: FLAT_GIT_OPERATIONS.push,
        ...given({ branch: action.branch }),
      });
    case "branch":
      return operation(
        sessionId,
        GIT_OPERATIONS.branch,
        { name: action.name, ...given({ from: action.from }) },
        {
          operation: FLAT_GIT_OPERATIONS.branch,
          branch: action.name,
          ...given({ from: action.from }),
        },
      );
    case "pr":
      return operation(
        sessionId,
        GIT_OPERATIONS.pr,
        {
          title: action.title,
          ...given({ body: action.body, base: action.base, head: action.head }),
        },
        {
          operation: FLAT_GIT_OPERATIONS.pr,
          pr_title: action.title,
          ...given({ pr_body: action.body, pr_base: action.base, branch: action.head }),
        },
      );
  }
}

/** `/git/operation` takes {operation, args}; the documented `/git` a flat body. */
function operation(
  sessionId: string,
  op: string,
  args: Record<string, string>,
  flat: Record<string, string>,
): GitRequest {
  return {
    paths: [GIT_PATHS.operation(sessionId), GIT_PATHS.operationDocumented(sessionId)],
    body: { operation: op, args },
    fallbackBody: flat,
  };
}

/** The request body schemas the reference service enforces (the client builds them above). */
/** A string with at least one character. */
const filled = (message?: string) => z.string().check(z.minLength(1, message));

export const CloneRequestSchema = z.object({
  repo_url: filled("repo_url is required"),
  branch: z.optional(filled()),
});
export type CloneRequest = z.infer<typeof CloneRequestSchema>;

export const GitOperationRequestSchema = z.discriminatedUnion("operation", [
  z.object({
    operation: z.literal("push"),
    args: z.optional(z.object({ branch: z.optional(filled()) })),
  }),
  z.object({
    operation: z.literal("branch"),
    args: z.object({
      name: filled("name is required"),
      from: z.optional(filled()),
    }),
  }),
  z.object({
    operation: z.literal("create-pr"),
    args: z.object({
      title: filled("title is required"),
      body: z.optional(z.string()),
      base: z.optional(filled()),
      head: z.optional(filled()),
    }),
  }),
]);
export type GitOperationRequest = z.infer<typeof GitOperationRequestSchema>;

/**
 * Any answer of a git endpoint, read leniently. A 2xx is a success unless the body says
 * `success: false` or `ok: false`; the fields worth showing are looked for at the top level
 * and inside `result`; `body` keeps the answer exactly as sent (for --json).
 */
export interface GitResult {
  ok: boolean;
  /** HTTP status of the answer (202: accepted, runs in the background). */
  status: number;
  /** The service accepted the action without its result (202 or `accepted: true`). */
  accepted: boolean;
  operation: string | null;
  /** Why it failed (ok false), in the service's words. */
  error: string | null;
  output: string | null;
  branch: string | null;
  sha: string | null;
  prUrl: string | null;
  prNumber: number | null;
  /** Clone: where the repository landed, and which one. */
  path: string | null;
  repoUrl: string | null;
  /** The parsed JSON answer as sent, or the raw text when it was not JSON, or null. */
  body: unknown;
}

function firstString(sources: (Record<string, unknown> | null)[], keys: string[]): string | null {
  for (const s of sources) {
    if (!s) continue;
    for (const k of keys) {
      const v = s[k];
      if (typeof v === "string" && v !== "") return v;
    }
  }
  return null;
}

function firstNumber(sources: (Record<string, unknown> | null)[], keys: string[]): number | null {
  for (const s of sources) {
    if (!s) continue;
    for (const k of keys) {
      const v = s[k];
      if (typeof v === "number" && Number.isFinite(v)) return v;
      if (typeof v === "string" && /^\d{1,12}$/.test(v)) return Number(v);
    }
  }
  return null;
}

/** Reads the answer of a git call that came back 2xx. `body` is parsed JSON, text or null. */
export function readGitAnswer(status: number, body: unknown): GitResult {
  const top = rec(body);
  const result = rec(top?.result);
  const pr = rec(top?.pull_request) ?? rec(result?.pull_request);
  const sources = [top, result, pr];
  const ok = !(top?.success === false || top?.ok === false);
  const accepted = status === 202 || top?.accepted === true;
  let output = firstString([top, result], ["output", "stdout", "log"]);
  if (output === null && typeof top?.result === "string") output = top.result;
  if (output === null && typeof body === "string" && body.trim() !== "") output = body;
  const error = ok
    ? null
    : (firstString([top, result], ["error", "message", "stderr"]) ??
      errorMessage(body) ??
      "the service reported the action as not successful");
  return {
    ok,
    status,
    accepted,
    operation: firstString([top], ["operation"]),
    error,
    output,
    // The documented flat answer names created_branch (a new branch) and current_branch.
    branch: firstString([top, result], ["created_branch", "branch", "head", "current_branch"]),
    sha: firstString(sources, ["sha", "commit", "commit_sha"]),
    prUrl: firstString(sources, ["pr_url"]) ?? firstString([pr], ["html_url", "url"]),
    prNumber: firstNumber(sources, ["pr_number", "number"]),
    path: firstString([top, result], ["path"]),
    repoUrl: firstString([top, result], ["repo_url", "repository"]),
    body,
  };
}
