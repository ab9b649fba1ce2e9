import type { UiDeps } from "../../model/deps.js";
import { disabledReason } from "../../model/gitActions.js";
import {
  editRefusal,
  integrationEditUpdate,
  issueTrackerPresent,
  openIntegrationEdit,
} from "../../model/integrations.js";
import { commandById } from "../../model/keymap.js";
import { message, patch } from "../actions.js";
import type { TextField } from "../textField.js";
import { SCROLLING } from "./overlays.js";
import type { Handler, ModeHandlers, ModeOf } from "./types.js";

/**
 * The integrations view (read-only for members) and the issue tracker's edit: its two
 * fields, then "are you sure?", then the change, whose result the status line says.
 */

/** Open the view (the key needs integrations:read), reading the integrations if not yet read. */
export const openIntegrations: Handler = (deps) => {
  const store = deps.services.integrations;
  if (!store) {
    message(deps, "Integrations are not available here (no service to ask)", "warn");
    return;
  }
  const reason = disabledReason(commandById("integrations"), deps.services.identity.getState());
  if (reason) {
    message(deps, reason, "error");
    return;
  }
  patch(deps, { overlay: { kind: "integrations", offset: 0 }, message: null });
  void store.getState().ensure();
};

const close: Handler = (deps) => patch(deps, { overlay: null });

export const INTEGRATIONS: ModeHandlers<"integrations"> = {
  ...SCROLLING,
  integrations: close,
  quit: close,
  cancel: close,
  refresh: (deps) => {
    void deps.services.integrations?.getState().load();
    message(deps, "Reading the integrations again…");
  },
  editIntegration: (deps) => {
    const identity = deps.services.identity.getState();
    const reason =
      editRefusal(identity) ?? disabledReason(commandById("editIntegration"), identity);
    if (reason) {
      message(deps, reason, "error");
      return;
    }
    const report = deps.services.integrations?.getState().report ?? null;
    if (!issueTrackerPresent(report)) {
      message(deps, "There is no issue tracker integration to change", "warn");
      return;
    }
    patch(deps, { dialog: openIntegrationEdit(report), message: null });
  },
};

type Edit = ModeOf<"integrationEdit">;

function send(deps: UiDeps, d: Edit["dialog"]): void {
  const r = integrationEditUpdate(d.values);
  if (!r.ok) {
    patch(deps, { dialog: { ...d, confirming: false, error: r.error } });
    return;
  }
  patch(deps, { dialog: null });
  const store = deps.services.integrations;
  if (!store) return;
  message(deps, "Changing the issue tracker's settings…");
  void store
    .getState()
    .updateIssueTracker(r.update)
    .then((ok) => {
      const u = store.getState().update;
      if (ok) message(deps, u.done ?? "issue tracker updated", "ok");
      else {
        const e = u.error;
        const hint = e?.hint ? ` — ${e.hint}` : "";
        message(
          deps,
          `Changing the issue tracker failed: ${e?.message ?? "unknown error"}${hint}`,
          "error",
        );
      }
    });
}

export const INTEGRATION_EDIT: ModeHandlers<"integrationEdit"> = {
  cancel: (deps, { dialog: d }) => {
    if (d.confirming) patch(deps, { dialog: { ...d, confirming: false } });
    else {
      patch(deps, { dialog: null });
      message(deps, "Nothing changed");
    }
  },
  nextField: (deps, { dialog: d }) => {
    if (!d.confirming) patch(deps, { dialog: { ...d, field: d.field === 0 ? 1 : 0 } });
  },
  submit: (deps, { dialog: d }) => {
    if (d.confirming) return send(deps, d);
    const r = integrationEditUpdate(d.values);
    if (!r.ok) patch(deps, { dialog: { ...d, error: r.error } });
    else patch(deps, { dialog: { ...d, error: null, confirming: true } });
  },
  confirmYes: (deps, { dialog: d }) => {
    if (d.confirming) send(deps, d);
  },
  confirmNo: (deps, { dialog: d }) => {
    if (d.confirming) patch(deps, { dialog: { ...d, confirming: false } });
  },
};

/** The edit's focused field (none while it asks for confirmation: y and n answer then). */
export function integrationEditField(deps: UiDeps, d: Edit["dialog"]): TextField | null {
  if (d.confirming) return null;
  return {
    get: () => d.values[d.field],
    set: (v) => {
      const cur = deps.ui.getState().dialog;
      if (cur?.kind !== "integrationEdit") return;
      const values: [string, string] = [cur.values[0], cur.values[1]];
      values[cur.field] = v;
      patch(deps, { dialog: { ...cur, values, error: null } });
    },
  };
}
