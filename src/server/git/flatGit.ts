import { FLAT_GIT_OPERATIONS, type GitOperationRequest } from "../../protocol/git.js";
import type { OperationAnswer } from "./gitWorkspaces.js";

/**
 * The documented `/git` endpoint's flat form: a body like `{operation: "create_pr",
 * pr_title, pr_body, pr_base, branch}` and an answer of flat fields (`success`,
 * `operation`, `output`, `error`, `current_branch`, `created_branch`, `pr_url`,
 * `pr_number`). A body with `args` is the `{operation, args}` form and is not read here.
 */

type Body = Record<string, unknown>;

/** True when the body is the flat form. */
export function isFlatGitBody(body: unknown): body is Body {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return false;
  const b = body as Body;
  return b.args === undefined && Object.values(FLAT_GIT_OPERATIONS).includes(b.operation as "push");
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** The flat body as the {operation, args} request the workspaces run, or a reason why not. */
export function flatToRequest(b: Body): GitOperationRequest | string {
  switch (b.operation) {
    case FLAT_GIT_OPERATIONS.push: {
      const branch = str(b.branch);
      return { operation: "push", args: branch ? { branch } : {} };
    }
    case FLAT_GIT_OPERATIONS.branch: {
      const name = str(b.branch);
      if (!name) return "branch is required for create_branch";
      const from = str(b.from);
      return { operation: "branch", args: { name, ...(from ? { from } : {}) } };
    }
    default: {
      const title = str(b.pr_title);
      if (!title) return "pr_title is required for create_pr";
      const body = typeof b.pr_body === "string" ? b.pr_body : undefined;
      const base = str(b.pr_base);
      const head = str(b.branch);
      return {
        operation: "create-pr",
        args: {
          title,
          ...(body !== undefined ? { body } : {}),
          ...(base ? { base } : {}),
          ...(head ? { head } : {}),
        },
      };
    }
  }
}

/**
 * The workspaces' answer in the flat fields, with `result` kept too: `{operation: "push"}`
 * is a valid body of both forms, so its answer must read right in both.
 */
export function flatAnswer(flatOperation: string, a: OperationAnswer): Record<string, unknown> {
  return {
    success: a.success,
    operation: flatOperation,
    output: a.result.output,
    error: null,
    current_branch: a.result.branch,
    ...(a.operation === "branch" ? { created_branch: a.result.branch } : {}),
    repo_full_name: a.result.repository,
    ...(a.result.pr_url !== undefined
      ? { pr_url: a.result.pr_url, pr_number: a.result.pr_number }
      : {}),
    result: a.result,
  };
}

/** The flat answer of an operation that did not succeed: 200 with success false. */
export function flatFailure(flatOperation: string, error: string): Record<string, unknown> {
  return { success: false, operation: flatOperation, output: null, error };
}
