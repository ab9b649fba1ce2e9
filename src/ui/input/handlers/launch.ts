import { newIdempotencyKey } from "../../../client/idempotency.js";
import { LAUNCH_SCOPES } from "../../../protocol/launch.js";
import type { UiDeps } from "../../model/deps.js";
import { disabledReason, missingScope, openForm } from "../../model/gitActions.js";
import { commandById } from "../../model/keymap.js";
import type { FormDialogState, PendingAction } from "../../model/uiStore.js";
import { message, openPane, patch, refusedId } from "../actions.js";
import { errorText } from "./destroy.js";
import { askBulk } from "./marks.js";
import { target } from "./sessionTarget.js";
import type { Handler, ModeHandlers } from "./types.js";

/**
 * Starting and ending work from the keyboard: + opens the launch form, M the rename form, K
 * asks before destroying. A launch keeps its Idempotency-Key while its form is open: Enter
 * after a failure sends the same launch again, so a lost answer never makes a second session.
 * On success the session is in the list at once (creating) and its pane opens and follows it.
 */

function refused(deps: UiDeps, id: "launch" | "rename" | "destroy"): string | null {
  const identity = deps.services.identity.getState();
  const cmd = commandById(id);
  if (!deps.services.work) return `${cmd.label} is not available here`;
  const reason = disabledReason(cmd, identity);
  if (reason) return reason;
  if (id !== "launch") return null;
  const lacking = LAUNCH_SCOPES.find((s) => missingScope(s, identity) !== null);
  return lacking ? `${cmd.label} is disabled: the key's effective scopes lack ${lacking}` : null;
}

const launch: Handler = (deps) => {
  const why = refused(deps, "launch");
  if (why) {
    message(deps, why, "error");
    return;
  }
  // The repositories the code hosting app reaches: suggested as the repository is typed.
  void deps.services.integrations?.getState().ensure();
  patch(deps, {
    dialog: { ...openForm("launch", ""), intent: newIdempotencyKey() },
    message: null,
  });
};

/** M and K: about the selected session. */
function sessionAction(id: "rename" | "destroy"): Handler {
  return (deps) => {
    if (id === "destroy" && askBulk(deps, "destroy")) return;
    const why = refused(deps, id);
    if (why) {
      message(deps, why, "error");
      return;
    }
    const sessionId = target(deps, commandById(id), deps.services.work);
    if (!sessionId) return;
    patch(deps, {
      dialog:
        id === "rename"
          ? openForm("rename", sessionId)
          : { kind: "confirm", sessionId, action: { kind: "destroy" } },
      message: null,
    });
  };
}

export const LAUNCH_SCREEN: ModeHandlers<"list" | "pane" | "fleet"> = {
  launch,
  rename: sessionAction("rename"),
  destroy: sessionAction("destroy"),
};

/** Runs what the launch or rename form asks for (the form was the question). */
export function runFormAction(
  deps: UiDeps,
  d: FormDialogState,
  action: Extract<PendingAction, { kind: "launch" | "rename" }>,
): void {
  const work = deps.services.work;
  if (!work) return;
  if (action.kind === "rename") {
    patch(deps, { dialog: null });
    void work.renameSession(d.sessionId, action.name).then(
      (s) => {
        deps.services.sessions
          .getState()
          .patchSession(d.sessionId, { name: s.name ?? action.name });
        message(deps, `${d.sessionId} renamed to ${action.name}`, "ok");
      },
      (e: unknown) => message(deps, `Rename of ${d.sessionId} failed: ${errorText(e)}`, "error"),
    );
    return;
  }
  if (d.sending) return;
  const intent = d.intent ?? newIdempotencyKey();
  patch(deps, { dialog: { ...d, intent, sending: true, error: null } });
  void work.launch(action.request, { idempotencyKey: intent }).then(
    (answer) => {
      const cur = deps.ui.getState().dialog;
      if (cur?.kind === "form" && cur.intent === intent) patch(deps, { dialog: null });
      launched(deps, answer.id, answer.state ?? "creating", action.request.prompt);
    },
    (e: unknown) => {
      const cur = deps.ui.getState().dialog;
      const text = `Launch failed: ${errorText(e)} — Enter sends the same launch again (it cannot make a second session)`;
      if (cur?.kind === "form" && cur.intent === intent) {
        patch(deps, { dialog: { ...cur, sending: false, error: text } });
      } else message(deps, text, "error");
    },
  );
}

/** A launched session: in the list at once (creating), its pane open and following it. */
function launched(deps: UiDeps, id: string, state: string, prompt: string): void {
  const bad = refusedId(deps, id);
  if (bad) {
    message(deps, `Launched, but ${bad}`, "error");
    return;
  }
  const line = prompt.trim().split("\n")[0] ?? "";
  deps.services.sessions.getState().addSession({
    session_id: id,
    id,
    state,
    name: line.slice(0, 80),
    created_at: new Date().toISOString(),
  });
  openPane(deps, id);
  const at = deps.ui.getState().panes.indexOf(id);
  if (at >= 0) patch(deps, { view: "main", focus: at + 1 });
  message(deps, `Launched ${id}: being created; its pane follows it`, "ok");
}
