import type { Approval } from "../../protocol/approvals.js";
import { MAX_APPROVAL_NOTE_CHARS, noteProblem } from "../../protocol/approvals.js";
import type { GitAction } from "../../protocol/git.js";
import {
  DESTROY_LOSES,
  LAUNCH_AGENTS,
  LAUNCH_MODELS,
  LAUNCH_TEMPLATES,
  type LaunchRequest,
  launchProblem,
  MAX_SESSION_NAME_CHARS,
  ON_COMPLETE,
  renameProblem,
  TTL_MINUTES,
  typedMinutes,
} from "../../protocol/launch.js";
import { type Session, sessionName } from "../../protocol/resources.js";
import { hasScope, narrowedScopes } from "../../protocol/scopes.js";
import { defaultCloneUrl, ownerRepoOf, sessionRepo } from "../../protocol/sessionRecord.js";
import { stateRefusal } from "../../protocol/states.js";
import { describeApproval } from "../../store/act/approvalDecision.js";
import type { ActionOutcome } from "../../store/actionsStore.js";
import type { IdentityState } from "../../store/identityStore.js";
import { sanitizeLine } from "../../text/sanitize.js";
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
  approve: [
    { label: "Note", placeholder: `up to ${MAX_APPROVAL_NOTE_CHARS} characters`, required: false },
  ],
  reject: [
    { label: "Note", placeholder: `up to ${MAX_APPROVAL_NOTE_CHARS} characters`, required: false },
  ],
  // The launch's documented fields (protocol/launch.ts checks them before anything is sent).
  launch: [
    { label: "Prompt", placeholder: "what the agent should do (Ctrl-E: $EDITOR)", required: true },
    { label: "Repository", placeholder: "owner/repo", required: false },
    { label: "Agent", placeholder: LAUNCH_AGENTS.join(", "), required: false },
    { label: "Model", placeholder: LAUNCH_MODELS.join(", "), required: false },
    { label: "Template", placeholder: LAUNCH_TEMPLATES.join(", "), required: false },
    { label: "Plan mode", placeholder: "yes or no (no)", required: false },
    { label: "On complete", placeholder: ON_COMPLETE.join(", "), required: false },
    {
      label: "TTL minutes",
      placeholder: `${TTL_MINUTES.min}–${TTL_MINUTES.max} (${TTL_MINUTES.default})`,
      required: false,
    },
  ],
  rename: [
    {
      label: "New name",
      placeholder: `up to ${MAX_SESSION_NAME_CHARS} characters`,
      required: true,
    },
  ],
};

/** The form field where a repository is typed: the code hosting app's suggest it there. */
export const REPO_FIELD: Partial<Record<FormKind, number>> = { clone: 0, launch: 1 };

/** The launch a launch form's values ask for; launchProblem says what is wrong with it. */
function launchRequestOfForm(values: readonly string[]): LaunchRequest {
  const v = (i: number) => values[i]?.trim() ?? "";
  const req: Record<string, unknown> = { prompt: values[0] ?? "" };
  if (v(1)) req.github_repo = { full_name: v(1) };
  if (v(2)) req.agent = v(2);
  if (v(3)) req.model = v(3);
  if (v(4)) req.template = v(4);
  if (/^(y|yes|on|true)$/i.test(v(5))) req.plan_mode = true;
  else if (v(5) && !/^(n|no|off|false)$/i.test(v(5))) req.plan_mode = v(5);
  if (v(6)) req.on_complete = v(6);
  if (v(7)) req.ttl_minutes = typedMinutes(v(7));
  return req as LaunchRequest;
}

/** The git actions among the pending ones. */
export type GitPending = Extract<PendingAction, { kind: "clone" | "push" | "branch" | "pr" }>;

export function isGitPending(a: PendingAction): a is GitPending {
  return a.kind === "clone" || a.kind === "push" || a.kind === "branch" || a.kind === "pr";
}

/**
 * Why a command is not available to this key, or to a session in `sessionState` (pause on a
 * paused one: protocol/states.ts stateRefusal), or null when it is (or nobody knows yet).
 */
