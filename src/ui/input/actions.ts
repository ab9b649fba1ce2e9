import { unsafeIdReason } from "../../protocol/ids.js";
import type { Session } from "../../protocol/resources.js";
import { displayId } from "../../store/admitSession.js";
import { selectRecord } from "../../store/sessionsStore.js";
import type { TimelineEntry } from "../../store/streams/entry.js";
import { mergedTimelineOf } from "../../store/streams/mergedTimeline.js";
import type { UiDeps } from "../model/deps.js";
import { keyOf } from "../model/keymap.js";
import { shownSessions } from "../model/listOrder.js";
import { appendLog, feedLogFromServices } from "../model/messageLog.js";
import { fitPanes, panesLeftMessage } from "../model/paneLimit.js";
import { type EntrySource, initialPaneView, type PaneView } from "../model/paneView.js";
import { loadFirstScreen } from "../model/services.js";
import {
  focusedPaneId,
  type LogEntry,
  MERGED_ID,
  type MessageLevel,
  paneViewOf,
  type UiState,
} from "../model/uiStore.js";

/**
 * The steps key handlers share: plain functions of the UI store and the services, no React.
 */

export function patch(deps: UiDeps, p: Partial<UiState>): void {
  deps.ui.setState(p);
}

/** A message for the status line; the messages log keeps it too. */
export function message(deps: UiDeps, text: string, level: MessageLevel = "info"): void {
  patch(deps, {
    message: { text, level },
    outcomeBeforeMessage: deps.services.actions.getState().last,
    ...appendLog(deps.ui.getState(), logEntry(deps, level, text)),
  });
}

/** A message for the log alone (what the services report, shown where it happened). */
export function logMessage(deps: UiDeps, level: MessageLevel, text: string): void {
  patch(deps, appendLog(deps.ui.getState(), logEntry(deps, level, text)));
}

function logEntry(deps: UiDeps, level: MessageLevel, text: string): LogEntry {
  return { at: deps.now(), level, text };
}

/** The list as shown: filtered, sorted, what needs you first, held while keys are pressed. */
export function visibleSessions(deps: UiDeps): Session[] {
  return shownSessions(deps);
}

/**
 * The session a git action or the detail view is about: the fleet's row in the fleet view,
 * else the focused pane's, else the list row's.
 */
export function selectedSessionId(deps: UiDeps): string | null {
  const s = deps.ui.getState();
  if (s.view === "fleet") return visibleSessions(deps)[s.fleetCursor]?.session_id ?? null;
  if (s.focus > 0) return focusedPaneId(s);
  return visibleSessions(deps)[s.listCursor]?.session_id ?? null;
}

/**
 * Change what the list shows (sort, filters) with the cursor staying on the session it was
 * on; when that session is no longer shown, the cursor goes to the top.
 */
export function keepSelection(
  deps: UiDeps,
  change: () => void,
  which: "listCursor" | "fleetCursor" = "listCursor",
): void {
  const before = visibleSessions(deps)[deps.ui.getState()[which]]?.session_id ?? null;
  change();
  const at = before === null ? -1 : visibleSessions(deps).findIndex((x) => x.session_id === before);
  patch(deps, { [which]: Math.max(0, at) });
}

export function sessionRecord(deps: UiDeps, sessionId: string): Session | undefined {
  return selectRecord(deps.services.sessions.getState(), sessionId);
}

/** What a pane's keys scroll, search and save. */
export interface Scrollback extends EntrySource {
  toArray(): TimelineEntry[];
}

/** A session's scrollback, or the merged timeline's (MERGED_ID). */
export function timelineOf(deps: UiDeps, sessionId: string): Scrollback | null {
  if (sessionId === MERGED_ID) return mergedTimelineOf(deps.services.streams);
  return deps.services.streams.getState().sessions[sessionId]?.timeline ?? null;
}

export function updateView(deps: UiDeps, sessionId: string, fn: (v: PaneView) => PaneView): void {
  const s = deps.ui.getState();
  const current = paneViewOf(s, sessionId);
  const next = fn(current);
  if (next !== current) patch(deps, { paneViews: { ...s.paneViews, [sessionId]: next } });
}

