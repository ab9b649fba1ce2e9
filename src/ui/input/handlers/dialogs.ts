import type { UiDeps } from "../../model/deps.js";
import { FORM_FIELDS, pickApproval, repoName, submitForm } from "../../model/gitActions.js";
import type { FormDialogState } from "../../model/uiStore.js";
import { message, patch, sessionRecord } from "../actions.js";
import { roleRefusal, startPending } from "./act.js";
import { sendNowDeclined } from "./followUps.js";
import { pickSuggestion, repoDefaultOf, takeSuggestion } from "./gitReach.js";
import { runFormAction } from "./launch.js";
import type { Handler, ModeHandlers, ModeOf } from "./types.js";

/** The git forms, their confirmations, and "quit while a git action runs?". */

const close: Handler = (deps) => patch(deps, { dialog: null });

/** ↑/↓: the approval to decide in an approve or reject form, else the clone form's suggestion. */
function pick(step: 1 | -1): Handler<ModeOf<"form">> {
  const suggestion = pickSuggestion(step);
  return (deps: UiDeps, mode: { dialog: FormDialogState }) => {
    if (mode.dialog.approvals) patch(deps, { dialog: pickApproval(mode.dialog, step) });
    else suggestion(deps, mode);
  };
}

export const FORM: ModeHandlers<"form"> = {
  cancel: close,
  // The launch form's prompt in $VISUAL/$EDITOR, as the prompt box's.
  promptEditor: (deps, { dialog: d }) => {
    if (d.form !== "launch" || d.field !== 0) return;
    if (!deps.editText) {
      message(deps, "Editing in $VISUAL/$EDITOR is not available here", "warn");
      return;
    }
    const r = deps.editText(d.values[0] ?? "");
    if ("error" in r) message(deps, r.error, "warn");
    else {
      const values = d.values.slice();
      values[0] = r.text;
      patch(deps, { dialog: { ...d, values, error: null } });
    }
  },
  up: pick(-1),
  down: pick(1),
  nextField: (deps, { dialog: d }) => {
    const next = (d.field + 1) % FORM_FIELDS[d.form].length;
    if (!takeSuggestion(deps, d, next)) patch(deps, { dialog: { ...d, field: next } });
  },
  submit: (deps, { dialog: d }) => {
    const refused = d.approval ? roleRefusal(deps, d.approval) : null;
    if (refused) {
      patch(deps, { dialog: { ...d, error: `this approval ${refused}` } });
      return;
    }
    const record = sessionRecord(deps, d.sessionId);
    const r = submitForm(d, record, repoDefaultOf(deps, repoName(record)));
    if (!r.ok) patch(deps, { dialog: { ...d, error: r.error } });
    else if (r.confirm.kind === "launch" || r.confirm.kind === "rename") {
      runFormAction(deps, d, r.confirm);
    } else patch(deps, { dialog: { kind: "confirm", sessionId: d.sessionId, action: r.confirm } });
  },
};

const confirm: Handler<ModeOf<"confirm">> = (deps, { dialog: d }) =>
  startPending(deps, d.sessionId, d.action);

const decline: Handler<ModeOf<"confirm">> = (deps, { dialog: d }) => {
  patch(deps, { dialog: null });
  if (d.action.kind === "sendNow") {
    sendNowDeclined(deps, d.sessionId, d.action.prompt, d.action.queued);
    return;
  }
  const what =
    d.action.kind === "pr"
      ? "Pull request"
      : d.action.kind === "promptPaused"
        ? "Prompt"
        : d.action.kind === "takeHome"
          ? "Taking changes home"
          : d.action.kind === "resumeFirst"
            ? "Resume"
            : d.action.kind;
  message(deps, `${what} cancelled: nothing was sent`);
};

export const CONFIRM: ModeHandlers<"confirm"> = {
  confirmYes: confirm,
  submit: confirm,
  confirmNo: decline,
  cancel: decline,
  takeHomeSwitch: (deps, { dialog: d }) => {
    const a = d.action;
    if (a.kind !== "takeHome") return;
    const how = a.how === "apply" ? "checkout" : "apply";
    patch(deps, { dialog: { ...d, action: { ...a, how } } });
  },
};

export const QUIT: ModeHandlers<"quit"> = {
  confirmYes: (deps) => deps.exit(),
  submit: (deps) => deps.exit(),
  confirmNo: close,
  cancel: close,
};
