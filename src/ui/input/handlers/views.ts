import { sanitize } from "../../../text/sanitize.js";
import type { UiDeps } from "../../model/deps.js";
import { fleetRows } from "../../model/geometry.js";
import type { CommandId } from "../../model/keymap.js";
import type { MainMode } from "../../model/mode.js";
import { MERGED_ID } from "../../model/uiStore.js";
import { message, openPane, patch, selectedSessionId, timelineOf } from "../actions.js";
import {
  clearFilters,
  cycleSort,
  cycleStateFilter,
  moveRowCursor,
  openDetail,
  toggleIncludeDestroyed,
} from "./list.js";
import { movementKeys, type Step } from "./movement.js";
import { PANE } from "./pane.js";
import type { Handler, ModeHandlers } from "./types.js";

/**
 * The whole-body views. The fleet table moves its own cursor over the same sessions as the
 * list (same filter and sort) and opens a pane with Enter. The merged timeline is a pane of
 * every streamed session: the pane's own handlers run on it.
 */

function moveFleet(to: Step): Handler {
  return (deps) => moveRowCursor(deps, "fleetCursor", fleetRows(deps.ui.getState().size), to);
}

export const FLEET: ModeHandlers<"fleet"> = {
  ...movementKeys(moveFleet),
  open: (deps) => {
    const id = selectedSessionId(deps);
    if (!id) return;
    patch(deps, { view: "main" });
    openPane(deps, id);
    const at = deps.ui.getState().panes.indexOf(id);
    if (at >= 0) patch(deps, { focus: at + 1, zoomed: false });
  },
  filter: (deps) => patch(deps, { editing: { kind: "filter" } }),
  stateFilter: (deps) => cycleStateFilter(deps, "fleetCursor"),
  includeDestroyed: (deps) => toggleIncludeDestroyed(deps, "fleetCursor"),
  sort: (deps) => cycleSort(deps, "fleetCursor"),
  detail: openDetail,
  // The fleet shares the list's filters: Esc drops them first, as on the list, so that
  // leaving the fleet never leaves the list silently filtered; the next Esc leaves.
  cancel: (deps) => {
    if (!clearFilters(deps, "fleetCursor")) patch(deps, { view: "main" });
  },
};

const AS_PANE: MainMode = { kind: "pane", sessionId: MERGED_ID };

/** A pane handler run on the merged timeline. */
function onMerged(id: CommandId): Handler<Extract<MainMode, { kind: "merged" }>> | undefined {
  const h = PANE[id];
  if (!h) return undefined;
  return (deps, _mode, press) => h(deps, AS_PANE as Extract<MainMode, { kind: "pane" }>, press);
}

async function saveMerged(deps: UiDeps): Promise<void> {
  const buf = timelineOf(deps, MERGED_ID);
  if (!buf || buf.size === 0) {
    message(deps, "Nothing to save yet in the merged timeline");
    return;
  }
  if (!deps.save) {
    message(deps, "Saving is not available here", "warn");
    return;
  }
  const entries = buf.toArray();
  try {
    const path = await deps.save("merged", entries, deps.services.secrets);
    message(deps, `Saved ${entries.length} merged entries to ${path}`, "ok");
  } catch (e) {
    message(
      deps,
      `Could not save the merged timeline: ${sanitize(e instanceof Error ? e.message : String(e))}`,
      "error",
    );
  }
}

const TIMELINE_COMMANDS: readonly CommandId[] = [
  "up",
  "down",
  "pageUp",
  "pageDown",
  "top",
  "bottom",
  "follow",
  "wrap",
  "timestamps",
  "search",
  "searchNext",
  "searchPrev",
  "toggleKindPrompt",
  "toggleKindOutput",
  "toggleKindFiles",
  "toggleKindState",
];

const merged: ModeHandlers<"merged"> = {};
for (const id of TIMELINE_COMMANDS) {
  const h = onMerged(id);
  if (h) merged[id] = h;
}
merged.save = (deps) => void saveMerged(deps);
merged.cancel = (deps) => patch(deps, { view: "main" });

export const MERGED: ModeHandlers<"merged"> = merged;
