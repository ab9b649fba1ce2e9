import type { IntegrationsReport, Part } from "../../client/integrations.js";
import { type LinearUpdate, linearUpdateProblem } from "../../protocol/integrations.js";
import { LAUNCH_LIMIT_RULE, parseLaunchLimit } from "../../protocol/launchLimit.js";
import type { Session } from "../../protocol/resources.js";
import type { IdentityState } from "../../store/identityStore.js";
import { configureRefusal } from "../../store/integrations/configure.js";
import {
  appLines,
  chatHealthIssues,
  chatLine,
  integrationWarnings,
  issueTrackerLine,
  PART_TITLES,
  partProblem,
  tokenLine,
} from "../../store/integrations/integrationsText.js";
import { missingScope, repoName } from "./gitActions.js";
import type { IntegrationEditState, PendingAction } from "./uiStore.js";

/**
 * The integrations view and the issue tracker's edit, as plain data: the lines the view
 * shows, who may edit (role, then scope, named), the form's check and the change it sends.
 */

export type ViewTone = "title" | "normal" | "muted" | "warn" | "error";

export interface ViewLine {
  text: string;
  tone: ViewTone;
}

/** Repositories listed per installation in the view; the rest are counted. */
const VIEW_REPOS = 50;

function section(
  key: keyof IntegrationsReport,
  part: Part<unknown>,
  lines: () => ViewLine[],
): ViewLine[] {
  const problem = partProblem(part);
  const title: ViewLine = { text: PART_TITLES[key], tone: "title" };
  if (problem !== null) {
    const tone: ViewTone =
      part.state === "absent" ? "muted" : part.state === "forbidden" ? "warn" : "error";
    return [title, { text: `  ${problem}`, tone }];
  }
  return [title, ...lines().map((l) => ({ ...l, text: `  ${l.text}` }))];
}

/** Every line of the view, in order: warnings first, then each part. */
export function integrationsViewLines(
  report: IntegrationsReport | null,
  loading: boolean,
): ViewLine[] {
  if (report === null) {
    return [{ text: loading ? "Reading the integrations…" : "Not read yet.", tone: "muted" }];
  }
  const out: ViewLine[] = [];
  for (const w of integrationWarnings(report)) out.push({ text: `⚠ ${w}`, tone: "warn" });
  if (out.length > 0) out.push({ text: "", tone: "normal" });
  out.push(
    ...section("app", report.app, () =>
      report.app.state === "ok"
        ? appLines(report.app.data, VIEW_REPOS).map((text) => ({
            text,
            tone: /^ {2}configure:|^ {2}…/.test(text) ? "muted" : "normal",
          }))
        : [],
    ),
    ...section("token", report.token, () =>
      report.token.state === "ok"
        ? [
            {
              text: tokenLine(report.token.data),
              tone: report.token.data.connected ? "normal" : "warn",
            },
          ]
        : [],
    ),
    ...section("issueTracker", report.issueTracker, () =>
      report.issueTracker.state === "ok"
        ? report.issueTracker.data.length === 0
          ? [{ text: "none set up", tone: "muted" }]
          : report.issueTracker.data.map((li) => ({ text: issueTrackerLine(li), tone: "normal" }))
        : [],
    ),
    ...section("chat", report.chat, () =>
      report.chat.state === "ok"
        ? [
            { text: chatLine(report.chat.data), tone: "normal" as ViewTone },
            ...chatHealthIssues(report.chat.data).map((i) => ({
              text: `service account issue: ${i}`,
              tone: "warn" as ViewTone,
            })),
          ]
        : [],
    ),
  );
  return out;
}

/**
 * Why this key may not change the issue tracker from here (the role, or the scope, named),
 * or null when it may (or nobody knows yet: the service decides).
 */
export function editRefusal(identity: Pick<IdentityState, "keyInfo">): string | null {
  const key = identity.keyInfo;
  if (!key) return null;
  const r = configureRefusal(key);
  return r === null ? null : `${r.message}. ${r.hint}`;
}

/** The edit form, filled with the issue tracker's current settings. */
export function openIntegrationEdit(report: IntegrationsReport | null): IntegrationEditState {
  const li = report?.issueTracker.state === "ok" ? report.issueTracker.data[0] : undefined;
  const limit = typeof li?.rate_limit_per_hour === "number" ? String(li.rate_limit_per_hour) : "";
  return {
    kind: "integrationEdit",
    values: [limit, li?.default_github_repo ?? ""],
    field: 0,
    error: null,
    confirming: false,
  };
}

/** The change the form's values stand for, or why it cannot be sent. */
export function integrationEditUpdate(
  values: readonly [string, string],
): { ok: true; update: LinearUpdate } | { ok: false; error: string } {
  const update: LinearUpdate = {};
  const rawLimit = values[0].trim();
  if (rawLimit !== "") {
    const n = parseLaunchLimit(rawLimit);
    if (n === null) return { ok: false, error: `Launches per hour must be ${LAUNCH_LIMIT_RULE}` };
    update.rate_limit_per_hour = n;
  }
  update.default_github_repo = values[1].trim();
  const problem = linearUpdateProblem(update);
  if (problem) return { ok: false, error: problem.message };
  return { ok: true, update };
}

/** Whether the issue tracker is there to be changed. */
export function issueTrackerPresent(report: IntegrationsReport | null): boolean {
  return report?.issueTracker.state === "ok" && report.issueTracker.data.length > 0;
}

/** The repository a git action is about: the one being cloned, else the session's. */
export function pendingRepo(a: PendingAction, session: Session | undefined): string | null {
  return a.kind === "clone" ? a.repoUrl : repoName(session);
}

/** Whether to ask for the integrations where a git action needs them (the key may read them). */
export function mayReadIntegrations(identity: Pick<IdentityState, "keyInfo">): boolean {
  return missingScope("integrations:read", identity) === null;
}

/** Repository suggestions the clone form shows at most. */
export const CLONE_SUGGESTIONS = 5;
