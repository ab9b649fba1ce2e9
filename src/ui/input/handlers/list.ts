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
import type { ModeHandlers } from "./types.js";

/** The session list: cursor, paging as you scroll, filter, state filter, sort, open, detail. */

const SORT_CYCLE: readonly SessionSortKey[] = ["updated", "created", "id", "state", "title"];
/** Load the next page when the cursor gets this close to the end of what is loaded. */
const LOAD_MORE_MARGIN = 3;

/** The row cursor of the list or of the fleet table (they show the same sessions). */
export type RowCursor = "listCursor" | "fleetCursor";

/** Move a row cursor, loading the next page as it nears the end of what is loaded. */
export function moveRowCursor(
  deps: UiDeps,
  which: RowCursor,
  page: number,
  to: (cursor: number, page: number) => number,
): void {
  const s = deps.ui.getState();
  const list = visibleSessions(deps);
  const max = Math.max(0, list.length - 1);
  const cursor = Math.max(0, Math.min(max, to(s[which], page)));
  patch(deps, { [which]: cursor });
  const st = deps.services.sessions.getState();
  if (st.hasMore && cursor >= list.length - LOAD_MORE_MARGIN) void st.loadMore();
}

function moveCursor(deps: UiDeps, to: (cursor: number, page: number) => number): void {
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
 * Ask the service for destroyed and error sessions too, or stop asking: the list is read again
 * from its first page, and the cursor goes back to the session it was on when that is still
 * listed.
 */
export function toggleIncludeDestroyed(deps: UiDeps, which: RowCursor = "listCursor"): void {
  const st = deps.services.sessions.getState();
  const include = !st.includeDestroyed;
  const before = visibleSessions(deps)[deps.ui.getState()[which]]?.session_id ?? null;
  message(
    deps,
    include ? "Listing destroyed and error sessions too…" : "Hiding destroyed and error sessions…",
  );
  void st.setIncludeDestroyed(include).then(() => {
    const at =
      before === null ? -1 : visibleSessions(deps).findIndex((x) => x.session_id === before);
    patch(deps, { [which]: Math.max(0, at) });
  });
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

/** The list's own commands (the ones it shares with a pane are screen.ts). */
export const LIST: ModeHandlers<"list"> = {
  up: (deps) => moveCursor(deps, (c) => c - 1),
  down: (deps) => moveCursor(deps, (c) => c + 1),
  pageUp: (deps) => moveCursor(deps, (c, page) => c - page),
  pageDown: (deps) => moveCursor(deps, (c, page) => c + page),
  top: (deps) => moveCursor(deps, () => 0),
  bottom: (deps) => moveCursor(deps, () => Number.MAX_SAFE_INTEGER),
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
  detail: (deps) => {
    const id = selectedSessionId(deps);
    if (id) patch(deps, { overlay: { kind: "detail", sessionId: id, offset: 0 } });
  },
};
