import { nextUnseen } from "../../../store/attention/queue.js";
import type { UiDeps } from "../../model/deps.js";
import { openForm } from "../../model/gitActions.js";
import { mayReadIntegrations } from "../../model/integrations.js";
import { type Command, commandById, keyOf } from "../../model/keymap.js";
import { releaseOrder } from "../../model/listOrder.js";
import type { BodyView, DialogState } from "../../model/uiStore.js";
import { goToSession, message, patch, selectedSessionId, sessionRecord } from "../actions.js";
import { openIntegrations } from "./integrations.js";
import { target } from "./sessionTarget.js";
import type { Handler, ModeHandlers } from "./types.js";

/**
 * What the list, a pane and the whole-body views share: help, quitting, focus, attention,
 * the views, refresh, git actions.
 */

function cycleFocus(deps: UiDeps, step: 1 | -1): void {
  const s = deps.ui.getState();
  if (s.zoomed && s.panes.length > 0) {
    const n = s.panes.length;
    const cur = Math.max(1, s.focus);
    patch(deps, { focus: ((cur - 1 + step + n) % n) + 1 });
    return;
  }
  const slots = s.panes.length + 1;
  patch(deps, { focus: (s.focus + step + slots) % slots });
}

/** The next session in the attention queue (newest first) that the user has not seen. */
export function jumpToAttention(deps: UiDeps): void {
  const att = deps.services.attention.getState();
  const next = nextUnseen(att, selectedSessionId(deps));
  if (next === null) {
    const seen = att.items.length;
    message(
      deps,
      seen > 0
        ? `No session needs attention that you have not seen (${keyOf("attentionQueue")} lists ${seen})`
        : "No session needs attention",
    );
    return;
  }
  goToSession(deps, next.sessionId);
}

/** Switch the body to a view, or back to the list and panes when it is on show. */
function toggleView(view: Exclude<BodyView, "main">): Handler {
  return (deps) => {
    const cur = deps.ui.getState().view;
    patch(deps, { view: cur === view ? "main" : view, message: null });
  };
}

/** A git action's form or confirmation, for the focused session, if the key may run it. */
function gitAction(cmd: Command): Handler {
  return (deps) => {
    // The git actions store is there in a replay too: a form opens, its run says what it can.
    const sessionId = target(deps, cmd, deps.services.actions);
    if (!sessionId) return;
    // The repositories the code hosting app reaches (clone suggestions, default branches).
    const identity = deps.services.identity.getState();
    if (cmd.id !== "branch" && mayReadIntegrations(identity)) {
      void deps.services.integrations?.getState().ensure();
    }
    let dialog: DialogState;
    switch (cmd.id) {
      case "clone":
        dialog = openForm("clone", sessionId);
        break;
      case "branch":
        dialog = openForm("branch", sessionId);
        break;
      case "pullRequest":
        dialog = openForm("pr", sessionId);
        break;
      default:
        dialog = {
          kind: "confirm",
          sessionId,
          action: { kind: "push", branch: sessionRecord(deps, sessionId)?.branch ?? null },
        };
    }
    patch(deps, { dialog, message: null });
  };
}

/** Handlers for the list and pane modes alike (and, where enabled, the views). */
export const SCREEN: ModeHandlers<"list" | "pane" | "fleet" | "merged"> = {
  help: (deps) => {
    const id = selectedSessionId(deps);
    const state = id ? sessionRecord(deps, id)?.state : undefined;
    patch(deps, {
      overlay: { kind: "help", offset: 0, sessionState: typeof state === "string" ? state : null },
    });
  },
  messages: (deps) => patch(deps, { overlay: { kind: "messages", offset: 0 } }),
  quit: (deps) => {
    if (deps.services.actions.getState().running) patch(deps, { dialog: { kind: "quit" } });
    else deps.exit();
  },
  focusNext: (deps) => cycleFocus(deps, 1),
  focusPrev: (deps) => cycleFocus(deps, -1),
  focusList: (deps) => patch(deps, { focus: 0, zoomed: false }),
  focusPane: (deps, _mode, press) => {
    const n = Number(press.text);
    if (n >= 1 && n <= deps.ui.getState().panes.length) patch(deps, { focus: n });
    else message(deps, `No pane ${press.text}`);
  },
  nextAttention: jumpToAttention,
  attentionQueue: (deps) => patch(deps, { overlay: { kind: "attention", cursor: 0 } }),
  integrations: openIntegrations,
  fleet: toggleView("fleet"),
  merged: toggleView("merged"),
  refresh: (deps) => {
    releaseOrder(deps);
    void deps.services.identity.getState().load(deps.services.api);
    // In place: the selection and the rows stay while the pages are read again.
    void deps.services.sessions.getState().refreshLive();
    message(deps, "Refreshing identity and sessions…");
  },
  clone: gitAction(commandById("clone")),
  push: gitAction(commandById("push")),
  branch: gitAction(commandById("branch")),
  pullRequest: gitAction(commandById("pullRequest")),
};
