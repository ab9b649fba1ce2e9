import type {
  CodeHostingApp,
  InstallationRepos,
  IntegrationsReport,
  Part,
} from "../../client/integrations.js";
import {
  healthIssueText,
  type Installation,
  type LinearIntegration,
  type Repo,
  type SlackIntegration,
  tokenScopes,
  type UserTokenStatus,
} from "../../protocol/integrations.js";
import { sanitizeLine } from "../../text/sanitize.js";

/**
 * The integrations in words, once, for the headless command and the UI's view alike: each
 * part's summary, its problem when it has one, and the warnings worth a header. Every server
 * string is sanitized onto one line here; URLs are shown as text, never followed.
 */

const s = (v: string | null | undefined): string => (v ? sanitizeLine(v) : "");

export const PART_TITLES: Record<keyof IntegrationsReport, string> = {
  app: "code hosting app",
  token: "your code hosting token",
  issueTracker: "issue tracker",
  chat: "chat tool",
};

/** Why a part shows nothing: absent, forbidden (with the scope), or failed. Null when present. */
export function partProblem(p: Part<unknown>): string | null {
  switch (p.state) {
    case "ok":
      return null;
    case "absent":
      return `not set up on this service (${s(p.message)})`;
    case "forbidden":
      return `not allowed for this key: ${s(p.message)}${p.scope && !p.message.includes(p.scope) ? ` (needs ${s(p.scope)})` : ""}`;
    case "error":
      return `could not be read: ${s(p.message)}`;
  }
}

export function installationTitle(i: Installation): string {
  const kind = i.is_personal ? "personal" : s(i.account_type) || "installation";
  return `${s(i.account_login) || s(i.id)} (${kind})`;
}

/** How many repositories an installation reaches, and whether the list is whole. */
export function reposCount(g: InstallationRepos): string {
  const n = g.repos.length;
  if (n === 0 && (g.total === null || g.total === 0)) return "no repositories";
  const total = g.total !== null && g.total !== n ? ` of ${g.total}` : "";
  return `${n}${total} repositor${n === 1 && !total ? "y" : "ies"}${g.cut ? ` (list cut: ${s(g.cut)})` : ""}`;
}

export function repoLine(r: Repo): string {
  const vis = r.private === true ? "private" : r.private === false ? "public" : "";
  const branch = r.default_branch ? `default branch ${s(r.default_branch)}` : "";
  return [s(r.full_name), vis, branch].filter((x) => x !== "").join("  ");
}

export function tokenLine(t: UserTokenStatus): string {
  if (!t.connected) {
    return `disconnected${t.has_installation === false ? "; no installation of the app for you either" : ""}`;
  }
  const scopes = tokenScopes(t).map(s);
  return `connected${t.username ? ` as ${s(t.username)}` : ""}${scopes.length > 0 ? ` (${scopes.join(", ")})` : ""}`;
}

function limitText(n: number | null | undefined): string | null {
  return typeof n === "number" ? `${n} launch${n === 1 ? "" : "es"} per hour` : null;
}

/** One issue tracker bot: name, workspace, state, hourly launch limit, defaults. */
export function issueTrackerLine(li: LinearIntegration): string {
  const name = s(li.name) || s(li.actor_name) || s(li.id) || "integration";
  const where = [s(li.workspace_name), s(li.connection_type)].filter((x) => x !== "").join(", ");
  const parts = [
    li.enabled === false ? "disabled" : li.enabled === true ? "enabled" : null,
    li.webhook_active === false ? "webhook inactive" : null,
    limitText(li.rate_limit_per_hour),
    li.default_github_repo ? `default repository ${s(li.default_github_repo)}` : null,
    li.default_agent ? `agent ${s(li.default_agent)}` : null,
  ].filter((x): x is string => x !== null);
  return `${name}${where ? ` (${where})` : ""}: ${parts.join(", ") || "no settings shown"}`;
}

export function chatLine(c: SlackIntegration): string {
  if (!c.connected) return "not connected";
  const where = [s(c.team_name), s(c.connection_type)].filter((x) => x !== "").join(", ");
  const parts = [
    c.enabled === false ? "disabled" : c.enabled === true ? "enabled" : null,
    limitText(c.rate_limit_per_hour),
    c.default_github_repo ? `default repository ${s(c.default_github_repo)}` : null,
    c.default_agent ? `agent ${s(c.default_agent)}` : null,
  ].filter((x): x is string => x !== null);
  return `${where || "connected"}: ${parts.join(", ") || "no settings shown"}`;
}

/** The chat tool's service account health issues (sanitized), empty when healthy or unsaid. */
export function chatHealthIssues(c: SlackIntegration): string[] {
  const h = c.service_account_health;
  if (!h) return [];
  const issues = (h.issues ?? []).map((i) => s(healthIssueText(i)));
  if (h.healthy === false && issues.length === 0) return ["the service says it is unhealthy"];
  return issues;
}

/**
 * What deserves a warning wherever the user looks: a disconnected token, an unhealthy chat
 * tool service account. Empty when all is well or unknown.
 */
export function integrationWarnings(r: IntegrationsReport): string[] {
  const out: string[] = [];
  if (r.token.state === "ok" && !r.token.data.connected) {
    out.push(
      "your code hosting token is disconnected: connect it in the service's web app (it needs a browser)",
    );
  }
  if (r.chat.state === "ok" && r.chat.data.connected) {
    const issues = chatHealthIssues(r.chat.data);
    if (issues.length > 0) {
      out.push(`the chat tool's service account is unhealthy: ${issues.join("; ")}`);
    }
  }
  return out;
}

/** Every installation's lines: title, configure URL, repositories (at most `maxRepos` each). */
export function appLines(app: CodeHostingApp, maxRepos = Number.POSITIVE_INFINITY): string[] {
  const lines: string[] = [];
  if (app.installations.length === 0) {
    lines.push("no installations: install the app from the service's web app (it needs a browser)");
  }
  for (const g of app.installations) {
    lines.push(`${installationTitle(g.installation)}: ${reposCount(g)}`);
    if (g.installation.configure_url) {
      lines.push(`  configure: ${s(g.installation.configure_url)}`);
    }
    const shown = g.repos.slice(0, maxRepos);
    for (const r of shown) lines.push(`  ${repoLine(r)}`);
    if (g.repos.length > shown.length) lines.push(`  … ${g.repos.length - shown.length} more`);
  }
  if (app.reposError) lines.push(`repositories could not be listed: ${s(app.reposError)}`);
  return lines;
}

/** What a change to the issue tracker left it as, from the service's answer. */
export function updatedLine(answer: {
  rate_limit_per_hour?: number | null;
  default_github_repo?: string | null;
}): string {
  const limit = limitText(answer.rate_limit_per_hour) ?? "launch limit not said";
  const repo = answer.default_github_repo
    ? `default repository ${s(answer.default_github_repo)}`
    : "no default repository";
  return `issue tracker updated: ${limit}, ${repo}`;
}

/** The warnings in a few words each, for the header (the integrations view says them whole). */
export function integrationWarningLabels(r: IntegrationsReport): string[] {
  const out: string[] = [];
  if (r.token.state === "ok" && !r.token.data.connected) out.push("token disconnected");
  if (r.chat.state === "ok" && r.chat.data.connected && chatHealthIssues(r.chat.data).length > 0) {
    out.push("chat tool unhealthy");
  }
  return out;
}
