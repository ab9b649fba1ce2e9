import type {
  Installation,
  LinearIntegration,
  Repo,
  SlackIntegration,
  UserTokenStatus,
} from "../protocol/integrations.js";
import { REPOS_PER_PAGE_MAX } from "../protocol/integrations.js";
import type { ApiClient } from "./apiClient.js";
import { AgentSessionsError, HttpError, MissingScopeError, NotFoundError } from "./errors.js";

/**
 * What the service can reach, read in four independent parts: the code hosting app (its
 * installations and their repositories), the user's own token, the issue tracker and the
 * chat tool. One part failing never hides another: each ends as present, absent (404: not set
 * up, or no such integration on this service), forbidden (403, naming the scope) or failed.
 */

export type Part<T> =
  | { state: "ok"; data: T }
  /** 404 or 405: not set up here, or this service has no such integration. */
  | { state: "absent"; message: string }
  | { state: "forbidden"; message: string; scope: string | null; hint: string }
  | { state: "error"; message: string; hint: string | null; code: string | null };

/** One installation with the repositories it reaches, as far as they were read. */
export interface InstallationRepos {
  installation: Installation;
  repos: Repo[];
  /** How many the service says it reaches (null: not said). */
  total: number | null;
  /** Why the list stops short of `total` (a bound, a failed page), or null when whole. */
  cut: string | null;
}

export interface CodeHostingApp {
  installations: InstallationRepos[];
  /** Set when the repositories could not be listed at all (the installations still are). */
  reposError: string | null;
}

export interface IntegrationsReport {
  app: Part<CodeHostingApp>;
  token: Part<UserTokenStatus>;
  issueTracker: Part<LinearIntegration[]>;
  chat: Part<SlackIntegration>;
}

export type IntegrationsApi = Pick<
  ApiClient,
  | "githubInstallations"
  | "githubRepos"
  | "githubInstallationRepos"
  | "githubUserToken"
  | "linearIntegrations"
  | "slackIntegration"
>;

/** Repositories read per installation at most; past it the list says it was cut. */
export const MAX_REPOS_PER_INSTALLATION = 1000;

/**
 * Installations whose lists are read past the first answer, at most: a service listing
 * thousands of installations costs a bounded number of requests, and the rest say so.
 */
export const MAX_INSTALLATIONS_PAGED = 10;

/** A failed call as a part: absent, forbidden or an error, by what the failure was. */
export function failedPart<T>(e: unknown): Part<T> {
  if (e instanceof NotFoundError) return { state: "absent", message: e.message };
  if (e instanceof HttpError && e.status === 405) return { state: "absent", message: e.message };
  if (e instanceof MissingScopeError) {
    return { state: "forbidden", message: e.message, scope: e.requiredScope, hint: e.hint };
  }
  if (e instanceof AgentSessionsError) {
    return { state: "error", message: e.message, hint: e.hint || null, code: e.code };
  }
  return {
    state: "error",
    message: e instanceof Error ? e.message : String(e),
    hint: null,
    code: null,
  };
}

async function part<T>(p: Promise<T>): Promise<Part<T>> {
  try {
    return { state: "ok", data: await p };
  } catch (e) {
    return failedPart<T>(e);
  }
}

function nonNegative(v: unknown): number | null {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : null;
}

/**
 * The rest of one installation's repositories, page by page after the first `have`, until
 * the service says there are no more, a page brings nothing new, or the bound is reached.
 */
async function morePages(
  api: Pick<IntegrationsApi, "githubInstallationRepos">,
  group: InstallationRepos,
  maxRepos: number,
  signal?: AbortSignal,
): Promise<void> {
  const seen = new Set(group.repos.map((r) => r.full_name));
  const perPage = REPOS_PER_PAGE_MAX;
  // The first answer's repositories are the first pages when they filled whole pages of this
  // size; otherwise reading starts over at page 1 (repeats are dropped).
  const have = group.repos.length;
  let page = have > 0 && have % perPage === 0 ? have / perPage + 1 : 1;
  const maxPages = Math.ceil(maxRepos / perPage) + 1;
  for (let n = 0; n < maxPages; n++) {
    if (group.total !== null && group.repos.length >= group.total) return;
    if (group.repos.length >= maxRepos) {
      group.repos = group.repos.slice(0, maxRepos);
      group.cut = `stopped at this client's limit of ${maxRepos} repositories per installation`;
      return;
    }
    let got: Awaited<ReturnType<IntegrationsApi["githubInstallationRepos"]>>;
    try {
      got = await api.githubInstallationRepos(group.installation.id, page, perPage, signal);
    } catch (e) {
      group.cut = `the next page could not be read: ${e instanceof Error ? e.message : String(e)}`;
      return;
    }
    let added = 0;
    for (const r of got.repos) {
      if (seen.has(r.full_name)) continue;
      seen.add(r.full_name);
      group.repos.push(r);
      added++;
    }
    group.total ??= nonNegative(got.total_count);
    if (got.has_next === false) return;
    if (added === 0) {
      if (group.total !== null && group.repos.length < group.total) {
        group.cut = "the service sent no new repositories on the next page";
      }
      return;
    }
    page++;
  }
  group.cut = `stopped at this client's limit of ${maxRepos} repositories per installation`;
}

