import { FORM_FIELDS, repoName, submitForm } from "../../model/gitActions.js";
import { message, patch, sessionRecord } from "../actions.js";
import { startPending } from "./act.js";
import { pickSuggestion, repoDefaultOf, takeSuggestion } from "./gitReach.js";
import type { Handler, ModeHandlers, ModeOf } from "./types.js";

/** The git forms, their confirmations, and "quit while a git action runs?". */

const close: Handler = (deps) => patch(deps, { dialog: null });

export const FORM: ModeHandlers<"form"> = {
  cancel: close,
  up: pickSuggestion(-1),
  down: pickSuggestion(1),
  nextField: (deps, { dialog: d }) => {
    const next = (d.field + 1) % FORM_FIELDS[d.form].length;
    if (!takeSuggestion(deps, d, next)) patch(deps, { dialog: { ...d, field: next } });
  },
  submit: (deps, { dialog: d }) => {
    const record = sessionRecord(deps, d.sessionId);
    const r = submitForm(d, record, repoDefaultOf(deps, repoName(record)));
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
