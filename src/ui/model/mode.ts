import type { ModeKind } from "./keymap.js";
import { isTooSmall } from "./layout.js";
import {
  type AttentionOverlayState,
  type ChangesOverlayState,
  type ConfirmDialogState,
  type DetailOverlayState,
  type FilesOverlayState,
  type FollowUpsOverlayState,
  type FormDialogState,
  focusedPaneId,
  type HelpOverlayState,
  type IntegrationEditState,
  type IntegrationsOverlayState,
  type JumpEditing,
  type LinksOverlayState,
  type MessagesOverlayState,
  type PromptEditing,
  type SearchEditing,
  type UiState,
} from "./uiStore.js";

/**
 * What the keyboard is talking to right now: the one place that decides it. The keymap table
 * names the kinds and enables each command in some of them, key handling has a table of
 * handlers per kind, and the footer shows the hints of the current one.
 */

export type MainMode =
  /** The terminal is below the smallest size: only quitting works. */
  | { kind: "tooSmall" }
  | { kind: "form"; dialog: FormDialogState }
  | { kind: "confirm"; dialog: ConfirmDialogState }
  /** "Quit while a git action runs?" */
  | { kind: "quit" }
  /** Typing the session list's filter. */
  | { kind: "filter" }
  /** Typing a pane's search. */
  | { kind: "search"; editing: SearchEditing }
  /** Typing the time a replay jumps to. */
  | { kind: "jump"; editing: JumpEditing }
  /** Typing a prompt in a pane's prompt box. */
  | { kind: "prompt"; editing: PromptEditing }
  | { kind: "help"; overlay: HelpOverlayState }
  | { kind: "detail"; overlay: DetailOverlayState }
  | { kind: "messages"; overlay: MessagesOverlayState }
  | { kind: "attention"; overlay: AttentionOverlayState }
  /** What the service can reach. */
  | { kind: "integrations"; overlay: IntegrationsOverlayState }
  /** The changes view, the files browser, the links menu (model/review.ts). */
  | { kind: "changes"; overlay: ChangesOverlayState }
  | { kind: "files"; overlay: FilesOverlayState }
  | { kind: "links"; overlay: LinksOverlayState }
  /** Typing a search in the changes view or the files browser. */
  | { kind: "reviewSearch"; overlay: ChangesOverlayState | FilesOverlayState }
  /** A session's follow-up queue. */
  | { kind: "followUps"; overlay: FollowUpsOverlayState }
  /** Changing the issue tracker's settings (its fields, then the confirmation). */
  | { kind: "integrationEdit"; dialog: IntegrationEditState }
  /** The fleet table over the whole body. */
  | { kind: "fleet" }
  /** The merged timeline over the whole body. */
  | { kind: "merged" }
  | { kind: "pane"; sessionId: string }
  /** The focused pane shows its session's shell: the keys are the shell's. */
  | { kind: "terminal"; sessionId: string }
  /** The focused shell pane scrolled back: its keys are the pane's (search, pages). */
  | { kind: "terminalScroll"; sessionId: string }
  /** Typing a search of the shell pane's scrollback. */
  | { kind: "terminalSearch"; sessionId: string; draft: string }
  | { kind: "list" };

/**
 * The mode of the signed-in screen. What is on top wins: a too-small terminal, then a dialog
 * (a form's focused field included), then a text field being typed in, then an overlay, then
 * a whole-body view (the fleet, the merged timeline), then the focused pane or the list.
 */
export function modeOf(s: UiState): MainMode {
  if (isTooSmall(s.size)) return { kind: "tooSmall" };
  const d = s.dialog;
  if (d) {
    if (d.kind === "form") return { kind: "form", dialog: d };
    if (d.kind === "confirm") return { kind: "confirm", dialog: d };
    if (d.kind === "integrationEdit") return { kind: "integrationEdit", dialog: d };
    return { kind: "quit" };
  }
  const e = s.editing;
  if (e) {
    if (e.kind === "filter") return { kind: "filter" };
    if (e.kind === "prompt") return { kind: "prompt", editing: e };
    return e.kind === "search" ? { kind: "search", editing: e } : { kind: "jump", editing: e };
  }
  const o = s.overlay;
  if (o) {
    if (o.kind === "help") return { kind: "help", overlay: o };
    if (o.kind === "detail") return { kind: "detail", overlay: o };
    if (o.kind === "attention") return { kind: "attention", overlay: o };
    if (o.kind === "integrations") return { kind: "integrations", overlay: o };
    if (o.kind === "changes" || o.kind === "files") {
      if (o.search?.editing) return { kind: "reviewSearch", overlay: o };
      return o.kind === "changes" ? { kind: "changes", overlay: o } : { kind: "files", overlay: o };
    }
    if (o.kind === "links") return { kind: "links", overlay: o };
    if (o.kind === "followUps") return { kind: "followUps", overlay: o };
    return { kind: "messages", overlay: o };
  }
  if (s.view === "fleet") return { kind: "fleet" };
  if (s.view === "merged") return { kind: "merged" };
  const paneId = focusedPaneId(s);
  if (paneId && s.terminals.includes(paneId)) {
    const sc = s.shellScroll;
    if (sc?.sessionId !== paneId) return { kind: "terminal", sessionId: paneId };
    return sc.draft === null
      ? { kind: "terminalScroll", sessionId: paneId }
      : { kind: "terminalSearch", sessionId: paneId, draft: sc.draft };
  }
  return paneId ? { kind: "pane", sessionId: paneId } : { kind: "list" };
}

/** The mode's kind alone: a stable value for a store selector. */
export function modeKindOf(s: UiState): ModeKind {
  return modeOf(s).kind;
}
