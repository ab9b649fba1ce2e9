import { pathSegment } from "./ids.js";
import { LAUNCH_LIMIT_MAX, LAUNCH_LIMIT_MIN, LAUNCH_LIMIT_RULE } from "./launchLimit.js";
import * as z from "./schema.js";
import type { Role } from "./scopes.js";

/**
 * The integrations: the code hosting app (its installations and the repositories they
 * reach), the user's own code hosting token, the issue tracker and the chat tool. The
 * interface names them, their scopes and the roles that configure them, and leaves paths and
 * shapes "not shown"; the real service documents them (docs/cloud-api/integrations/), and
 * these are its paths and fields. Parsing is lenient: unknown fields are kept, optional ones
 * may be missing or null, only a wrong type where the docs promise one is an error.
 */

/**
 * The documented paths. The issue tracker and the chat tool are documented under both
 * `/api/v1/…` and `/api/cloud/v1/…` (which one a service serves is learned: routes.ts); the
 * code hosting app's under `/api/github-app/…` only.
 */
export const INTEGRATION_PATHS = {
  installations: "/api/github-app/installations",
  repos: "/api/github-app/repos",
  installationRepos: (id: string) => `/api/github-app/installations/${pathSegment(id)}/repos`,
  userTokenStatus: "/api/github-app/user-token-status",
  linearIntegrations: "/api/v1/linear/integrations",
  linearIntegration: "/api/v1/linear/integration",
  slackIntegration: "/api/v1/slack/integration",
} as const;

/** The documented `per_page` range of the repository listings. */
export const REPOS_PER_PAGE_MAX = 100;

/** The roles that configure integrations (the interface: "Org admins and owners set up integrations"). */
export const CONFIGURING_ROLES: readonly Role[] = ["owner", "admin"];

const text = z.optional(z.nullable(z.string()));
const flag = z.optional(z.nullable(z.boolean()));
const count = z.optional(z.nullable(z.number()));
/** An id a service may send as a string or a number; kept as a string. */
const anyId = z.pipe(
  z.union([z.string(), z.number()]),
  z.transform((v) => String(v)),
);

/** One installation of the code hosting app (the list's item and the repos list's `installation`). */
export const InstallationSchema = z.looseObject({
  id: anyId,
  installation_id: z.optional(z.nullable(z.union([z.number(), z.string()]))),
  account_type: text,
  account_login: text,
  avatar_url: text,
  created_at: text,
  configure_url: text,
  is_personal: flag,
});
export type Installation = z.infer<typeof InstallationSchema>;

/** GET /api/github-app/installations. */
export const InstallationListSchema = z.looseObject({
  installations: z.array(InstallationSchema),
  total: count,
});

/** A repository an installation reaches. */
export const RepoSchema = z.looseObject({
  id: z.optional(z.nullable(z.union([z.number(), z.string()]))),
  full_name: z.string(),
  private: flag,
  default_branch: text,
  language: text,
  html_url: text,
});
export type Repo = z.infer<typeof RepoSchema>;

/** GET /api/github-app/repos: the repositories of every installation, grouped. */
export const ReposListSchema = z.looseObject({
  installations: z.array(
    z.looseObject({
      installation: InstallationSchema,
      repos: z._default(z.array(RepoSchema), []),
      total_count: count,
    }),
  ),
});

/** GET /api/github-app/installations/{id}/repos: one page of one installation's repositories. */
export const InstallationReposPageSchema = z.looseObject({
  repos: z.array(RepoSchema),
  total_count: count,
  page: count,
  per_page: count,
  has_next: flag,
});

/** GET /api/github-app/user-token-status: never the token itself. */
export const UserTokenStatusSchema = z.looseObject({
  connected: z.boolean(),
  username: text,
  /** Documented as a comma-separated string; a list is read too. */
  scopes: z.optional(z.nullable(z.union([z.string(), z.array(z.string())]))),
  has_installation: flag,
});
export type UserTokenStatus = z.infer<typeof UserTokenStatusSchema>;

/** One issue tracker integration (a bot). */
export const LinearIntegrationSchema = z.looseObject({
  id: z.optional(z.nullable(anyId)),
  connection_type: text,
  name: text,
  workspace_name: text,
  actor_name: text,
  default_github_repo: text,
  default_template: text,
  default_agent: text,
  rate_limit_per_hour: count,
  enabled: flag,
  webhook_active: flag,
});
export type LinearIntegration = z.infer<typeof LinearIntegrationSchema>;

/** GET /api/v1/linear/integrations. */
export const LinearIntegrationListSchema = z.looseObject({
  integrations: z.array(LinearIntegrationSchema),
});

/** A health issue: documented as an array entry; a string or an object with a message. */
const HealthIssueSchema = z.union([
  z.string(),
  z.looseObject({ message: text, detail: text, code: text }),
]);

/** GET /api/v1/slack/integration. */
export const SlackIntegrationSchema = z.looseObject({
  connected: z.boolean(),
  connection_type: text,
  team_name: text,
  default_github_repo: text,
  default_agent: text,
  rate_limit_per_hour: count,
  enabled: flag,
  service_account_health: z.optional(
    z.nullable(
      z.looseObject({
        healthy: flag,
        issues: z.optional(z.nullable(z.array(HealthIssueSchema))),
      }),
    ),
  ),
});
export type SlackIntegration = z.infer<typeof SlackIntegrationSchema>;

/** A health issue's words, whichever shape it came in. */
export function healthIssueText(issue: z.infer<typeof HealthIssueSchema>): string {
  if (typeof issue === "string") return issue;
  return issue.message ?? issue.detail ?? issue.code ?? JSON.stringify(issue);
}

/** The user token's scopes as a list (documented as "repo,read:user,read:org"). */
export function tokenScopes(s: UserTokenStatus): string[] {
  const v = s.scopes;
  if (v === undefined || v === null) return [];
  const list = Array.isArray(v) ? v : v.split(",");
  return list.map((x) => x.trim()).filter((x) => x !== "");
}

/**
 * POST /api/v1/linear/integration: a partial update. Only what this client lets a terminal
 * change is named; the service keeps every other setting.
 */
export interface LinearUpdate {
  rate_limit_per_hour?: number;
  /** `owner/repo`, or "" to clear. */
  default_github_repo?: string;
}

/** What the service answers to an update (documented: the integration as it now is). */
export const LinearUpdateAnswerSchema = z.looseObject({
  connected: flag,
  workspace_name: text,
  default_github_repo: text,
  default_agent: text,
  rate_limit_per_hour: count,
});

const REPO_NAME = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;

/**
 * Why an update cannot be sent, or null when it can: the one check the CLI, the UI and the
 * reference service share (a limit outside 1–100, a repository that is not `owner/repo`,
 * nothing to change).
 */
export function linearUpdateProblem(u: LinearUpdate): { field: string; message: string } | null {
  const limit = u.rate_limit_per_hour;
  const repo = u.default_github_repo;
  if (limit === undefined && repo === undefined) {
    return { field: "body", message: "nothing to change: give a launch limit or a repository" };
  }
  if (
    limit !== undefined &&
    !(Number.isInteger(limit) && limit >= LAUNCH_LIMIT_MIN && limit <= LAUNCH_LIMIT_MAX)
  ) {
    return {
      field: "rate_limit_per_hour",
      message: `the launch limit must be ${LAUNCH_LIMIT_RULE}`,
    };
  }
  if (repo !== undefined && repo !== "" && !REPO_NAME.test(repo)) {
    return {
      field: "default_github_repo",
      message: "the default repository must be owner/repo (or empty to clear it)",
    };
  }
  return null;
}
