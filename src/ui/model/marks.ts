import type { Session } from "../../protocol/resources.js";
import type { UiDeps } from "./deps.js";
import { shownSessions } from "./listOrder.js";

/**
 * Marks (Space, * in the list or the fleet): kept by session id in the UI store, so a mark
 * follows its session when rows move. Only sessions still shown and not destroyed count: a
 * session that vanished or was destroyed has lost its mark.
 */

function live(s: Session): boolean {
  return s.state !== "destroyed";
}

/** The marked sessions still shown, in the rows' order. */
export function markedShown(deps: Pick<UiDeps, "services" | "ui">): string[] {
  const marks = new Set(deps.ui.getState().marks);
  if (marks.size === 0) return [];
  return shownSessions(deps)
    .filter((s) => live(s) && marks.has(s.session_id))
    .map((s) => s.session_id);
}

/** The marks with the one of `sessionId` switched, stale ones (vanished, destroyed) dropped. */
export function toggledMarks(deps: Pick<UiDeps, "services" | "ui">, sessionId: string): string[] {
  const kept = markedShown(deps);
  return kept.includes(sessionId) ? kept.filter((id) => id !== sessionId) : [...kept, sessionId];
}

/** Every shown session marked; none when every one already is. */
export function allMarks(deps: Pick<UiDeps, "services" | "ui">): string[] {
  const shown = shownSessions(deps)
    .filter(live)
    .map((s) => s.session_id);
  const marked = new Set(markedShown(deps));
  return shown.every((id) => marked.has(id)) ? [] : shown;
}

/**
 * A row's first column (list and fleet): the cursor and the mark in one cell, so marking
 * moves nothing: ▸ the cursor, ✓ marked (the cursor's row is highlighted as well).
 */
export function rowLead(selected: boolean, marked: boolean): string {
  if (marked) return "✓";
  return selected ? "▸" : " ";
}