/** The code hosting app: its installations, each with the repositories it reaches. */
export async function readCodeHostingApp(
  api: Pick<IntegrationsApi, "githubInstallations" | "githubRepos" | "githubInstallationRepos">,
  opts: { signal?: AbortSignal; maxReposPerInstallation?: number } = {},
): Promise<Part<CodeHostingApp>> {
  return readApp(api, opts.maxReposPerInstallation ?? MAX_REPOS_PER_INSTALLATION, opts.signal);
}

async function readApp(
  api: Pick<IntegrationsApi, "githubInstallations" | "githubRepos" | "githubInstallationRepos">,
  maxRepos: number,
  signal?: AbortSignal,
): Promise<Part<CodeHostingApp>> {
  const [listed, repos] = await Promise.all([
    part(api.githubInstallations(signal)),
    part(api.githubRepos(REPOS_PER_PAGE_MAX, signal)),
  ]);
  if (listed.state !== "ok" && repos.state !== "ok") return listed as Part<CodeHostingApp>;
  const groups = new Map<string, InstallationRepos>();
  if (repos.state === "ok") {
    for (const g of repos.data) {
      const total = nonNegative(g.total_count);
      groups.set(g.installation.id, {
        installation: g.installation,
        repos: [...g.repos],
        total,
        cut: null,
      });
    }
  }
  const installations: InstallationRepos[] = [];
  const order =
    listed.state === "ok" ? listed.data : [...groups.values()].map((g) => g.installation);
  for (const inst of order) {
    const g = groups.get(inst.id);
    installations.push(
      g ? { ...g, installation: inst } : { installation: inst, repos: [], total: null, cut: null },
    );
  }
  let paged = 0;
  for (const g of installations) {
    if (g.total !== null && g.repos.length < g.total) {
      if (paged++ < MAX_INSTALLATIONS_PAGED) await morePages(api, g, maxRepos, signal);
      else {
        g.cut = `not read past the first page: only ${MAX_INSTALLATIONS_PAGED} installations' lists are read further`;
      }
    }
    if (g.repos.length > maxRepos) {
      g.repos = g.repos.slice(0, maxRepos);
      g.cut = `stopped at this client's limit of ${maxRepos} repositories per installation`;
    }
  }
  const reposError =
    repos.state === "ok"
      ? null
      : repos.state === "absent"
        ? "this service does not list the repositories the app reaches"
        : repos.message;
  return { state: "ok", data: { installations, reposError } };
}

/** Every part, read at once; never throws. */
export async function readIntegrations(
  api: IntegrationsApi,
  opts: { signal?: AbortSignal; maxReposPerInstallation?: number } = {},
): Promise<IntegrationsReport> {
  const { signal } = opts;
  const maxRepos = opts.maxReposPerInstallation ?? MAX_REPOS_PER_INSTALLATION;
  const [app, token, issueTracker, chat] = await Promise.all([
    readApp(api, maxRepos, signal),
    part(api.githubUserToken(signal)),
    part(api.linearIntegrations(signal)),
    part(api.slackIntegration(signal)),
  ]);
  return { app, token, issueTracker, chat };
}

/** A repository the app reaches, with the installation that reaches it. */
export interface ReachableRepo {
  repo: Repo;
  installation: Installation;
}

/** Every repository the app reaches, in the order the service gave them. */
export function reachableRepos(app: CodeHostingApp): ReachableRepo[] {
  const out: ReachableRepo[] = [];
  for (const g of app.installations) {
    for (const repo of g.repos) out.push({ repo, installation: g.installation });
  }
  return out;
}

/**
 * `owner/repo` out of what a user types or a session names: `owner/repo`, an https or ssh URL
 * of it, with or without `.git`. Null when it names no repository.
 */
export function repoFullName(ref: string): string | null {
  const s = ref
    .trim()
    .replace(/\/+$/, "")
    .replace(/\.git$/, "");
  const m = /(?:^|[/:])([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+)$/.exec(s);
  return m?.[1] ?? null;
}

/** The reachable repository a reference names (case-insensitive, as code hosts compare names). */
export function findRepo(app: CodeHostingApp, ref: string): ReachableRepo | null {
  const name = repoFullName(ref)?.toLowerCase();
  if (!name) return null;
  return reachableRepos(app).find((r) => r.repo.full_name.toLowerCase() === name) ?? null;
}

/**
 * Where to grant the app access to a repository no installation reaches: the installation of
 * the repository's owner, else the organization's, else any with a configure URL.
 */
export function installationFor(app: CodeHostingApp, ref: string): Installation | null {
  const owner = repoFullName(ref)?.split("/")[0]?.toLowerCase() ?? null;
  const all = app.installations.map((g) => g.installation).filter((i) => i.configure_url);
  return (
    all.find((i) => owner !== null && i.account_login?.toLowerCase() === owner) ??
    all.find((i) => i.is_personal === false) ??
    all[0] ??
    null
  );
}