export function disabledReason(
  cmd: { id?: string; scope?: string; label: string },
  identity: Pick<IdentityState, "keyInfo">,
  sessionState?: string | null,
): string | null {
  const info = identity.keyInfo;
  const byState = cmd.id ? stateRefusal(cmd.id, sessionState) : null;
  if (!cmd.scope || !info || hasScope(info.effective_scopes, cmd.scope)) {
    return byState ? `${cmd.label} is disabled: ${byState}` : null;
  }
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

/**
 * Why the help overlay greys a command out (its note), or null: the scope the key lacks, or
 * the selected session's state (the same reasons its key would give).
 */
export function helpNotes(
  identity: Pick<IdentityState, "keyInfo">,
  sessionState: string | null,
): (cmd: { id: string; scope?: string }) => string | null {
  return (cmd) => {
    const scope = missingScope(cmd.scope, identity);
    return scope !== null ? `needs ${scope}` : stateRefusal(cmd.id, sessionState);
  };
}

/** What a form says above its fields: what it does to the session. */
export function formIntro(
  form: FormKind,
  sessionId: string,
  session: Session | undefined,
  extra: { approval?: Approval; repoDefault?: string | null; several?: number } = {},
): { title: string; lines: string[] } {
  const { approval, repoDefault = null } = extra;
  const branch = session?.branch ?? null;
  switch (form) {
    case "launch":
      return {
        title: "Launch a new session",
        lines: [
          "The service makes the session and runs the prompt once it is ready; its pane follows it.",
          "Empty fields take the service's defaults. Tab: next field (in Repository it takes the suggestion).",
        ],
      };
    case "rename":
      return {
        title: `Rename ${sessionId}`,
        lines: [`Now: ${session ? (sessionName(session) ?? "(no name)") : sessionId}`],
      };
    case "approve":
    case "reject":
      return {
        title: `${form === "approve" ? "Approve" : "Reject"} in ${sessionId}`,
        lines: [
          ...(extra.several
            ? [`${extra.several} approvals are pending: ↑/↓ picks the one to decide.`]
            : [approval ? describeApproval(approval) : "the session's pending approval"]),
          `An optional note goes with the decision (up to ${MAX_APPROVAL_NOTE_CHARS} characters). You confirm before anything is sent.`,
        ],
      };
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
          `Head: ${branch ? `branch ${branch}` : "the current branch"}${repo ? ` of ${repo}` : ""}; base defaults to ${repoDefault ?? "main"}${repoDefault ? " (the repository's default branch)" : ""}.`,
          "You confirm before anything is sent.",
        ],
      };
    }
  }
}

/**
 * A form, empty. An approve or reject form is given the session's pending approvals (oldest
 * first) and which one starts picked; ↑/↓ picks another.
 */
export function openForm(
  form: FormKind,
  sessionId: string,
  choice?: { approvals: readonly Approval[]; pick: number },
): FormDialogState {
  const approval = choice?.approvals[choice.pick];
  return {
    kind: "form",
    form,
    sessionId,
    values: FORM_FIELDS[form].map(() => ""),
    field: 0,
    error: null,
    ...(choice && approval ? { approvals: choice.approvals, approval, pick: choice.pick } : {}),
  };
}

/** ↑/↓ in an approve or reject form: the next or previous pending approval. */
export function pickApproval(d: FormDialogState, step: 1 | -1): FormDialogState {
  const list = d.approvals ?? [];
  if (list.length < 2) return d;
  const pick = ((d.pick ?? 0) + step + list.length) % list.length;
  return { ...d, pick, ...(list[pick] ? { approval: list[pick] } : {}), error: null };
}

/**
 * What an empty field stands for: the clone's repository is the one the session's record
 * names (the service's word for what the session works on), when it names one.
 */
export function fieldDefault(form: FormKind, field: number, session: Session | undefined): string {
  if (form === "clone" && field === 0) {
    // The documented github_repo as its URL, else the repository the record names.
    return defaultCloneUrl(session) || (repoName(session)?.trim() ?? "");
  }
  return "";
}

/** A field's placeholder: its default when it has one (Enter takes it), else a hint. */
export function fieldPlaceholder(
  form: FormKind,
  field: number,
  session: Session | undefined,
): string {
  const fallback = fieldDefault(form, field, session);
  if (fallback !== "") return `${fallback} (the session's repository)`;
  return FORM_FIELDS[form][field]?.placeholder ?? "";
}

