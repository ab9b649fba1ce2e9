import { actOf } from "../../../store/act/actStore.js";
import { actOnEach } from "../../../store/act/eachSession.js";
import type { UiDeps } from "../../model/deps.js";
import { disabledReason } from "../../model/gitActions.js";
import { commandById, keyOf } from "../../model/keymap.js";
import { allMarks, markedShown, toggledMarks } from "../../model/marks.js";
import type { BulkAction } from "../../model/uiStore.js";
import { message, patch, refusedId, selectedSessionId } from "../actions.js";
import { runDestroy } from "./destroy.js";
import type { Handler, ModeHandlers } from "./types.js";

/**
 * Many at once: Space marks the selected row, * every shown one; with marks set, Z, U and K
 * ask once, naming each marked session, then act on each in turn (a failure on one does not
 * stop the rest) and clear the marks.
 */

const mark: Handler = (deps) => {
  const id = selectedSessionId(deps);
  if (!id) {
    message(deps, "Select a session first (list row)");
    return;
  }
  const marks = toggledMarks(deps, id);
  patch(deps, { marks, message: null });
};

const markAll: Handler = (deps) => {
  const marks = allMarks(deps);
  patch(deps, { marks });
  message(deps, marks.length === 0 ? "No session marked" : `${marks.length} sessions marked`);
};

export const MARKS: ModeHandlers<"list" | "fleet"> = { mark, markAll };

/**
 * Z, U or K with marks set: the one confirmation for every marked session (true), or why not
 * said (true too: the key was taken). False when nothing is marked: the key acts on one.
 */
export function askBulk(deps: UiDeps, action: BulkAction): boolean {
  const sessionIds = markedShown(deps);
  if (sessionIds.length === 0) return false;
  const cmd = commandById(action);
  const service = action === "destroy" ? deps.services.work : deps.services.act;
  const why = service
    ? (disabledReason(cmd, deps.services.identity.getState()) ??
      sessionIds.map((id) => refusedId(deps, id)).find((r) => r !== null) ??
      null)
    : `${cmd.label} is not available here`;
  if (why) {
    message(deps, why, "error");
    return true;
  }
  patch(deps, {
    dialog: {
      kind: "confirm",
      sessionId: sessionIds[0] as string,
      action: { kind: "bulk", action, sessionIds },
    },
    message: null,
  });
  return true;
}

const DONE: Record<BulkAction, string> = {
  pause: "paused",
  resume: "resumed",
  destroy: "destroyed",
};

/** The confirmed bulk action: each session in turn, its result said, the marks cleared. */
export function runBulk(deps: UiDeps, action: BulkAction, sessionIds: readonly string[]): void {
  patch(deps, { dialog: null, message: null, marks: [] });
  if (action === "destroy") {
    runDestroy(deps, sessionIds);
    return;
  }
  const act = deps.services.act;
  if (!act) return;
  void actOnEach(
    sessionIds,
    async (id) => {
      const ok = await act.lifecycle(id, action);
      void deps.services.sessions.getState().refreshSession(id);
      if (!ok) throw new Error(actOf(act.getState(), id).notice?.text ?? `${action} failed`);
    },
    (r) =>
      message(
        deps,
        r.ok
          ? `${r.sessionId}: ${DONE[action]}`
          : `${r.sessionId}: ${String((r.error as Error).message)}`,
        r.ok ? "ok" : "error",
      ),
  ).then((results) => {
    const failed = results.filter((r) => !r.ok).map((r) => r.sessionId);
    const done = results.length - failed.length;
    message(
      deps,
      failed.length === 0
        ? `${done} of ${results.length} ${DONE[action]}`
        : `${done} of ${results.length} ${DONE[action]}; not ${DONE[action]}: ${failed.join(", ")} (the messages log, ${keyOf("messages")}, says why)`,
      failed.length === 0 ? "ok" : "error",
    );
  });
}
