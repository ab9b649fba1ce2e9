import type { ActionOutcome } from "../../../store/actionsStore.js";
import {
  gitActionRepo,
  repoDefaultBranch,
  repoSuggestions,
  unreachableHint,
} from "../../../store/integrations/reach.js";
import type { UiDeps } from "../../model/deps.js";
import { outcomeText, REPO_FIELD } from "../../model/gitActions.js";
import { CLONE_SUGGESTIONS, mayReadIntegrations } from "../../model/integrations.js";
import type { FormDialogState, PendingAction } from "../../model/uiStore.js";
import { message, patch, sessionRecord } from "../actions.js";

/**
 * Where git actions use what the code hosting app reaches: the clone form's suggestions
 * (↑/↓ pick, Tab takes one) and what a failed action says about a repository no
 * installation reaches. The dialogs' handlers call these; nothing here decides a git action.
 */

/** The suggestions for what a form's repository field (REPO_FIELD) holds now. */
function suggestionsOf(deps: UiDeps, d: FormDialogState) {
  const field = REPO_FIELD[d.form];
  if (field === undefined) return [];
  const report = deps.services.integrations?.getState().report ?? null;
  return repoSuggestions(report, d.values[field] ?? "", CLONE_SUGGESTIONS);
}

/** ↑/↓ in a form's repository field: the next or previous suggestion. */
export function pickSuggestion(step: 1 | -1) {
  return (deps: UiDeps, { dialog: d }: { dialog: FormDialogState }): void => {
    const n = suggestionsOf(deps, d).length;
    if (d.field !== REPO_FIELD[d.form] || n === 0) return;
    patch(deps, { dialog: { ...d, pick: ((d.pick ?? 0) + step + n) % n } });
  };
}

/**
 * Tab in the clone form's repository field: the picked suggestion fills it and the next field
 * gets the cursor. False when there is nothing to take (Tab then only moves on).
 */
export function takeSuggestion(deps: UiDeps, d: FormDialogState, next: number): boolean {
  const field = REPO_FIELD[d.form];
  const picked = d.field === field ? suggestionsOf(deps, d)[d.pick ?? 0] : undefined;
  if (field === undefined || !picked || picked.repo.full_name === d.values[field]) return false;
  const values = d.values.slice();
  values[field] = picked.repo.full_name;
  patch(deps, { dialog: { ...d, values, field: next, pick: 0, error: null } });
  return true;
}

/**
 * After a git action ended: when it failed on a repository no installation of the code
 * hosting app reaches, say so with where access is granted (the configure URL, shown, never
 * opened). Reads the integrations if they were not read yet and the key may read them.
 */
export async function explainGitFailure(
  deps: UiDeps,
  sessionId: string,
  action: PendingAction,
  outcome: ActionOutcome | null,
): Promise<void> {
  const store = deps.services.integrations;
  if (!outcome || outcome.ok || !store) return;
  const repo = gitActionRepo(action, sessionRecord(deps, sessionId));
  if (repo === null) return;
  if (!mayReadIntegrations(deps.services.identity.getState())) return;
  if (outcome.error?.code === "missing_scope" || outcome.error?.code === "cancelled") return;
  const report = await store
    .getState()
    .ensure()
    .catch(() => null);
  const hint = unreachableHint(report?.app, repo);
  if (hint) message(deps, `✗ ${outcomeText(outcome)} — ${hint}`, "error");
}

/** A repository's default branch as the code hosting app reports it (once read), or null. */
export function repoDefaultOf(deps: UiDeps, repo: string | null | undefined): string | null {
  return repoDefaultBranch(deps.services.integrations?.getState().report ?? null, repo);
}
