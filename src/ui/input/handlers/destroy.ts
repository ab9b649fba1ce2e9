import { actOnEach } from "../../../store/act/eachSession.js";
import { toErrorInfo } from "../../../store/errorInfo.js";
import type { UiDeps } from "../../model/deps.js";
import { message } from "../actions.js";

/**
 * Destroying sessions, one or several (K on a row, or on every marked row): each asked of the
 * service, a failure on one not stopping the rest, the results said in one line. Its own
 * module so the key handlers that ask (launch's K, the marks) and the confirmation that runs
 * it import it one way.
 */

/** An error in one line, with what to do next (a 429 says when to try again). */
export function errorText(e: unknown): string {
  const i = toErrorInfo(e);
  return i.hint ? `${i.message} (${i.hint})` : i.message;
}

/** K confirmed: the session and its sandbox go. */
export function runDestroy(deps: UiDeps, sessionIds: readonly string[]): void {
  const work = deps.services.work;
  if (!work) return;
  void actOnEach(sessionIds, (id) => work.destroySession(id)).then((results) => {
    const failed = results.filter((r) => !r.ok);
    for (const r of results) {
      if (r.ok) deps.services.sessions.getState().patchSession(r.sessionId, { state: "destroyed" });
    }
    if (failed.length === 0) {
      message(deps, `Destroyed ${sessionIds.join(", ")}`, "ok");
    } else {
      const why = failed.map((r) => `${r.sessionId}: ${r.ok ? "" : errorText(r.error)}`).join("; ");
      message(deps, `${failed.length} of ${sessionIds.length} not destroyed — ${why}`, "error");
    }
    deps.services.live?.poke("destroy");
  });
}
