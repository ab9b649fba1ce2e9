import {
  repoDefaultBranch,
  repoSuggestions,
  unreachableHint,
} from "../../../store/integrations/reach.js";
import { FORM_FIELDS, outcomeText, runGitAction, submitForm } from "../../model/gitActions.js";
import { CLONE_SUGGESTIONS, mayReadIntegrations, pendingRepo } from "../../model/integrations.js";
import type { FormDialogState, PendingAction } from "../../model/uiStore.js";
import { message, patch, sessionRecord } from "../actions.js";
import type { UiDeps } from "../deps.js";
import type { Handler, ModeHandlers, ModeOf } from "./types.js";

/** The git forms, their confirmations, and "quit while a git action runs?". */

const close: Handler = (deps) => patch(deps, { dialog: null });

/**
 * Run a confirmed git action; a busy refusal is said in the status line. A failure on a
 * repository no installation of the code hosting app reaches says so, with where to grant it.
 */
function startAction(deps: UiDeps, sessionId: string, action: PendingAction): void {
  patch(deps, { dialog: null, message: null });
  const repo = pendingRepo(action, sessionRecord(deps, sessionId));
  void runGitAction(deps.services, sessionId, action).then(async ({ busy, outcome }) => {
    if (busy) message(deps, busy, "warn");
    const store = deps.services.integrations;
    if (!outcome || outcome.ok || action.kind === "branch" || !store) return;
    if (!mayReadIntegrations(deps.services.identity.getState())) return;
    if (outcome.error?.code === "missing_scope" || outcome.error?.code === "cancelled") return;
    const report = await store
      .getState()
      .ensure()
      .catch(() => null);
    const hint = unreachableHint(report?.app, repo);
    if (hint) message(deps, `✗ ${outcomeText(outcome)} — ${hint}`, "error");
  });
}

/** The clone form's suggestions for what its repository field holds now. */
function suggestionsOf(deps: UiDeps, d: FormDialogState) {
  if (d.form !== "clone") return [];
  const report = deps.services.integrations?.getState().report ?? null;
  return repoSuggestions(report, d.values[0] ?? "", CLONE_SUGGESTIONS);
}

function pickBy(step: 1 | -1) {
  return (deps: UiDeps, { dialog: d }: { dialog: FormDialogState }) => {
    const n = suggestionsOf(deps, d).length;
    if (d.field !== 0 || n === 0) return;
    patch(deps, { dialog: { ...d, pick: ((d.pick ?? 0) + step + n) % n } });
  };
}

export const FORM: ModeHandlers<"form"> = {
  cancel: close,
  up: pickBy(-1),
  down: pickBy(1),
  nextField: (deps, { dialog: d }) => {
    const next = (d.field + 1) % FORM_FIELDS[d.form].length;
    const picked = d.field === 0 ? suggestionsOf(deps, d)[d.pick ?? 0] : undefined;
    if (picked && picked.repo.full_name !== d.values[0]) {
      const values = d.values.slice();
      values[0] = picked.repo.full_name;
      patch(deps, { dialog: { ...d, values, field: next, pick: 0, error: null } });
      return;
    }
    patch(deps, { dialog: { ...d, field: next } });
  },
  submit: (deps, { dialog: d }) => {
    const record = sessionRecord(deps, d.sessionId);
    const report = deps.services.integrations?.getState().report ?? null;
    const r = submitForm(d, record, repoDefaultBranch(report, record?.repo));
    if (!r.ok) patch(deps, { dialog: { ...d, error: r.error } });
    else patch(deps, { dialog: { kind: "confirm", sessionId: d.sessionId, action: r.confirm } });
  },
};

const confirm: Handler<ModeOf<"confirm">> = (deps, { dialog: d }) =>
  startAction(deps, d.sessionId, d.action);

const decline: Handler<ModeOf<"confirm">> = (deps, { dialog: d }) => {
  patch(deps, { dialog: null });
  message(
    deps,
    `${d.action.kind === "pr" ? "Pull request" : d.action.kind} cancelled: nothing was sent`,
  );
};

export const CONFIRM: ModeHandlers<"confirm"> = {
  confirmYes: confirm,
  submit: confirm,
  confirmNo: decline,
  cancel: decline,
};

export const QUIT: ModeHandlers<"quit"> = {
  confirmYes: (deps) => deps.exit(),
  submit: (deps) => deps.exit(),
  confirmNo: close,
  cancel: close,
};
