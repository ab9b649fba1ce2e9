import type { GitAction } from "../../protocol/git.js";
import type { Session } from "../../protocol/resources.js";
import { hasScope, narrowedScopes } from "../../protocol/scopes.js";
import { defaultCloneUrl, ownerRepoOf, sessionRepo } from "../../protocol/sessionRecord.js";
import type { ActionOutcome } from "../../store/actionsStore.js";
import type { IdentityState } from "../../store/identityStore.js";
import type { AppServices } from "./services.js";
import type { FormDialogState, FormKind, PendingAction } from "./uiStore.js";

/**
 * Git actions from the keyboard: which are allowed (effective scopes, not stored ones), the
 * forms and confirmations, and the calls themselves through the actions store (spinner,
 * result, error). Plain TypeScript; the dialogs only render what is decided here.
 */

export interface FormField {
  label: string;
  placeholder: string;
  required: boolean;
}

export const FORM_FIELDS: Record<FormKind, readonly FormField[]> = {
  clone: [
    { label: "Repository URL", placeholder: "https://host/owner/repo.git", required: true },
    { label: "Branch", placeholder: "default branch", required: false },
  ],
  branch: [{ label: "New branch", placeholder: "feature/name", required: true }],
  pr: [
    { label: "Title", placeholder: "what the change does", required: true },
    { label: "Base branch", placeholder: "main", required: false },
  ],
};

/** Why a command is not available to this key, or null when it is (or nobody knows yet). */
export function disabledReason(
  cmd: { scope?: string; label: string },
  identity: Pick<IdentityState, "keyInfo">,
): string | null {
  const info = identity.keyInfo;
  if (!cmd.scope || !info) return null;
  if (hasScope(info.effective_scopes, cmd.scope)) return null;
  const narrowed = narrowedScopes(info.scopes, info.effective_scopes).includes(cmd.scope);
  const why = narrowed
    ? `the key stores ${cmd.scope} but the role ${info.role ?? "of its owner"} narrows it away`
    : `the key's effective scopes lack ${cmd.scope}`;
  return `${cmd.label} is disabled: ${why}`;
}

/** The scope a command needs that the key lacks, or null. */
export function missingScope(
  scope: string | undefined,
  identity: Pick<IdentityState, "keyInfo">,
): string | null {
  const info = identity.keyInfo;
  if (!scope || !info) return null;
  return hasScope(info.effective_scopes, scope) ? null : scope;
}

/** Whether the key lacks a scope: what the help overlay greys out (and notes) by. */
export function lacksScope(identity: Pick<IdentityState, "keyInfo">): (scope: string) => boolean {
  return (scope) => missingScope(scope, identity) !== null;
}

/** What a form says above its fields: what it does to the session. */
export function formIntro(
  form: FormKind,
  sessionId: string,
  session: Session | undefined,
): { title: string; lines: string[] } {
  const branch = session?.branch ?? null;
  switch (form) {
    case "clone":
      return {
        title: `Clone a repository into ${sessionId}`,
        lines: [
          "The service clones it into the session's workspace, replacing what is there.",
          ...(defaultCloneUrl(session)
            ? ["The URL starts as the session's repository (Ctrl-U clears it)."]
            : []),
          "You confirm before anything runs; git's output also appears in the session's pane.",
        ],
      };
    case "branch":
      return {
        title: `Create a branch in ${sessionId}`,
        lines: [
          `Starts from ${branch ? `branch ${branch}` : "the current branch"} and switches to it.`,
          "You confirm before anything runs.",
        ],
      };
    case "pr": {
      const repo = session ? sessionRepo(session) : null;
      return {
        title: `Open a pull request from ${sessionId}`,
        lines: [
          `Head: ${branch ? `branch ${branch}` : "the current branch"}${repo ? ` of ${repo}` : ""}; base defaults to main.`,
          "You confirm before anything is sent.",
        ],
      };
    }
  }
}

/**
 * A form, empty but for the clone's repository URL: the session's repository when the record
 * names one (defaultCloneUrl: the documented github_repo first).
 */
export function openForm(
  form: FormKind,
  sessionId: string,
  session?: Session | undefined,
): FormDialogState {
  const first = form === "clone" ? defaultCloneUrl(session) : "";
  return {
    kind: "form",
    form,
    sessionId,
    values: FORM_FIELDS[form].map((_, i) => (i === 0 ? first : "")),
    field: 0,
    error: null,
  };
}

/** A form's values checked: the confirmation that comes next, or an error to show. */
export function submitForm(
  d: FormDialogState,
  session: Session | undefined,
): { ok: false; error: string } | { ok: true; confirm: PendingAction } {
  const fields = FORM_FIELDS[d.form];
  const values = d.values.map((v) => v.trim());
  for (let i = 0; i < fields.length; i++) {
    if (fields[i]?.required && !values[i])
      return { ok: false, error: `${fields[i]?.label} is required` };
  }
  switch (d.form) {
    case "clone":
      return {
        ok: true,
        confirm: { kind: "clone", repoUrl: values[0] ?? "", branch: values[1] || null },
      };
    case "branch":
      return {
        ok: true,
        confirm: { kind: "branch", name: values[0] ?? "", from: session?.branch ?? null },
      };
    case "pr":
      return {
        ok: true,
        confirm: {
          kind: "pr",
          title: values[0] ?? "",
          base: values[1] || "main",
          head: session?.branch ?? null,
        },
      };
  }
}

