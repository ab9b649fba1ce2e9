import type { Session } from "../../protocol/resources.js";
import { unsafeIdOf } from "../../store/admitSession.js";
import { selectMarkedIds } from "../../store/attention/attentionStore.js";
import {
  deriveVisibleSessions,
  type SessionsState,
  selectVisibleSessions,
} from "../../store/sessionsStore.js";
import type { UiDeps } from "../input/deps.js";
import { fleetWindow } from "./geometry.js";
import { orderSessions, shownSessions } from "./listOrder.js";
import type { UiState } from "./uiStore.js";

/**
 * Plain subscriptions of the signed-in screen that keep the UI in step with the stores: the
 * selection stays on its session when the list is read again, and the fleet's streams follow
 * the rows in view. Each returns its unsubscribe.
 */

function sameView(a: SessionsState, b: SessionsState): boolean {
  return (
    a.filterText === b.filterText &&
    a.stateFilter === b.stateFilter &&
    a.sortKey === b.sortKey &&
    a.sortDir === b.sortDir
  );
}

function indexOf(list: readonly Session[], id: string | undefined): number {
  return id === undefined ? -1 : list.findIndex((s) => s.session_id === id);
}

/**
 * When the sessions change under the same view settings (a live refresh, a state change, a
 * page loaded), the list's and the fleet's cursors stay on the session they were on, and the
 * window scrolls with it.
 */
export function keepSelection(deps: UiDeps): () => void {
  const { sessions, attention } = deps.services;
  const offSessions = sessions.subscribe((s, prev) => {
    // A new sort or filter asked for is shown at once: the held order is let go.
    if (!sameView(s, prev) && deps.ui.getState().heldOrder !== null) {
      deps.ui.setState({ heldOrder: null });
    }
    if (s.items === prev.items || !sameView(s, prev)) return;
    const held = deps.ui.getState().heldOrder;
    const marked = selectMarkedIds(attention.getState());
    follow(orderSessions(deriveVisibleSessions(prev), held, marked), shownSessions(deps));
  });
  // What needs you comes first: a new arrival moves rows (when the order is not held).
  const offAttention = attention.subscribe((a, prev) => {
    const marked = selectMarkedIds(a);
    const was = selectMarkedIds(prev);
    if (marked === was) return;
    const visible = selectVisibleSessions(sessions.getState());
    const held = deps.ui.getState().heldOrder;
    follow(orderSessions(visible, held, was).slice(), shownSessions(deps));
  });
  const follow = (before: readonly Session[], after: readonly Session[]) => {
    const ui = deps.ui.getState();
    const patch: { -readonly [K in keyof UiState]?: UiState[K] } = {};
    for (const which of ["listCursor", "fleetCursor"] as const) {
      const at = indexOf(after, before[ui[which]]?.session_id);
      if (at >= 0 && at !== ui[which]) patch[which] = at;
      else if (at < 0 && ui[which] >= after.length) patch[which] = Math.max(0, after.length - 1);
    }
    if (Object.keys(patch).length > 0) deps.ui.setState(patch);
  };
  return () => {
    offSessions();
    offAttention();
  };
}

/**
 * While the fleet (or the merged timeline over it) is on show, the rows in view keep a
 * stream open, up to the cap; back on the list, they are let go after a grace period.
 */
export function followFleetStreams(deps: UiDeps): () => void {
  const { fleetStreams, sessions } = deps.services;
  let last = "";
  const sync = () => {
    const ui = deps.ui.getState();
    if (ui.view === "main") {
      last = "";
      fleetStreams.hide();
      return;
    }
    if (ui.view === "merged" && last !== "") return;
    const list = shownSessions(deps);
    const { start, rows } = fleetWindow(ui.size, ui.fleetCursor, list.length);
    // A row whose id cannot go into a URL path is shown, never streamed.
    const ids = list
      .slice(start, start + rows)
      .filter((s) => unsafeIdOf(s) === null)
      .map((s) => s.session_id);
    const key = ids.join(" ");
    if (key === last) return;
    last = key;
    fleetStreams.show(ids);
  };
  const offUi = deps.ui.subscribe((s, prev) => {
    if (s.view !== prev.view || s.fleetCursor !== prev.fleetCursor || s.size !== prev.size) sync();
  });
  const offSessions = sessions.subscribe((s, prev) => {
    if (s.items !== prev.items || !sameView(s, prev)) sync();
  });
  sync();
  return () => {
    offUi();
    offSessions();
  };
}