/**
 * Why this session must not be opened or acted on: its id, as the server sent it (a session's
 * identity is always that raw id, see store/admitSession.ts), could leave its URL path segment
 * (protocol/ids.ts). Null when it is fine. The message names the id by its display copy.
 */
export function refusedId(deps: UiDeps, sessionId: string): string | null {
  const bad = unsafeIdReason(sessionId);
  if (bad === null) return null;
  const record = sessionRecord(deps, sessionId);
  const shown = displayId(record ?? sessionId);
  return `Session "${shown}" cannot be opened or acted on: no request is made with its id, as ${bad}`;
}

/** Open a session in a pane (or focus its pane), within the pane limit. */
export function openPane(deps: UiDeps, sessionId: string): void {
  const refused = refusedId(deps, sessionId);
  if (refused !== null) {
    message(deps, refused, "error");
    return;
  }
  const s = deps.ui.getState();
  const at = s.panes.indexOf(sessionId);
  if (at >= 0) {
    patch(deps, { focus: at + 1, view: "main" });
    return;
  }
  const max = deps.options.maxPanes;
  if (s.panes.length >= max) {
    message(deps, `At most ${max} panes: close one with ${keyOf("closePane")} first`, "warn");
    return;
  }
  patch(deps, {
    panes: [...s.panes, sessionId],
    paneViews: { ...s.paneViews, [sessionId]: initialPaneView() },
  });
  deps.services.streamControl.openStream(sessionId);
  // The record too: the title shows the current state before the first event.
  void deps.services.sessions.getState().refreshSession(sessionId);
}

/**
 * Show a session the user asked to see (an attention item): its pane when it has one, else
 * its row, in the fleet when the fleet is on show, else in the list. Marks it seen.
 */
export function goToSession(deps: UiDeps, sessionId: string): void {
  deps.services.attention.getState().acknowledge(sessionId);
  deps.services.streams.getState().acknowledge(sessionId);
  const s = deps.ui.getState();
  const row = visibleSessions(deps).findIndex((x) => x.session_id === sessionId);
  if (s.view === "fleet" && row >= 0) {
    patch(deps, { fleetCursor: row });
    return;
  }
  const pane = s.panes.indexOf(sessionId);
  if (pane >= 0) {
    patch(deps, { view: "main", focus: pane + 1 });
    return;
  }
  if (row >= 0) {
    patch(deps, { view: "main", focus: 0, zoomed: false, listCursor: row });
    return;
  }
  // Not in the list as filtered (or not loaded): its pane shows it.
  patch(deps, { view: "main" });
  openPane(deps, sessionId);
  const at = deps.ui.getState().panes.indexOf(sessionId);
  if (at >= 0) patch(deps, { focus: at + 1, zoomed: false });
}

export function closePane(deps: UiDeps, sessionId: string): void {
  const s = deps.ui.getState();
  const at = s.panes.indexOf(sessionId);
  if (at < 0) return;
  deps.services.streamControl.closeStream(sessionId);
  deps.services.terminals?.close(sessionId);
  const panes = s.panes.filter((id) => id !== sessionId);
  const { [sessionId]: _closed, ...paneViews } = s.paneViews;
  let focus = s.focus;
  if (focus === at + 1) focus = Math.min(at + 1, panes.length);
  else if (focus > at + 1) focus--;
  patch(deps, { panes, paneViews, focus, zoomed: s.zoomed && panes.length > 0 && focus > 0 });
}

/**
 * Load identity and sessions if nobody has yet, open the initial panes, and feed the
 * messages log from the services. Returns what stops the feed.
 */
export function startScreen(deps: UiDeps, initialSessions: readonly string[]): () => void {
  const stopFeed = feedLogFromServices(deps.services, (level, text) =>
    logMessage(deps, level, text),
  );
  loadFirstScreen(deps.services);
  const max = deps.options.maxPanes;
  const { open, left } = fitPanes(initialSessions, max);
  for (const sessionId of open) openPane(deps, sessionId);
  if (deps.ui.getState().panes.length > 0) patch(deps, { focus: 1 });
  // Said after the panes open, so a refusal among them does not hide it.
  if (left.length > 0) message(deps, panesLeftMessage(left.map(displayId), max), "warn");
  return stopFeed;
}
