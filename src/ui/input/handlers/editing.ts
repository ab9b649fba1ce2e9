import { setQuery } from "../../model/paneView.js";
import { paneViewOf } from "../../model/uiStore.js";
import { message, patch, timelineOf, updateView } from "../actions.js";
import type { ModeHandlers } from "./types.js";

/** Typing the list's filter or a pane's search: Enter keeps it, Esc drops it. */

export const FILTER: ModeHandlers<"filter"> = {
  submit: (deps) => patch(deps, { editing: null }),
  cancel: (deps) => {
    deps.services.sessions.getState().setFilterText("");
    patch(deps, { editing: null, listCursor: 0, fleetCursor: 0 });
  },
};

export const SEARCH: ModeHandlers<"search"> = {
  cancel: (deps) => patch(deps, { editing: null }),
  submit: (deps, { editing: e }) => {
    const buf = timelineOf(deps, e.sessionId);
    patch(deps, { editing: null });
    if (!buf) return;
    const query = e.draft.trim();
    const r = setQuery(paneViewOf(deps.ui.getState(), e.sessionId), buf, query);
    updateView(deps, e.sessionId, () => r.view);
    if (query && !r.found) message(deps, `No match for "${query}"`, "warn");
  },
};
