import type { Session } from "../../protocol/resources.js";
import { unsafeIdOf } from "../../store/admitSession.js";
import { selectMarkedIds } from "../../store/attention/queue.js";
import type { SessionsState } from "../../store/sessionsStore.js";
import type { UiDeps } from "./deps.js";
import { fleetWindow } from "./geometry.js";
import { shownSessions } from "./listOrder.js";
import { focusedPaneId, type UiState } from "./uiStore.js";

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
    a.sortDir === b.sortDir &&
    a.includeDestroyed === b.includeDestroyed
  );
}

function indexOf(list: readonly Session[], id: string | undefined): number {
  return id === undefined ? -1 : list.findIndex((s) => s.session_id === id);
}

const CURSORS = [
  ["listCursor", "listSelected"],
  ["fleetCursor", "fleetSelected"],
] as const;

/**
 * Rows never move under the cursor: the list's and the fleet's cursors follow the session
 * they are on (by id), whatever changed the rows (a refresh, a page loaded, a stream's state,
 * a mark that sorts a row first, the order let go after keys). A key that moves a cursor
 * moves the session it is on. When that session leaves the rows, the cursor stays on its row
 * (now another session's). Returns the unsubscribe.
 */
export function keepSelection(deps: UiDeps): () => void {
  const { sessions, attention } = deps.services;
  /** Put each cursor on its session's row (or name the session of its row). */
  const place = () => {
    const ui = deps.ui.getState();
    const shown = shownSessions(deps);
    const patch: { -readonly [K in keyof UiState]?: UiState[K] } = {};
    for (const [cursor, selected] of CURSORS) {
      const id = ui[selected];
      const at = indexOf(shown, id ?? undefined);
      if (at >= 0) {
        if (at !== ui[cursor]) patch[cursor] = at;
        continue;
      }
      // Nothing shown yet (a first page in flight): keep the session until rows come.
      if (shown.length === 0) continue;
      const row = Math.min(ui[cursor], shown.length - 1);
      if (row !== ui[cursor]) patch[cursor] = row;
      const now = shown[row]?.session_id ?? null;
      if (now !== id) patch[selected] = now;
    }
    if (Object.keys(patch).length > 0) deps.ui.setState(patch);
  };
  const offSessions = sessions.subscribe((s, prev) => {
    // A new sort or filter asked for is shown at once: the held order is let go.
    if (!sameView(s, prev) && deps.ui.getState().heldOrder !== null) {
      deps.ui.setState({ heldOrder: null });
    }
    if (s.items !== prev.items || s.hiddenIds !== prev.hiddenIds || !sameView(s, prev)) place();
  });
  // What needs you comes first: a mark can move rows (when the order is not held).
  const offAttention = attention.subscribe((a, prev) => {
    if (selectMarkedIds(a) !== selectMarkedIds(prev)) place();
  });
  const offUi = deps.ui.subscribe((s, prev) => {
    if (s.heldOrder !== prev.heldOrder) {
      place();
      return;
    }
    // A key moved a cursor: it is on another session now.
    const patch: { -readonly [K in keyof UiState]?: UiState[K] } = {};
    for (const [cursor, selected] of CURSORS) {
      if (s[cursor] === prev[cursor]) continue;
      const id = shownSessions(deps)[s[cursor]]?.session_id ?? null;
      if (id !== null && id !== s[selected]) patch[selected] = id;
    }
    if (Object.keys(patch).length > 0) deps.ui.setState(patch);
  });
  place();
  return () => {
    offSessions();
    offAttention();
    offUi();
  };
}

/**
 * How long the fleet's rows must stay put before their streams follow them. Scrolling, a new
 * sort or a filter typed a key at a time changes the rows in view many times a second; each
 * change closed and opened up to a hundred streams inside the key's frame (B10-2000: a sort
 * took half a second to show), and spent the request budget on rows the user only passed.
 */
export const FLEET_STREAMS_SETTLE_MS = 150;

/**
 * While the fleet (or the merged timeline over it) is on show, the rows in view keep a
 * stream open, up to the cap, once they have stayed in view for FLEET_STREAMS_SETTLE_MS (at
 * once when the fleet opens); back on the list, they are let go after a grace period.
 */
export function followFleetStreams(deps: UiDeps): () => void {
  const { fleetStreams, sessions } = deps.services;
  let last = "";
  let timer: ReturnType<typeof setTimeout> | null = null;
  const settle = () => {
    // The first rows (the fleet opened before the list came) get their streams at once.
    if (last === "" || fleetStreams.openIds.length === 0) {
      sync();
      return;
    }
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      sync();
    }, FLEET_STREAMS_SETTLE_MS);
    timer.unref?.();
  };
  const sync = () => {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
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
    const listed = list.map((s) => s.session_id);
    // What is in view, and what is listed at all (a row gone from the list lets its stream go).
    const key = `${ids.join(" ")}\n${listed.join(" ")}`;
    if (key === last) return;
    last = key;
    fleetStreams.show(ids, new Set(listed));
  };
  const offUi = deps.ui.subscribe((s, prev) => {
    if (s.view !== prev.view) sync();
    else if (s.fleetCursor !== prev.fleetCursor || s.size !== prev.size) settle();
  });
  const offSessions = sessions.subscribe((s, prev) => {
    if (s.items !== prev.items || !sameView(s, prev)) settle();
  });
  sync();
  return () => {
    if (timer !== null) clearTimeout(timer);
    offUi();
    offSessions();
  };
}

/** The session whose pane the user is looking at: the focused pane's, on the main view. */
function lookedAt(s: Pick<UiState, "view" | "focus" | "panes">): string | null {
  return s.view === "main" ? focusedPaneId(s) : null;
}

/**
 * Every look at a session is remembered (the attention store's `looked`, which the journal
 * keeps across restarts), not only a jump from the queue: a pane opened shows the session,
 * and a focused pane is looked at until focus leaves it (or the user quits), so a finish the
 * user watched there is not "finished" at the next start. Returns the unsubscribe (a last
 * look at the focused pane).
 */
export function recordLooks(deps: UiDeps): () => void {
  const look = (id: string | null) => {
    if (id !== null) deps.services.attention.getState().looked(id);
  };
  const off = deps.ui.subscribe((s, prev) => {
    if (s.panes !== prev.panes) {
      const had = new Set(prev.panes);
      for (const id of s.panes) if (!had.has(id)) look(id);
    }
    const now = lookedAt(s);
    const before = lookedAt(prev);
    if (now !== before) {
      look(before);
      look(now);
    }
  });
  // The panes open when the screen starts (asked for on the command line) are looks too.
  for (const id of deps.ui.getState().panes) look(id);
  return () => {
    off();
    look(lookedAt(deps.ui.getState()));
  };
}