/** A form's values checked: the confirmation that comes next, or an error to show. */
export function submitForm(
  d: FormDialogState,
  session: Session | undefined,
  repoDefault: string | null = null,
): { ok: false; error: string } | { ok: true; confirm: PendingAction } {
  const fields = FORM_FIELDS[d.form];
  const values = d.values.map((v, i) => v.trim() || fieldDefault(d.form, i, session));
  for (let i = 0; i < fields.length; i++) {
    if (fields[i]?.required && !values[i])
      return { ok: false, error: `${fields[i]?.label} is required` };
  }
  switch (d.form) {
    case "launch": {
      const request = launchRequestOfForm(d.values);
      const bad = launchProblem(request);
      if (bad !== null) return { ok: false, error: bad };
      return { ok: true, confirm: { kind: "launch", request } };
    }
    case "rename": {
      const name = d.values[0]?.trim() ?? "";
      const bad = renameProblem(name);
      if (bad !== null) return { ok: false, error: bad };
      return { ok: true, confirm: { kind: "rename", name } };
    }
    case "approve":
    case "reject": {
      // The note is kept as typed (only outer blanks trimmed); too long is refused here.
      const note = d.values[0]?.trim() ?? "";
      const bad = noteProblem(note);
      if (bad !== null) return { ok: false, error: bad };
      if (!d.approval) return { ok: false, error: "no pending approval to decide" };
      return { ok: true, confirm: { kind: d.form, approval: d.approval, note } };
    }
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
          base: values[1] || repoDefault || "main",
          head: session?.branch ?? null,
        },
      };
  }
}

/** What a destroy loses, said before it is confirmed. */
export const DESTROY_WARNING = `This is irreversible: ${DESTROY_LOSES}.`;

/** Branch names a repository's default branch has when the record does not say. */
const USUAL_DEFAULT_BRANCHES = ["main", "master"];

/**
 * Whether `branch` is the repository's default branch: the one the code hosting app reports
 * for it (`repoDefault`), else the one the record names (`default_branch`, as code hosts call
 * it), else main or master.
 */
