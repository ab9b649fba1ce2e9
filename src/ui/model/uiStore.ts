import { createStore, type StoreApi } from "zustand/vanilla";
import type { Approval } from "../../protocol/approvals.js";
import type { LaunchRequest } from "../../protocol/launch.js";
import type { TerminalSize } from "./layout.js";
import { initialPaneView, type PaneView } from "./paneView.js";

/**
 * What the screen looks like, as opposed to what the service said: open panes, focus, zoom,
 * overlays, dialogs, text being typed, per-pane view state, a transient message. One store
 * per signed-in screen (no globals), changed only by the key handlers (src/ui/input).
 */

export type FormKind = "clone" | "branch" | "pr" | "approve" | "reject" | "launch" | "rename";

export interface FormDialogState {
  kind: "form";
  form: FormKind;
  sessionId: string;
  values: readonly string[];
  field: number;
  error: string | null;
  /** The approval an approve or reject form decides (the one picked among `approvals`). */
  approval?: Approval;
  /** An approve or reject form: every pending approval of the session, oldest first. */
  approvals?: readonly Approval[];
  /**
   * The clone form: the repository suggestion picked with ↑/↓ (Tab takes it); an approve or
   * reject form: the approval picked with ↑/↓.
   */
  pick?: number;
  /**
   * The launch form: the Idempotency-Key of this launch, kept while the form is open, so a
   * launch sent again after its answer was lost is the same launch, never a second session.
   */
  intent?: string;
  /** The launch form: a launch is on its way (Enter does nothing until it is answered). */
  sending?: boolean;
}

/** A remote-changing (or workspace-replacing) action waiting for "y". */
export type PendingAction =
  | { kind: "clone"; repoUrl: string; branch: string | null }
  | { kind: "push"; branch: string | null }
  | { kind: "branch"; name: string; from: string | null }
  | { kind: "pr"; title: string; base: string; head: string | null }
  | { kind: "approve" | "reject"; approval: Approval; note: string }
  | { kind: "pause" | "resume" | "start" }
  /** Irreversible: the session and its sandbox go. */
  | { kind: "destroy" }
  /** Z, U or K with rows marked: the one question for every marked session, in list order. */
  | { kind: "bulk"; action: BulkAction; sessionIds: readonly string[] }
  /** What the launch and rename forms send (run at once: the form was the question). */
  | { kind: "launch"; request: LaunchRequest }
  | { kind: "rename"; name: string }
  /** A prompt typed for a paused session: resume it, then send. */
  | { kind: "promptPaused"; prompt: string }
  /** Taking the session's changes home: apply its diff locally, or check out its branch. */
  | { kind: "takeHome"; how: "apply" | "checkout"; files: readonly string[] }
  /** Rewinding the last prompt: the files it changed (as far as the client knows). */
  | { kind: "rewind"; files: readonly string[]; source: "stream" | "status" | "none" }
  /** A review key on a paused session: resume it first, then do what was asked. */
  | { kind: "resumeFirst"; then: ReviewKey }
  /** "Send now" while a prompt runs: cancel it, then send this one. */
  | { kind: "sendNow"; prompt: string; queued: number | null };

/** What Z, U and K do to every marked session. */
export type BulkAction = "pause" | "resume" | "destroy";

/** What a review key opens or asks (model/review.ts). */
export type ReviewKey = "changes" | "files" | "takeHome" | "rewind";

export interface ConfirmDialogState {
  kind: "confirm";
  sessionId: string;
  action: PendingAction;
}

export interface QuitDialogState {
  kind: "quit";
}

/**
 * Changing the issue tracker's settings: its two fields, then (`confirming`) the question
 * before anything is sent. The values are checked before it may be asked.
 */
export interface IntegrationEditState {
  kind: "integrationEdit";
  /** Launches per hour, default repository. */
  values: readonly [string, string];
  field: 0 | 1;
  error: string | null;
  confirming: boolean;
}

export type DialogState =
  | FormDialogState
  | ConfirmDialogState
  | QuitDialogState
  | IntegrationEditState;

export interface HelpOverlayState {
  kind: "help";
  offset: number;
  /** The selected session's state when help opened: what its keys are greyed out by. */
  sessionState?: string | null;
}

export interface DetailOverlayState {
  kind: "detail";
  sessionId: string;
  offset: number;
}

/** The messages log: every message and error of this run, newest first. */
export interface MessagesOverlayState {
  kind: "messages";
  offset: number;
}

/** The attention queue: `cursor` is the selected item (newest first). */
export interface AttentionOverlayState {
  kind: "attention";
  cursor: number;
}

/** The integrations view: scrolled by `offset`. */
export interface IntegrationsOverlayState {
  kind: "integrations";
  offset: number;
}

/** A session's follow-up queue: `cursor` is the selected reply (next first). */
export interface FollowUpsOverlayState {
  kind: "followUps";
  sessionId: string;
  cursor: number;
}

/** A search inside the changes view or the files browser. */
export interface ReviewSearch {
  /** The text searched (empty while the first one is typed). */
  text: string;
  /** Typing it: the field has the cursor. */
  editing: boolean;
  draft: string;
}

/** A file shown whole, read-only with line numbers, scrolled by `offset`. */
export interface WholeFile {
  path: string;
  offset: number;
}

/** The changes view of a session: the diff scrolled by `offset` (its top line). */
export interface ChangesOverlayState {
  kind: "changes";
  sessionId: string;
  offset: number;
  /** The file changes the session's stream had reported when the view opened. */
  seen: readonly { path: string; action: string }[];
  search: ReviewSearch | null;
  whole: WholeFile | null;
}

