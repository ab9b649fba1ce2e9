import { knownStates, type SessionSortKey } from "../../../store/sessionsStore.js";
import type { UiDeps } from "../../model/deps.js";
import { listPage } from "../../model/geometry.js";
import {
  keepSelection,
  message,
  openPane,
  patch,
  selectedSessionId,
  visibleSessions,
} from "../actions.js";
import { movementKeys, type Step } from "./movement.js";
import type { Handler, ModeHandlers } from "./types.js";

/** The session list: cursor, filter, state filter, sort, open, detail. */

const SORT_CYCLE: readonly SessionSortKey[] = ["updated", "created", "id", "state", "title"];

/** The row cursor of the list or of the fleet table (they show the same sessions). */
export type RowCursor = "listCursor" | "fleetCursor";

/** Move a row cursor. */
export function moveRowCursor(deps: UiDeps, which: RowCursor, page: number, to: Step): void {
  const s = deps.ui.getState();
  const list = visibleSessions(deps);
  const max = Math.max(0, list.length - 1);
  const cursor = Math.max(0, Math.min(max, to(s[which], page)));
  patch(deps, { [which]: cursor });
}

function moveCursor(deps: UiDeps, to: Step): void {
  moveRowCursor(deps, "listCursor", listPage(deps.ui.getState().size), to);
}

/** Next state filter: all, then each state a loaded session is in. */
export function cycleStateFilter(deps: UiDeps, which: RowCursor = "listCursor"): void {
  const st = deps.services.sessions.getState();
  // Only states some loaded session is in: a filter that can match nothing is no help.
  const cycle: (string | null)[] = [null, ...knownStates(st.items)];
  const at = cycle.indexOf(st.stateFilter);
  keepSelection(deps, () => st.setStateFilter(cycle[(at + 1) % cycle.length] ?? null), which);
}

/**
 * Show destroyed and error sessions too, or hide them: a view over the catalogue (which holds
 * them either way), so nothing is read again; the cursor stays on its session when it is
 * still shown.
 */
export function toggleIncludeDestroyed(deps: UiDeps, which: RowCursor = "listCursor"): void {
  const st = deps.services.sessions.getState();
  const include = !st.includeDestroyed;
  message(
    deps,
    include ? "Showing destroyed and error sessions too" : "Hiding destroyed and error sessions",
  );
  keepSelection(deps, () => st.setIncludeDestroyed(include), which);
}

export function cycleSort(deps: UiDeps, which: RowCursor = "listCursor"): void {
  const st = deps.services.sessions.getState();
  const at = SORT_CYCLE.indexOf(st.sortKey);
  keepSelection(
    deps,
    () => st.setSort(SORT_CYCLE[(at + 1) % SORT_CYCLE.length] ?? "updated"),
    which,
  );
}

/**
 * Esc on the list, and on the fleet before it closes: drop the text filter and the state
 * filter, keeping the selection. False when there was none to drop.
 */
export function clearFilters(
  deps: UiDeps,
  which: "listCursor" | "fleetCursor" = "listCursor",
): boolean {
  const st = deps.services.sessions.getState();
  if (!st.filterText && st.stateFilter === null) return false;
  keepSelection(
    deps,
    () => {
      st.setFilterText("");
      st.setStateFilter(null);
    },
    which,
  );
  message(deps, "Filters cleared");
  return true;
}

/** The selected session's detail overlay (the list's and the fleet's `i`). */
export const openDetail: Handler = (deps) => {
  const id = selectedSessionId(deps);
  if (id) patch(deps, { overlay: { kind: "detail", sessionId: id, offset: 0 } });
};

/** The list's own commands (the ones it shares with a pane are screen.ts). */
export const LIST: ModeHandlers<"list"> = {
  ...movementKeys((step) => (deps) => moveCursor(deps, step)),
  open: (deps) => {
    const id = selectedSessionId(deps);
    if (id) openPane(deps, id);
  },
  filter: (deps) => patch(deps, { editing: { kind: "filter" } }),
  stateFilter: (deps) => cycleStateFilter(deps),
  includeDestroyed: (deps) => toggleIncludeDestroyed(deps),
  sort: (deps) => cycleSort(deps),
  back: (deps) => {
    clearFilters(deps);
  },
  detail: openDetail,
};
