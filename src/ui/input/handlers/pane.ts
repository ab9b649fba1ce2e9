import { sanitize } from "../../../text/sanitize.js";
import type { UiDeps } from "../../model/deps.js";
import { paneViewport } from "../../model/geometry.js";
import {
  type KindToggle,
  type PaneView,
  prepareSearch,
  resumeFollow,
  scrollBy,
  scrollToTop,
  searchStep,
  setQuery,
  toggleFollow,
  toggleKind,
  toggleTimestamps,
  toggleWrap,
  type Viewport,
} from "../../model/paneView.js";
import { paneViewOf } from "../../model/uiStore.js";
import { closePane, message, patch, timelineOf, updateView } from "../actions.js";
import type { Handler, ModeHandlers, ModeOf } from "./types.js";

/** The focused pane: scrolling and follow, search, kind toggles, wrap, timestamps, save. */

type PaneMode = ModeOf<"pane">;
type Scrollback = NonNullable<ReturnType<typeof timelineOf>>;

/** A change of the pane's view that needs its scrollback and viewport (none yet: nothing). */
function onView(
  fn: (view: PaneView, buf: Scrollback, vp: Viewport) => PaneView,
): Handler<PaneMode> {
  return (deps, { sessionId }) => {
    const buf = timelineOf(deps, sessionId);
    if (!buf) return;
    const vp = paneViewport(deps.ui.getState(), sessionId, deps.options.noColor);
    updateView(deps, sessionId, (v) => fn(v, buf, vp));
  };
}

const page = (vp: Viewport) => Math.max(1, vp.rows - 1);

function kind(k: KindToggle): Handler<PaneMode> {
  return (deps, { sessionId }) => updateView(deps, sessionId, (v) => toggleKind(v, k));
}

function searchStepper(dir: "older" | "newer"): Handler<PaneMode> {
  return (deps, { sessionId }) => {
    const buf = timelineOf(deps, sessionId);
    if (!buf) return;
    const view = paneViewOf(deps.ui.getState(), sessionId);
    if (!view.query) {
      message(deps, "No search yet: press / to search this pane");
      return;
    }
    const vp = paneViewport(deps.ui.getState(), sessionId, deps.options.noColor);
    const r = searchStep(view, buf, vp, dir);
    if (!r.found) message(deps, `No match for "${view.query}"`, "warn");
    updateView(deps, sessionId, () => r.view);
  };
}

async function saveTimeline(deps: UiDeps, sessionId: string): Promise<void> {
  const buf = timelineOf(deps, sessionId);
  if (!buf || buf.size === 0) {
    message(deps, `Nothing to save yet in ${sessionId}`);
    return;
  }
  if (!deps.save) {
    message(deps, "Saving is not available here", "warn");
    return;
  }
  const entries = buf.toArray();
  try {
    const path = await deps.save(sessionId, entries, deps.services.secrets);
    message(deps, `Saved ${entries.length} entries of ${sessionId} to ${path}`, "ok");
  } catch (e) {
    message(
      deps,
      `Could not save ${sessionId}: ${sanitize(e instanceof Error ? e.message : String(e))}`,
      "error",
    );
  }
}

/** Esc in a pane: clear its search; with none, leave zoom. */
const back: Handler<PaneMode> = (deps, { sessionId }) => {
  const s = deps.ui.getState();
  const buf = timelineOf(deps, sessionId);
  if (paneViewOf(s, sessionId).query && buf) {
    updateView(deps, sessionId, (v) => setQuery(v, buf, "").view);
    message(deps, "Search cleared");
  } else if (s.zoomed) patch(deps, { zoomed: false });
};

/** The pane's own commands (the ones it shares with the list are screen.ts). */
export const PANE: ModeHandlers<"pane"> = {
  zoom: (deps) => patch(deps, { zoomed: !deps.ui.getState().zoomed }),
  back,
  closePane: (deps, { sessionId }) => closePane(deps, sessionId),
  wrap: (deps, { sessionId }) => updateView(deps, sessionId, toggleWrap),
  timestamps: (deps, { sessionId }) => updateView(deps, sessionId, toggleTimestamps),
  search: (deps, { sessionId }) => {
    patch(deps, { editing: { kind: "search", sessionId, draft: "" } });
    const buf = timelineOf(deps, sessionId);
    if (buf) prepareSearch(buf);
  },
  save: (deps, { sessionId }) => void saveTimeline(deps, sessionId),
  toggleKindPrompt: kind("prompt"),
  toggleKindOutput: kind("output"),
  toggleKindFiles: kind("file"),
  toggleKindState: kind("state"),
  follow: onView(toggleFollow),
  up: onView((v, buf, vp) => scrollBy(v, buf, vp, -1)),
  down: onView((v, buf, vp) => scrollBy(v, buf, vp, 1)),
  pageUp: onView((v, buf, vp) => scrollBy(v, buf, vp, -page(vp))),
  pageDown: onView((v, buf, vp) => scrollBy(v, buf, vp, page(vp))),
  top: onView((v, buf) => scrollToTop(v, buf)),
  bottom: onView((v) => resumeFollow(v)),
  searchNext: searchStepper("older"),
  searchPrev: searchStepper("newer"),
};