/** The files browser: the folder shown, the entry under the cursor, an open file. */
export interface FilesOverlayState {
  kind: "files";
  sessionId: string;
  dir: string;
  cursor: number;
  search: ReviewSearch | null;
  whole: WholeFile | null;
}

/** The links menu: the session's URLs, its id and its detected ports. */
export interface LinksOverlayState {
  kind: "links";
  sessionId: string;
  cursor: number;
}

export type OverlayState =
  | ChangesOverlayState
  | FilesOverlayState
  | LinksOverlayState
  | FollowUpsOverlayState
  | HelpOverlayState
  | DetailOverlayState
  | MessagesOverlayState
  | AttentionOverlayState
  | IntegrationsOverlayState;

/** What the body shows: the list and panes, the fleet table, or the merged timeline. */
export type BodyView = "main" | "fleet" | "merged";

/** The merged timeline's view state lives with the panes' under this key. */
export const MERGED_ID = "merged:";

export interface SearchEditing {
  kind: "search";
  sessionId: string;
  draft: string;
}

/** The replay's "jump to a time" field. */
export interface JumpEditing {
  kind: "jump";
  draft: string;
}

/** The prompt box on a pane: the draft, and which earlier prompt is recalled (null: none). */
export interface PromptEditing {
  kind: "prompt";
  sessionId: string;
  draft: string;
  recall: number | null;
  /** The draft as it was before recalling. */
  saved: string;
  /** The queued reply being edited (its place in the follow-up queue); absent: a new reply. */
  queued?: number;
}

export type Editing = { kind: "filter" } | SearchEditing | JumpEditing | PromptEditing;

export type MessageLevel = "info" | "ok" | "warn" | "error";

export interface Message {
  text: string;
  level: MessageLevel;
}

/** A message as the messages log keeps it: whole, with when it was said. */
export interface LogEntry extends Message {
  at: number;
}

/** Entries the messages log keeps; older ones are dropped and counted. */
export const LOG_LIMIT = 500;

export interface UiState {
  readonly size: TerminalSize;
  /** Session ids shown in panes, in grid order. */
  readonly panes: readonly string[];
  /** 0: the session list; n: pane n (1-based). */
  readonly focus: number;
  readonly zoomed: boolean;
  /** Index into the visible (filtered, sorted) sessions; it follows listSelected. */
  readonly listCursor: number;
  /**
   * The session the list's cursor is on (its id): when rows move (a refresh, a stream, a
   * mark), the cursor follows it (model/follow.ts); null before the list has rows.
   */
  readonly listSelected: string | null;
  readonly overlay: OverlayState | null;
  readonly dialog: DialogState | null;
  readonly editing: Editing | null;
  readonly paneViews: Readonly<Record<string, PaneView>>;
  readonly message: Message | null;
  /**
   * The git action outcome that was the newest when the last message was said (kept when
   * the message is cleared): the status line shows an outcome only when it is newer than the
   * last message, so an older one never comes back over (or after) a newer message.
   */
  readonly outcomeBeforeMessage: unknown;
  /** Every message and error of this run, oldest first, at most LOG_LIMIT. */
  readonly log: readonly LogEntry[];
  /** Entries dropped from the front of the log. */
  readonly logDropped: number;
  /** The list and panes, or a whole-body view over them. */
  readonly view: BodyView;
  /** Index into the fleet's visible (filtered, sorted) sessions; it follows fleetSelected. */
  readonly fleetCursor: number;
  /** The session the fleet's cursor is on, as listSelected. */
  readonly fleetSelected: string | null;
  /**
   * The rows' order held while keys are pressed (session ids), so nothing moves under the
   * cursor; null when the list follows its sort (model/listOrder.ts).
   */
  readonly heldOrder: readonly string[] | null;
  /** Sessions whose pane shows their shell (store/terminal/terminalPanes.ts) instead of the timeline. */
  readonly terminals: readonly string[];
  /** A shell pane in scroll mode: its keys are the pane's (search, pages), not the shell's. */
  readonly shellScroll: ShellScrollState | null;
  /**
   * Sessions marked (Space, *) in the list or the fleet, by id: a mark follows its session
   * wherever its row goes, and goes with it (model/marks.ts reads only the shown ones).
   */
  readonly marks: readonly string[];
}

export interface ShellScrollState {
  readonly sessionId: string;
  /** The search being typed (`/`); null when none is. */
  readonly draft: string | null;
  /** The last search run ("" before any). */
  readonly query: string;
}

export type UiStore = StoreApi<UiState>;

export function createUiStore(size: TerminalSize): UiStore {
  return createStore<UiState>()(() => ({
    size,
    panes: [],
    focus: 0,
    zoomed: false,
    listCursor: 0,
    listSelected: null,
    overlay: null,
    dialog: null,
    editing: null,
    paneViews: {},
    message: null,
    outcomeBeforeMessage: null,
    log: [],
    logDropped: 0,
    view: "main",
    fleetCursor: 0,
    fleetSelected: null,
    heldOrder: null,
    terminals: [],
    shellScroll: null,
    marks: [],
  }));
}

export function paneViewOf(s: UiState, sessionId: string): PaneView {
  return s.paneViews[sessionId] ?? DEFAULT_VIEW;
}

const DEFAULT_VIEW = initialPaneView();

/** Session id of the focused pane, or null when the list has focus. */
export function focusedPaneId(s: Pick<UiState, "focus" | "panes">): string | null {
  return s.focus > 0 ? (s.panes[s.focus - 1] ?? null) : null;
}
