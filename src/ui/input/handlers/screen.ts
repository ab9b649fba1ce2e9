import { nextAttention } from "../../../store/streams/streamsStore.js";
import { disabledReason, openForm } from "../../model/gitActions.js";
import { type Command, commandById } from "../../model/keymap.js";
import type { DialogState } from "../../model/uiStore.js";
import {
  message,
  patch,
  refusedId,
  selectedSessionId,
  sessionRecord,
  visibleSessions,
} from "../actions.js";
import type { UiDeps } from "../deps.js";
import type { Handler, ModeHandlers } from "./types.js";

/** What the list and a pane share: help, quitting, focus, attention, refresh, git actions. */

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

function jumpToAttention(deps: UiDeps): void {
  const st = deps.services.streams.getState();
  const next = nextAttention(st, selectedSessionId(deps));
  if (next === null) {
    message(deps, "No session needs attention");
    return;
  }
  st.acknowledge(next);
  const s = deps.ui.getState();
  const at = s.panes.indexOf(next);
  if (at >= 0) {
    patch(deps, { focus: at + 1 });
    return;
  }
  const row = visibleSessions(deps).findIndex((x) => x.session_id === next);
  if (row >= 0) patch(deps, { focus: 0, zoomed: false, listCursor: row });
}

/** A git action's form or confirmation, for the focused session, if the key may run it. */
function gitAction(cmd: Command): Handler {
  return (deps) => {
    const sessionId = selectedSessionId(deps);
    if (!sessionId) {
      message(deps, "Select a session first (list row or pane)");
      return;
    }
    const reason =
      disabledReason(cmd, deps.services.identity.getState()) ?? refusedId(deps, sessionId);
    if (reason) {
      message(deps, reason, "error");
      return;
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

/** Handlers for the list and pane modes alike. */
export const SCREEN: ModeHandlers<"list" | "pane"> = {
  help: (deps) => patch(deps, { overlay: { kind: "help", offset: 0 } }),
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
  refresh: (deps) => {
    void deps.services.identity.getState().load(deps.services.api);
    void deps.services.sessions.getState().refresh();
    message(deps, "Refreshing identity and sessions…");
  },
  clone: gitAction(commandById("clone")),
  push: gitAction(commandById("push")),
  branch: gitAction(commandById("branch")),
  pullRequest: gitAction(commandById("pullRequest")),
};
