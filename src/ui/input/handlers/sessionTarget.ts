import type { UiDeps } from "../../model/deps.js";
import { disabledReason } from "../../model/gitActions.js";
import type { Command } from "../../model/keymap.js";
import {
  message,
  openPane,
  patch,
  refusedId,
  selectedSessionId,
  sessionRecord,
} from "../actions.js";

/**
 * The session a key acts on, and its pane: one reading for acting, the follow-up queue and
 * whatever else acts on the focused session.
 */

/**
 * The session a key acts on, if the key may take it: a session is selected, the service the
 * key needs is here (`service`: acting's by default; absent in a replay), the key's scopes and
 * the session's state allow it, and its id is safe to send. Else said, and null.
 */
export function target(
  deps: UiDeps,
  cmd: Command,
  service: unknown = deps.services.act,
): string | null {
  const sessionId = selectedSessionId(deps);
  if (!sessionId) {
    message(deps, "Select a session first (list row or pane)");
    return null;
  }
  if (!service) {
    message(deps, `${cmd.label} is not available here`, "warn");
    return null;
  }
  const state = sessionRecord(deps, sessionId)?.state;
  const reason =
    disabledReason(
      cmd,
      deps.services.identity.getState(),
      typeof state === "string" ? state : null,
    ) ?? refusedId(deps, sessionId);
  if (reason) {
    message(deps, reason, "error");
    return null;
  }
  return sessionId;
}

/** Focus the session's pane, opening it when needed (a prompt's answer streams there). */
export function focusPane(deps: UiDeps, sessionId: string): boolean {
  openPane(deps, sessionId);
  const at = deps.ui.getState().panes.indexOf(sessionId);
  if (at < 0) return false;
  patch(deps, { view: "main", focus: at + 1 });
  return true;
}
