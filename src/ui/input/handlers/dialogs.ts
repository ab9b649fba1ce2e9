import { repoDefaultBranch, repoSuggestions } from "../../../store/integrations/reach.js";
import { FORM_FIELDS, repoName, submitForm } from "../../model/gitActions.js";
import { CLONE_SUGGESTIONS } from "../../model/integrations.js";
import type { FormDialogState } from "../../model/uiStore.js";
import { message, patch, sessionRecord } from "../actions.js";
import type { UiDeps } from "../deps.js";
import { startPending } from "./act.js";
import type { Handler, ModeHandlers, ModeOf } from "./types.js";

/** The git forms, their confirmations, and "quit while a git action runs?". */

const close: Handler = (deps) => patch(deps, { dialog: null });

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
    const r = submitForm(d, record, repoDefaultBranch(report, repoName(record)));
    if (!r.ok) patch(deps, { dialog: { ...d, error: r.error } });
    else patch(deps, { dialog: { kind: "confirm", sessionId: d.sessionId, action: r.confirm } });
  },
};

const confirm: Handler<ModeOf<"confirm">> = (deps, { dialog: d }) =>
  startPending(deps, d.sessionId, d.action);

const decline: Handler<ModeOf<"confirm">> = (deps, { dialog: d }) => {
  patch(deps, { dialog: null });
  const what =
    d.action.kind === "pr"
      ? "Pull request"
      : d.action.kind === "promptPaused"
        ? "Prompt"
        : d.action.kind;
  message(deps, `${what} cancelled: nothing was sent`);
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