/** Branch names a repository's default branch has when the record does not say. */
const USUAL_DEFAULT_BRANCHES = ["main", "master"];

/**
 * Whether `branch` is the repository's default branch: the one the record names
 * (`default_branch`, as code hosts call it) or, when it names none, main or master.
 */
export function isDefaultBranch(branch: string | null, session: Session | undefined): boolean {
  if (!branch) return false;
  const named = (session as Record<string, unknown> | undefined)?.default_branch;
  if (typeof named === "string" && named !== "") return branch === named;
  return USUAL_DEFAULT_BRANCHES.includes(branch);
}

/** The branch a push goes to: the one asked for, else the session's current one (if known). */
export function pushTarget(
  a: Extract<PendingAction, { kind: "push" }>,
  session: Session | undefined,
): string | null {
  return a.branch ?? session?.branch ?? null;
}

export interface PendingDescription {
  lines: string[];
  /** Said apart and louder: the action replaces work or writes where others build. */
  warning: string | null;
}

/** What a confirmed action will do, in words, for the confirmation dialog. */
export function describePending(
  a: PendingAction,
  session: Session | undefined,
): PendingDescription {
  const named = session ? sessionRepo(session) : null;
  const repo = named ?? "the session's repository";
  switch (a.kind) {
    case "clone":
      return {
        lines: [
          `Clones ${a.repoUrl}${a.branch ? ` (branch ${a.branch})` : ""} into the session's workspace.`,
        ],
        warning: `This replaces the session's workspace${named ? ` (now a clone of ${named})` : ""}: files and uncommitted changes in it are lost.`,
      };
    case "push": {
      const target = pushTarget(a, session);
      return {
        lines: [
          `Commits any uncommitted changes in the session's workspace, then pushes ${target ? `branch ${target}` : "the current branch"} to ${repo}.`,
          "This changes the remote repository.",
        ],
        warning: isDefaultBranch(target, session)
          ? `${target} is the repository's default branch: this pushes straight to it, with no pull request or review.`
          : null,
      };
    }
    case "branch":
      return {
        lines: [
          `Creates branch ${a.name} from ${a.from ?? "the current branch"} in the session's workspace and switches to it.`,
          "The remote is not touched until you push.",
        ],
        warning: null,
      };
    case "pr":
      return {
        lines: [
          `Opens a pull request in ${repo}: ${a.head ?? "the current branch"} → ${a.base}, titled "${a.title}".`,
          "The head branch must already be pushed.",
        ],
        warning: null,
      };
  }
}

const ACTION_NAMES: Record<ActionOutcome["kind"], string> = {
  clone: "clone",
  push: "push",
  branch: "branch",
  pr: "pull request",
};

/** How a git action is named on screen. */
export function actionName(kind: ActionOutcome["kind"]): string {
  return ACTION_NAMES[kind] ?? kind;
}

/**
 * How a git action ended, in one whole text: the result, or the error with the scope it
 * needed and what to do next. The status line shows it (cut to its width), the messages log
 * keeps it whole.
 */
export function outcomeText(o: ActionOutcome): string {
  const name = actionName(o.kind);
  if (o.ok) return `${name} ${o.sessionId}: ${o.message}`;
  const scope = o.error?.requiredScope ? ` (needs ${o.error.requiredScope})` : "";
  const hint = o.error?.hint ? ` — ${o.error.hint}` : "";
  return `${name} ${o.sessionId} failed: ${o.message}${scope}${hint}`;
}

/** The one GitAction a confirmed dialog stands for. */
export function toGitAction(action: PendingAction): GitAction {
  const opt = (v: string | null) => v ?? undefined;
  switch (action.kind) {
    case "clone":
      return { kind: "clone", repoUrl: action.repoUrl, branch: opt(action.branch) };
    case "push":
      return { kind: "push", branch: opt(action.branch) };
    case "branch":
      return { kind: "branch", name: action.name };
    case "pr":
      return { kind: "pr", title: action.title, base: action.base, head: opt(action.head) };
  }
}

/** Run a confirmed action; the actions store records progress and the outcome. */
export async function runGitAction(
  services: AppServices,
  sessionId: string,
  pending: PendingAction,
): Promise<{ busy: string | null }> {
  const { api, actions, sessions } = services;
  const action = toGitAction(pending);
  const outcome = await actions
    .getState()
    .run(action, sessionId, (signal) => api.git(sessionId, action, signal));
  if (outcome.error?.code === "busy") return { busy: outcome.message };
  const r = outcome.result;
  if (outcome.ok && r) {
    const patch: Partial<Session> = {};
    if (r.branch !== null) patch.branch = r.branch;
    if (action.kind === "clone") {
      patch.repo = r.repoUrl ?? action.repoUrl;
      // The documented owner/repo wins where the list reads the repository: it follows too.
      if (sessions.getState().items.some((x) => x.session_id === sessionId && x.github_repo))
        patch.github_repo = ownerRepoOf(patch.repo);
    }
    if (Object.keys(patch).length > 0) sessions.getState().patchSession(sessionId, patch);
  }
  return { busy: null };
}
