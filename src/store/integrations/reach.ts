import {
  type CodeHostingApp,
  findRepo,
  type IntegrationsReport,
  installationFor,
  type Part,
  type ReachableRepo,
  reachableRepos,
  repoFullName,
} from "../../client/integrations.js";
import { sessionRepo } from "../../protocol/sessionRecord.js";
import { sanitizeLine } from "../../text/sanitize.js";

/**
 * What the code hosting app reaches, where a git action needs it: the repositories to offer
 * when cloning, a repository's default branch for the push and pull-request confirmations,
 * and what to say when git fails on a repository no installation covers.
 */

/** The reachable repositories whose name holds `typed` (case-insensitive), prefix matches first. */
export function repoSuggestions(
  report: IntegrationsReport | null,
  typed: string,
  max: number,
): ReachableRepo[] {
  if (report?.app.state !== "ok") return [];
  const q = typed.trim().toLowerCase();
  const all = reachableRepos(report.app.data);
  if (q === "") return all.slice(0, max);
  const starts: ReachableRepo[] = [];
  const holds: ReachableRepo[] = [];
  for (const r of all) {
    const name = r.repo.full_name.toLowerCase();
    if (name.startsWith(q) || name.split("/")[1]?.startsWith(q)) starts.push(r);
    else if (name.includes(q)) holds.push(r);
    if (starts.length >= max) break;
  }
  return [...starts, ...holds].slice(0, max);
}

/** Why there are no suggestions to offer (or how the list is short), or null. */
export function suggestionsNote(
  report: IntegrationsReport | null,
  loading: boolean,
): string | null {
  if (report === null)
    return loading ? "reading the repositories the code hosting app reaches…" : null;
  const app = report.app;
  if (app.state === "forbidden") return `no suggestions: ${sanitizeLine(app.message)}`;
  if (app.state === "absent") return "no suggestions: this service has no code hosting app";
  if (app.state === "error") return `no suggestions: ${sanitizeLine(app.message)}`;
  if (app.data.installations.length === 0) return "the code hosting app is not installed";
  const cut = app.data.installations.some((g) => g.cut !== null);
  if (reachableRepos(app.data).length === 0) return "the code hosting app reaches no repositories";
  return cut ? "the repository list was cut at its bound: type the name if it is not here" : null;
}

/** A repository's default branch, as the code hosting app reports it, or null. */
export function repoDefaultBranch(
  report: IntegrationsReport | null,
  repoRef: string | null | undefined,
): string | null {
  if (!repoRef || report?.app.state !== "ok") return null;
  return findRepo(report.app.data, repoRef)?.repo.default_branch ?? null;
}

/**
 * The repository a git action needs the code hosting app to reach, or null: the one a clone
 * names, the session's for a push or a pull request; a new branch stays in the workspace.
 */
export function gitActionRepo(
  action: { kind: string; repoUrl?: string },
  session: object | null | undefined,
): string | null {
  if (action.kind === "clone") return action.repoUrl ?? null;
  if (action.kind !== "push" && action.kind !== "pr") return null;
  return session ? sessionRepo(session) : null;
}

/**
 * What to say when git fails on a repository no installation of the app reaches: that, and
 * where access is granted (the installation's configure URL, shown, never opened). Null when
 * the repository is reached, or nothing is known.
 */
export function unreachableHint(
  part: Part<CodeHostingApp> | null | undefined,
  repoRef: string | null | undefined,
): string | null {
  if (!repoRef || part?.state !== "ok") return null;
  const app = part.data;
  if (app.reposError !== null) return null;
  const name = repoFullName(repoRef);
  if (name === null || findRepo(app, name) !== null) return null;
  if (app.installations.some((g) => g.cut !== null)) return null;
  const inst = installationFor(app, name);
  const shown = sanitizeLine(name);
  if (!inst?.configure_url) {
    return `No installation of the code hosting app reaches ${shown}: install the app from the service's web app (it needs a browser)`;
  }
  return `No installation of the code hosting app reaches ${shown}: grant it access at ${sanitizeLine(inst.configure_url)} (${sanitizeLine(inst.account_login ?? inst.id)}; open it in a browser)`;
}
