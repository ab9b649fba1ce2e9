import type { GitAction } from "../../protocol/git.js";
import type { Session } from "../../protocol/resources.js";
import { hasScope, narrowedScopes } from "../../protocol/scopes.js";
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
          "The service clones it into the session's workspace (replacing any earlier clone).",
          "Git's output also appears in the session's pane.",
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
      const repo = session?.repo ?? null;
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

export function openForm(form: FormKind, sessionId: string): FormDialogState {
  return {
    kind: "form",
    form,
    sessionId,
    values: FORM_FIELDS[form].map(() => ""),
    field: 0,
    error: null,
  };
}

/** A form's values checked: the next step (run now, or confirm first), or an error to show. */
export function submitForm(
  d: FormDialogState,
  session: Session | undefined,
):
  | { ok: false; error: string }
  | { ok: true; run: { kind: "clone"; repoUrl: string; branch: string | null } }
  | { ok: true; confirm: PendingAction } {
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
        run: { kind: "clone", repoUrl: values[0] ?? "", branch: values[1] || null },
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

/** What a confirmed action will do, in words, for the confirmation dialog. */
export function describePending(a: PendingAction, session: Session | undefined): string[] {
  const repo = session?.repo ?? "the session's repository";
  switch (a.kind) {
    case "push":
      return [
        `Commits any uncommitted changes in the session's workspace, then pushes ${a.branch ? `branch ${a.branch}` : "the current branch"} to ${repo}.`,
        "This changes the remote repository.",
      ];
    case "branch":
      return [
        `Creates branch ${a.name} from ${a.from ?? "the current branch"} in the session's workspace and switches to it.`,
        "The remote is not touched until you push.",
      ];
    case "pr":
      return [
        `Opens a pull request in ${repo}: ${a.head ?? "the current branch"} → ${a.base}, titled "${a.title}".`,
        "The head branch must already be pushed.",
      ];
  }
}

/** The one GitAction a confirmed dialog (or a clone form) stands for. */
export function toGitAction(
  action: PendingAction | { kind: "clone"; repoUrl: string; branch: string | null },
): GitAction {
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

/** Run a confirmed action or a clone; the actions store records progress and the outcome. */
export async function runGitAction(
  services: AppServices,
  sessionId: string,
  pending: PendingAction | { kind: "clone"; repoUrl: string; branch: string | null },
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
    if (action.kind === "clone") patch.repo = r.repoUrl ?? action.repoUrl;
    if (Object.keys(patch).length > 0) sessions.getState().patchSession(sessionId, patch);
  }
  return { busy: null };
}