export function isDefaultBranch(
  branch: string | null,
  session: Session | undefined,
  repoDefault: string | null = null,
): boolean {
  if (!branch) return false;
  if (repoDefault) return branch === repoDefault;
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

/** The repository a record names (sessionRepo: the documented github_repo, else repo). */
export function repoName(session: Session | undefined): string | null {
  return session ? sessionRepo(session) : null;
}

/**
 * What a clone replaces, as the record tells it: "now a clone of" only when the record says
 * the workspace holds one (`cloned: true`, or a checked-out branch where it has no `cloned`),
 * not whenever it names the repository the session works on.
 */
function cloneWarning(session: Session | undefined): string {
  const r = session as Record<string, unknown> | undefined;
  const branch = typeof r?.branch === "string" && r.branch !== "" ? r.branch : null;
  const repo = repoName(session);
  const cloned = typeof r?.cloned === "boolean" ? r.cloned : branch !== null;
  if (cloned && repo) {
    return `This replaces the session's workspace (now a clone of ${repo}${branch ? `, on ${branch}` : ""}): files and uncommitted changes in it are lost.`;
  }
  if (r?.cloned === false) {
    return "This replaces the session's workspace (the service says nothing is cloned in it yet): anything already in it is lost.";
  }
  return "This replaces the session's workspace: files and uncommitted changes in it are lost.";
}

export interface PendingDescription {
  lines: string[];
  /** Said apart and louder: the action replaces work or writes where others build. */
  warning: string | null;
}

const BULK_WORDS = {
  pause: "Pauses",
  resume: "Resumes",
  destroy: "Destroys (with its sandbox)",
} as const;

/** What a confirmed action will do, in words, for the confirmation dialog. */
export function describePending(
  a: PendingAction,
  session: Session | undefined,
  repoDefault: string | null = null,
): PendingDescription {
  const repo = repoName(session) ?? "the session's repository";
  const paused = session?.state === "paused";
  if (isGitPending(a) && paused) {
    const d = describePending(a, { ...session, state: "active" } as Session, repoDefault);
    return {
      lines: ["The session is paused: it is resumed first (POST …/resume), then:", ...d.lines],
      warning: d.warning,
    };
  }
  switch (a.kind) {
    // Review confirmations draw their own words (components/review/ReviewConfirm.tsx).
    case "takeHome":
    case "rewind":
    case "resumeFirst":
      return { lines: [], warning: null };
    case "approve":
    case "reject":
      return {
        lines: [
          `${a.kind === "approve" ? "Approves" : "Rejects"} ${describeApproval(a.approval)} (${sanitizeLine(a.approval.id)}).`,
          a.note ? `Note: ${a.note}` : "No note.",
          a.kind === "approve"
            ? "The agent carries on with what it asked for."
            : "The agent is told no and carries on without it.",
        ],
        warning: null,
      };
    case "pause":
      return {
        lines: [
          "Pauses the session: its files and memory are kept; it costs no compute while paused and does not work.",
        ],
        warning: null,
      };
    case "resume":
      return { lines: ["Resumes the paused session where it stopped."], warning: null };
    case "destroy":
      return {
        lines: ["Destroys the session and its sandbox (DELETE …/sessions/{id})."],
        warning: DESTROY_WARNING,
      };
    case "bulk":
      return {
        lines: [
          `${BULK_WORDS[a.action]} each of these ${a.sessionIds.length} marked sessions, one after another (a failure on one does not stop the rest):`,
          ...a.sessionIds.map((id) => `  ${sanitizeLine(id)}`),
        ],
        warning: a.action === "destroy" ? DESTROY_WARNING : null,
      };
    case "launch":
      return {
        lines: [`Launches a session: ${a.request.prompt.split("\n")[0] ?? ""}`],
        warning: null,
      };
    case "rename":
      return { lines: [`Renames the session to ${a.name}.`], warning: null };
    case "start":
      return {
        lines: [
          "Starts the session whatever its state (creating, paused or running) and its dev server.",
        ],
        warning: null,
      };
    case "sendNow":
      return {
        lines: [
          "A prompt is running in the session: it is cancelled (POST …/prompt/cancel), then this one is sent:",
          `  ${a.prompt.split("\n")[0] ?? ""}${a.prompt.includes("\n") ? " …" : ""}`,
        ],
        warning: "What the running prompt has not finished is left as it is.",
      };
    case "promptPaused":
      return {
        lines: [
          "The session is paused: it is resumed first (POST …/resume), then the prompt is sent:",
          `  ${a.prompt.split("\n")[0] ?? ""}${a.prompt.includes("\n") ? " …" : ""}`,
        ],
        warning: null,
      };
    case "clone":
      return {
        lines: [
          `Clones ${a.repoUrl}${a.branch ? ` (branch ${a.branch})` : repoDefault ? ` (its default branch, ${repoDefault})` : ""} into the session's workspace.`,
        ],
        warning: cloneWarning(session),
      };
    case "push": {
      const target = pushTarget(a, session);
      return {
        lines: [
          `Commits any uncommitted changes in the session's workspace, then pushes ${target ? `branch ${target}` : "the current branch"} to ${repo}.`,
          "This changes the remote repository.",
        ],
        warning:
          target === null
            ? // Nothing says which branch is checked out (no record field, nothing cloned here):
              // the service pushes whatever it is, and on a fresh workspace that is the default.
              "The branch is not known here: the service pushes whatever branch is checked out in the session's workspace, which may be the repository's default branch (main), straight to it with no pull request or review. Create a branch first (b) to be sure."
            : isDefaultBranch(target, session, repoDefault)
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
        warning:
          a.head !== null && isDefaultBranch(a.head, session, repoDefault)
            ? `${a.head} is the repository's default branch: a pull request from it proposes the default branch itself.`
            : null,
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
export function toGitAction(action: GitPending): GitAction {
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
  pending: GitPending,
): Promise<{ busy: string | null; outcome: ActionOutcome | null }> {
  const { api, actions, sessions } = services;
  const action = toGitAction(pending);
  const outcome = await actions
    .getState()
    .run(action, sessionId, (signal) => api.git(sessionId, action, signal));
  if (outcome.error?.code === "busy") return { busy: outcome.message, outcome: null };
  const r = outcome.result;
  if (outcome.ok && r) {
    const patch: Partial<Session> = {};
    if (r.branch !== null) patch.branch = r.branch;
    if (action.kind === "clone") {
      patch.repo = r.repoUrl ?? action.repoUrl;
      // The service answered the clone: the workspace holds one now, whatever the record said.
      (patch as Record<string, unknown>).cloned = true;
      // The documented owner/repo wins where the list reads the repository: it follows too.
      if (sessions.getState().items.some((x) => x.session_id === sessionId && x.github_repo))
        patch.github_repo = ownerRepoOf(patch.repo);
    }
    if (Object.keys(patch).length > 0) sessions.getState().patchSession(sessionId, patch);
  }
  return { busy: null, outcome };
}
