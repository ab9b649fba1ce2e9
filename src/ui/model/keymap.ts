/**
 * The one keymap table: command → keys → description → the modes where it is enabled.
 * Key handling (src/ui/input), the `?` overlay, the footer hints and the README's key
 * reference are all generated from it; never hand-write help elsewhere. Adding a key is a
 * row here and a handler in src/ui/input/handlers.
 */

/** What the keyboard is talking to (model/mode.ts decides which one it is now). */
export type ModeKind =
  | "tooSmall"
  | "form"
  | "confirm"
  | "quit"
  | "filter"
  | "search"
  | "jump"
  | "prompt"
  | "help"
  | "detail"
  | "messages"
  | "attention"
  | "integrations"
  | "integrationEdit"
  | "followUps"
  | "fleet"
  | "merged"
  | "pane"
  | "list"
  | "login"
  /**
   * A session's shell has the keys (its pane is focused): every key goes to the shell but the
   * rows that name this mode. Left out of MODE_KINDS on purpose: the keys enabled "in every
   * mode" (Ctrl-C) are the shell's here.
   */
  | "terminal"
  /** A shell pane scrolled back (Shift-PgUp): its keys are the pane's until Esc or q. */
  | "terminalScroll"
  /** Typing a search of a shell pane's scrollback. */
  | "terminalSearch"
  // review and take home (changes view, files browser, links menu, their search field)
  | "changes"
  | "files"
  | "links"
  | "reviewSearch";

export const MODE_KINDS: readonly ModeKind[] = [
  "tooSmall",
  "form",
  "confirm",
  "quit",
  "filter",
  "search",
  "jump",
  "prompt",
  "help",
  "detail",
  "messages",
  "attention",
  "integrations",
  "integrationEdit",
  "followUps",
  "fleet",
  "merged",
  "pane",
  "list",
  "login",
  "changes",
  "files",
  "links",
  "reviewSearch",
  "terminalScroll",
  "terminalSearch",
];

/** Keys that have a name rather than a character. */
export type NamedKey =
  | "up"
  | "down"
  | "left"
  | "right"
  | "pageUp"
  | "pageDown"
  | "home"
  | "end"
  | "return"
  | "escape"
  | "tab"
  | "backspace"
  | "delete";

export interface KeySpec {
  /** A printable character (case-sensitive: "G" is shift+g) or a named key. */
  char?: string;
  name?: NamedKey;
  ctrl?: boolean;
  shift?: boolean;
}

export type CommandId =
  | "help"
  | "messages"
  | "quit"
  | "forceQuit"
  | "focusNext"
  | "focusPrev"
  | "focusList"
  | "focusPane"
  | "nextAttention"
  | "attentionQueue"
  | "integrations"
  | "editIntegration"
  | "fleet"
  | "merged"
  | "refresh"
  | "back"
  | "up"
  | "down"
  | "pageUp"
  | "pageDown"
  | "top"
  | "bottom"
  | "open"
  | "filter"
  | "stateFilter"
  | "includeDestroyed"
  | "sort"
  | "detail"
  | "zoom"
  | "closePane"
  | "follow"
  | "wrap"
  | "timestamps"
  | "search"
  | "searchNext"
  | "searchPrev"
  | "toggleKindPrompt"
  | "toggleKindOutput"
  | "toggleKindFiles"
  | "toggleKindState"
  | "save"
  | "clone"
  | "push"
  | "branch"
  | "pullRequest"
  | "reply"
  | "cancelPrompt"
  | "approve"
  | "reject"
  | "pause"
  | "resume"
  | "start"
  | "launch"
  | "rename"
  | "destroy"
  | "followUpQueue"
  | "followUpEdit"
  | "followUpDrop"
  | "promptSendNow"
  | "toggleTools"
  | "promptSend"
  | "promptNewline"
  | "promptRecallPrev"
  | "promptRecallNext"
  | "promptEditor"
  | "submit"
  | "cancel"
  | "nextField"
  | "confirmYes"
  | "confirmNo"
  | "deleteChar"
  | "deleteWord"
  | "clearField"
  | "keyThisRun"
  | "keyToFile"
  | "mark"
  | "markAll"
  | "replayToggle"
  | "replayFaster"
  | "replaySlower"
  | "replayBack"
  | "replayForward"
  | "replayJump"
  | "openTerminal"
  | "attachTerminal"
  | "leaveTerminal"
  | "terminalScrollUp"
  | "terminalScrollDown"
  | "terminalPageUp"
  | "terminalFind"
  | "terminalFindOlder"
  | "terminalFindNewer"
  | "terminalLive"
  // review and take home
  | "changes"
  | "filesBrowser"
  | "takeHome"
  | "rewind"
  | "links"
  | "nextHunk"
  | "prevHunk"
  | "nextFile"
  | "prevFile"
  | "reviewSearch"
  | "reviewNext"
  | "reviewPrev"
  | "reviewOpen"
  | "copyLink"
  | "takeHomeSwitch";

export interface Command {
  id: CommandId;
  keys: KeySpec[];
  /** Short label for the footer. */
  label: string;
  /** One line for the help overlay and the README. */
  description: string;
  /** The modes where its keys mean this command; anywhere else they mean something else. */
  modes: readonly ModeKind[];
  /** A footer hint: its place on the line (lower first), in these modes (default: all of its own). */
  footer?: { rank: number; in?: readonly ModeKind[] };
  /** Effective scope the command needs (git actions); disabled without it. */
  scope?: string;
  /**
   * Only while the UI plays a recording (`agent-sessions replay`): listed in a group of its
   * own, hinted in the footer only then; elsewhere its keys do nothing.
   */
  replay?: true;
  /**
   * Only in a live UI (not while a recording plays): its keys may be a replay's too, as
   * Space is; the key path gives a key to one or the other, never both.
   */
  live?: true;
}

/** A shell pane with the keys: live, scrolled back, its search typed. */
const SHELL_MODES: readonly ModeKind[] = ["terminal", "terminalScroll", "terminalSearch"];
/** The changes view, the files browser and the links menu (they scroll, Esc closes them). */
const REVIEW_VIEWS: readonly ModeKind[] = ["changes", "files", "links"];
/** The session list and the pane: the screens under any overlay or dialog. */
const SCREENS: readonly ModeKind[] = ["list", "pane"];
/** The whole-body views over them: the fleet table and the merged timeline. */
const VIEWS: readonly ModeKind[] = ["fleet", "merged"];
const OVERLAYS: readonly ModeKind[] = [
  "help",
  "detail",
  "messages",
  "attention",
  "integrations",
  ...REVIEW_VIEWS,
  "followUps",
];
/** Where a text field has the cursor. */
const TEXT_FIELDS: readonly ModeKind[] = [
  "form",
  "filter",
  "search",
  "jump",
  "login",
  "prompt",
  "integrationEdit",
  "reviewSearch",
  "terminalSearch",
];
/** Where the focused or selected session can be replied to: a row opens its pane. */
const ACTING: readonly ModeKind[] = ["list", "pane", "fleet"];
/** Where the session's own actions are offered: its pane, and its row of the fleet. */
const SESSION_ACTS: readonly ModeKind[] = ["pane", "fleet"];
/** Where j/k and friends move something: the list, a pane, a view, an overlay. */
const SCROLLING: readonly ModeKind[] = [...SCREENS, ...VIEWS, ...OVERLAYS];
/** Where the selected session is a row of a table: the list and the fleet. */
const ROWS: readonly ModeKind[] = ["list", "fleet"];
/** Where a timeline is on screen: a pane and the merged timeline. */
const TIMELINES: readonly ModeKind[] = ["pane", "merged"];

const k = (char: string): KeySpec => ({ char });
const named = (name: NamedKey, mods: Omit<KeySpec, "name" | "char"> = {}): KeySpec => ({
  name,
  ...mods,
});
const ctrl = (char: string): KeySpec => ({ char, ctrl: true });

export const KEYMAP: readonly Command[] = [
  // global
  {
    id: "help",
    keys: [k("?")],
    label: "help",
    description: "show or hide this help",
    modes: [...SCREENS, ...VIEWS, "help", "detail", "messages"],
    footer: { rank: 10 },
  },
  {
    id: "messages",
    keys: [k("m")],
    label: "messages",
    description: "show every message and error, whole, with its time (newest first)",
    modes: [...SCREENS, "messages"],
    footer: { rank: 10.5 },
  },
  {
    id: "quit",
    keys: [k("q")],
    label: "quit",
    description: "quit (asks first while a git action runs)",
    modes: [...SCREENS, ...VIEWS, ...OVERLAYS, "tooSmall"],
    footer: { rank: 11, in: [...SCREENS, ...VIEWS] },
  },
  {
    id: "forceQuit",
    keys: [ctrl("c")],
    label: "exit",
    description: "exit at once and restore the terminal",
    modes: MODE_KINDS,
  },
  {
    id: "focusNext",
    keys: [named("tab")],
    label: "focus",
    description: "focus the next pane (the session list counts as one)",
    modes: SCREENS,
    footer: { rank: 12 },
  },
  {
    id: "focusPrev",
    keys: [named("tab", { shift: true })],
    label: "focus back",
    description: "focus the previous pane",
    modes: SCREENS,
  },
  {
    id: "focusList",
    keys: [k("0")],
    label: "list",
    description: "focus the session list",
    modes: SCREENS,
  },
  {
    id: "focusPane",
    keys: ["1", "2", "3", "4", "5", "6"].map(k),
    label: "pane N",
    description: "focus pane 1–6",
    modes: SCREENS,
  },
  {
    id: "nextAttention",
    keys: [k("a")],
    label: "attention",
    description:
      "jump to the next session that needs you, newest first (awaiting approval, failed, finished, its stream stopped or silent; then paused or destroyed)",
    modes: [...SCREENS, ...VIEWS],
    footer: { rank: 13 },
  },
  {
    id: "attentionQueue",
    keys: [k("A")],
    label: "queue",
    description:
      "show the attention queue: every session that needs you, newest first, why and since when (Enter jumps to one)",
    modes: [...SCREENS, ...VIEWS, "attention"],
  },
  {
    id: "integrations",
    keys: [k("I")],
    label: "integrations",
    description:
      "integrations: the code hosting app's installations and repositories, your token, the issue tracker, the chat tool (I again or Esc closes)",
    modes: [...SCREENS, ...VIEWS, "integrations"],
    scope: "integrations:read",
  },
  {
    id: "editIntegration",
    keys: [k("e")],
    label: "edit",
    description:
      "in the integrations view: change the issue tracker's hourly launch limit and default repository (admins and owners with integrations:write; asks first)",
    modes: ["integrations"],
    footer: { rank: 1 },
    scope: "integrations:write",
  },
  {
    id: "fleet",
    keys: [k("v")],
    label: "fleet",
    description:
      "fleet view: every session in one table with live columns (v again or Esc goes back)",
    modes: [...SCREENS, ...VIEWS],
    footer: { rank: 18, in: SCREENS },
  },
  {
    id: "merged",
    keys: [k("T")],
    label: "merged",
    description:
      "merged timeline: the events of every streamed session in time order, tagged by session (T again or Esc goes back)",
    modes: [...SCREENS, ...VIEWS],
  },
  {
    id: "refresh",
    keys: [ctrl("r")],
    label: "refresh",
    description:
      "reload identity and the session list (it also refreshes by itself); in the integrations view, read them again",
    modes: [...SCREENS, ...VIEWS, "integrations"],
  },
  {
    id: "back",
    keys: [named("escape")],
    label: "clear",
    description: "clear the pane's search or the list's filters; with none, leave zoom",
    modes: SCREENS,
  },
  // git actions, on the focused session (list row or pane)
  {
    id: "clone",
    keys: [k("c")],
    label: "clone",
    description: "clone a repository into the focused session",
    modes: [...SCREENS, "fleet"],
    footer: { rank: 14, in: [...SCREENS, "fleet"] },
    scope: "sessions:write",
  },
  {
    id: "push",
    keys: [k("p")],
    label: "push",
    description: "push the focused session's branch (asks first)",
    modes: [...SCREENS, "fleet"],
    footer: { rank: 15, in: [...SCREENS, "fleet"] },
    scope: "sessions:write",
  },
  {
    id: "branch",
    keys: [k("b")],
    label: "branch",
    description: "create a branch in the focused session (asks first)",
    modes: [...SCREENS, "fleet"],
    footer: { rank: 16, in: [...SCREENS, "fleet"] },
    scope: "sessions:write",
  },
  {
    id: "pullRequest",
    keys: [k("r")],
    label: "PR",
    description: "open a pull request from the focused session (asks first)",
    modes: [...SCREENS, "fleet"],
    footer: { rank: 17, in: [...SCREENS, "fleet"] },
    scope: "sessions:write",
  },
  // acting on the focused session (list row, pane or fleet row)
  {
    id: "reply",
    keys: [k("R")],
    label: "reply",
    description: "reply to the agent: a prompt box on the session's pane",
    modes: ACTING,
    footer: { rank: 13.5, in: ["pane"] },
    scope: "sessions:prompt",
  },
  {
    id: "cancelPrompt",
    keys: [k("C")],
    label: "cancel prompt",
    description: "cancel the prompt running in the session (says when nothing was running)",
    modes: SESSION_ACTS,
    scope: "sessions:prompt",
  },
  {
    id: "approve",
    keys: [k("Y")],
    label: "approve",
    description:
      "approve one of the session's pending approvals (the oldest picked; ↑/↓ picks another, each shown whole), with an optional note (asks first, naming what is approved)",
    modes: SESSION_ACTS,
    scope: "sessions:write",
  },
  {
    id: "reject",
    keys: [k("X")],
    label: "reject",
    description:
      "reject one of the session's pending approvals (the oldest picked; ↑/↓ picks another), with an optional note (asks first)",
    modes: SESSION_ACTS,
    scope: "sessions:write",
  },
  {
    id: "pause",
    keys: [k("Z")],
    label: "pause",
    description: "pause the session, or every marked one (asks first)",
    modes: ACTING,
    scope: "sessions:write",
  },
  {
    id: "resume",
    keys: [k("U")],
    label: "resume",
    description: "resume the paused session, or every marked one (asks first)",
    modes: ACTING,
    scope: "sessions:write",
  },
  {
    id: "start",
    keys: [k("B")],
    label: "start",
    description: "start the session whatever its state: creating, paused or running (asks first)",
    modes: SESSION_ACTS,
    scope: "sessions:write",
  },
  // Starting and ending work (issue 33): launch, rename, destroy.
  {
    id: "launch",
    keys: [k("+")],
    label: "new",
    description:
      "launch a new session: repository (suggested from the code hosting app), agent, model, template, plan mode, on-complete, TTL and the first prompt; its pane follows it from creating to its first answer",
    modes: [...ROWS, "pane"],
    footer: { rank: 13.2, in: ["list"] },
    scope: "sessions:prompt",
  },
  {
    id: "rename",
    keys: [k("M")],
    label: "rename",
    description: "rename the session",
    modes: ACTING,
    scope: "sessions:write",
  },
  {
    id: "destroy",
    keys: [k("K")],
    label: "destroy",
    description:
      "destroy the session and its sandbox, or every marked one, irreversibly (asks first, saying what is lost)",
    modes: ACTING,
    scope: "sessions:delete",
  },
  // the follow-up queue (replies given while a prompt runs)
  {
    id: "followUpQueue",
    keys: [k("Q")],
    label: "queue",
    description:
      "the session's follow-up queue: replies given while a prompt runs wait there and go one at a time as each prompt completes (Q again or Esc closes)",
    modes: [...ACTING, "followUps"],
    scope: "sessions:prompt",
  },
  {
    id: "followUpEdit",
    keys: [k("e"), named("return")],
    label: "edit",
    description:
      "in the follow-up queue: edit the selected reply in the prompt box (Enter keeps it queued, Ctrl-S sends it now)",
    modes: ["followUps"],
    footer: { rank: 1 },
  },
  {
    id: "followUpDrop",
    keys: [k("d"), named("delete")],
    label: "drop",
    description: "in the follow-up queue: drop the selected reply",
    modes: ["followUps"],
    footer: { rank: 2 },
  },
  {
    id: "promptSendNow",
    keys: [ctrl("s")],
    label: "send now",
    description:
      "send now: while a prompt runs, cancel it and send this one instead of queueing it (asks first)",
    modes: ["prompt"],
    footer: { rank: 1.5 },
  },
  {
    id: "toggleTools",
    keys: [k("E")],
    label: "tools",
    description: "expand or fold the tool use and results of the answer shown in the pane",
    modes: ["pane"],
  },
  // the session's shell (a terminal in its pane)
  {
    id: "openTerminal",
    keys: [k("$")],
    label: "shell",
    description:
      "open the focused session's shell in its pane; keys then go to the shell until Ctrl-] (a paused session asks to resume first, a destroyed one says it has none)",
    modes: ACTING,
    scope: "sessions:terminal",
  },
  {
    id: "attachTerminal",
    keys: [k("@")],
    label: "attach",
    description:
      "attach: the focused session's shell takes the whole terminal, like ssh and agent-sessions attach (Ctrl-] detaches; the UI comes back as it was)",
    modes: ACTING,
    scope: "sessions:terminal",
  },
  {
    id: "leaveTerminal",
    keys: [ctrl("]")],
    label: "leave shell",
    description: "in a shell: give the keys back to the grid (the shell stays open in its pane)",
    modes: ["terminal", "terminalScroll"],
    footer: { rank: 1 },
  },
  {
    id: "terminalScrollUp",
    keys: [named("pageUp", { shift: true })],
    label: "scroll mode",
    description:
      "in a shell: scroll mode, a page back through its output; the keys are then the pane's (/ n N PgUp PgDn) until Esc or q",
    modes: ["terminal"],
    footer: { rank: 2 },
  },
  {
    id: "terminalPageUp",
    keys: [named("pageUp"), named("pageUp", { shift: true })],
    label: "page back",
    description: "scroll mode: a page further back",
    modes: ["terminalScroll"],
    footer: { rank: 3 },
  },
  {
    id: "terminalScrollDown",
    keys: [named("pageDown"), named("pageDown", { shift: true })],
    label: "page forward",
    description: "scroll mode: a page forward, towards the live screen",
    modes: ["terminalScroll"],
    footer: { rank: 4 },
  },
  {
    id: "terminalFind",
    keys: [k("/")],
    label: "search",
    description: "scroll mode: search the shell's scrollback and screen (Enter runs it)",
    modes: ["terminalScroll"],
    footer: { rank: 5 },
  },
  {
    id: "terminalFindOlder",
    keys: [k("n")],
    label: "next",
    description: "scroll mode: the next match further back",
    modes: ["terminalScroll"],
    footer: { rank: 6 },
  },
  {
    id: "terminalFindNewer",
    keys: [k("N")],
    label: "previous",
    description: "scroll mode: the match after it, towards the live screen",
    modes: ["terminalScroll"],
    footer: { rank: 7 },
  },
  {
    id: "terminalLive",
    keys: [named("escape"), k("q")],
    label: "live shell",
    description: "scroll mode: back to the live screen, the keys the shell's again",
    modes: ["terminalScroll"],
    footer: { rank: 8 },
  },
  // the prompt box
  {
    id: "promptSend",
    keys: [named("return")],
    label: "send",
    description: "send the prompt (a pasted text's line breaks stay line breaks)",
    modes: ["prompt"],
    footer: { rank: 1 },
  },
  {
    id: "promptNewline",
    keys: [ctrl("j")],
    label: "new line",
    description: "a new line in the prompt (Alt-Enter too)",
    modes: ["prompt"],
    footer: { rank: 2 },
  },
  {
    id: "promptRecallPrev",
    keys: [named("up")],
    label: "recall",
    description: "recall the session's previous prompt (sent from here)",
    modes: ["prompt"],
    footer: { rank: 3 },
  },
  {
    id: "promptRecallNext",
    keys: [named("down")],
    label: "recall next",
    description: "recall the next prompt (past the newest: the draft)",
    modes: ["prompt"],
  },
  {
    id: "promptEditor",
    keys: [ctrl("e")],
    label: "editor",
    description: "edit the prompt in $VISUAL or $EDITOR (the launch form's prompt too)",
    modes: ["prompt", "form"],
    footer: { rank: 4, in: ["prompt"] },
  },
  // movement, shared by list and pane
  {
    id: "up",
    keys: [k("k"), named("up")],
    label: "up",
    description:
      "move up / scroll up (in the clone form, ↑ picks a repository the code hosting app reaches)",
    modes: [...SCROLLING, "form"],
  },
  {
    id: "down",
    keys: [k("j"), named("down")],
    label: "down",
    description: "move down / scroll down (in the clone form, ↓ picks a repository)",
    modes: [...SCROLLING, "form"],
  },
  {
    id: "pageUp",
    keys: [named("pageUp"), ctrl("u")],
    label: "page up",
    description: "one page up",
    modes: SCROLLING,
  },
  {
    id: "pageDown",
    keys: [named("pageDown"), ctrl("d")],
    label: "page down",
    description: "one page down",
    modes: SCROLLING,
  },
  {
    id: "top",
    keys: [k("g"), named("home")],
    label: "top",
    description: "go to the top",
    modes: SCROLLING,
  },
  {
    id: "bottom",
    keys: [k("G"), named("end")],
    label: "bottom",
    description: "go to the bottom (in a pane: resume following)",
    modes: SCROLLING,
  },
  // session list
  {
    id: "open",
    keys: [named("return")],
    label: "open",
    description:
      "open the selected session in a pane (in the list, the fleet view and the attention queue)",
    modes: [...ROWS, "attention"],
    footer: { rank: 1 },
  },
  {
    id: "filter",
    keys: [k("/")],
    label: "filter",
    description:
      "filter sessions by text (id and visible fields; state:, agent:, template:, visibility: match a field; Esc clears it)",
    modes: ROWS,
    footer: { rank: 2 },
  },
  {
    id: "stateFilter",
    keys: [k("s")],
    label: "state",
    description: "cycle the state filter (all, then each state a loaded session is in)",
    modes: ROWS,
  },
  {
    id: "includeDestroyed",
    keys: [k("D")],
    label: "destroyed",
    description:
      "show destroyed and error sessions too, or hide them again (a view: nothing is read again)",
    modes: ROWS,
  },
  {
    id: "sort",
    keys: [k("o")],
    label: "sort",
    description: "cycle the sort order",
    modes: ROWS,
  },
  {
    id: "detail",
    keys: [k("i")],
    label: "detail",
    description: "show every field of the selected session, and the API routes in use",
    modes: [...ROWS, "detail"],
  },
  // pane
  {
    id: "zoom",
    keys: [k("z")],
    label: "zoom",
    description: "zoom the pane to full screen and back",
    modes: ["pane"],
    footer: { rank: 1 },
  },
  {
    id: "closePane",
    keys: [k("x")],
    label: "close",
    description: "close the pane",
    modes: ["pane"],
  },
  {
    id: "follow",
    keys: [k("f")],
    label: "follow",
    description: "toggle follow mode (auto-scroll)",
    modes: TIMELINES,
    footer: { rank: 2 },
  },
  {
    id: "wrap",
    keys: [k("w")],
    label: "wrap",
    description: "toggle line wrapping",
    modes: TIMELINES,
  },
  {
    id: "timestamps",
    keys: [k("t")],
    label: "time",
    description: "toggle timestamps",
    modes: TIMELINES,
  },
  {
    id: "search",
    keys: [k("/")],
    label: "search",
    description: "search the pane (lands on the newest match; Esc clears the search)",
    modes: TIMELINES,
    footer: { rank: 3 },
  },
  {
    id: "searchNext",
    keys: [k("n")],
    label: "next",
    description: "next search match (older, further up)",
    modes: TIMELINES,
  },
  {
    id: "searchPrev",
    keys: [k("N")],
    label: "prev",
    description: "previous search match (newer, further down)",
    modes: TIMELINES,
  },
  {
    id: "toggleKindPrompt",
    keys: [k("P")],
    label: "prompt",
    description: "show or hide prompt progress",
    modes: TIMELINES,
  },
  {
    id: "toggleKindOutput",
    keys: [k("O")],
    label: "output",
    description: "show or hide process output",
    modes: TIMELINES,
  },
  {
    id: "toggleKindFiles",
    keys: [k("F")],
    label: "files",
    description: "show or hide file changes",
    modes: TIMELINES,
  },
  {
    id: "toggleKindState",
    keys: [k("S")],
    label: "state",
    description: "show or hide state changes",
    modes: TIMELINES,
  },
  {
    id: "save",
    keys: [k("e")],
    label: "export",
    description: "save the pane's events to a file (NDJSON)",
    modes: TIMELINES,
  },
  // dialogs
  {
    id: "submit",
    keys: [named("return")],
    label: "submit",
    description: "submit the form",
    modes: [...TEXT_FIELDS.filter((m) => m !== "prompt"), "confirm", "quit"],
    footer: { rank: 1, in: ["form", "filter", "search", "jump", "integrationEdit"] },
  },
  {
    id: "cancel",
    keys: [named("escape")],
    label: "cancel",
    description:
      "close the dialog, overlay or view (the merged timeline; the fleet drops a filter first)",
    modes: [...TEXT_FIELDS, "confirm", "quit", ...OVERLAYS, ...VIEWS],
    footer: { rank: 20 },
  },
  {
    id: "nextField",
    keys: [named("tab")],
    label: "next field",
    description:
      "move to the next field (in the clone form's repository field, take the picked suggestion first)",
    modes: ["form", "integrationEdit"],
    footer: { rank: 21 },
  },
  {
    id: "confirmYes",
    keys: [k("y")],
    label: "yes",
    description: "confirm",
    modes: ["confirm", "quit", "integrationEdit"],
    footer: { rank: 2, in: ["confirm", "quit"] },
  },
  {
    id: "confirmNo",
    keys: [k("n")],
    label: "no",
    description: "decline",
    modes: ["confirm", "quit", "integrationEdit"],
    footer: { rank: 3, in: ["confirm", "quit"] },
  },
  {
    id: "deleteChar",
    keys: [named("backspace"), named("delete")],
    label: "delete",
    description: "delete the character before the cursor (text fields)",
    modes: TEXT_FIELDS,
  },
  {
    id: "deleteWord",
    keys: [ctrl("w")],
    label: "delete word",
    description: "delete the word before the cursor (text fields)",
    modes: TEXT_FIELDS,
  },
  {
    id: "clearField",
    keys: [ctrl("u")],
    label: "clear",
    description: "clear the text field",
    modes: TEXT_FIELDS,
  },
  // sign-in where no keychain can keep the key
  {
    id: "keyThisRun",
    keys: [k("r")],
    label: "this run only",
    description: "sign in: no keychain here, so keep the key in memory for this run only",
    modes: ["login"],
  },
  {
    id: "keyToFile",
    keys: [k("f")],
    label: "plain-text file",
    description:
      "sign in: no keychain here, so keep the key in a plain-text file, mode 0600 (as login --insecure-storage)",
    modes: ["login"],
  },
  // review and take home: on the focused session (pane, list row or fleet row), and inside
  // the changes view, the files browser and the links menu
  {
    id: "changes",
    keys: [k("d")],
    label: "changes",
    description:
      "the session's changes: changed files with +/− counts and the coloured diff (]/[ hunk, }/{ file, / search, Enter the whole file)",
    modes: [...ACTING, "changes"],
    footer: { rank: 16.5, in: SCREENS },
    scope: "sessions:write",
  },
  {
    id: "filesBrowser",
    keys: [k("l")],
    label: "files",
    description:
      "browse the session's files: the tree, a file read-only with line numbers, / searches names and contents",
    modes: [...ACTING, "files"],
    scope: "sessions:read",
  },
  {
    id: "takeHome",
    keys: [k("H")],
    label: "take home",
    description:
      "take the session's changes home: apply its diff to the local git checkout (a preflight first, conflicts named) or check out the branch it pushed (asks first, naming the repository, branch and files)",
    modes: [...ACTING, "changes"],
    scope: "sessions:write",
  },
  {
    id: "rewind",
    keys: [k("W")],
    label: "rewind",
    description:
      "rewind the session's last prompt and its file changes (asks first, listing the files; then says what the service reverted)",
    modes: ACTING,
    scope: "sessions:write",
  },
  {
    id: "links",
    keys: [k("u")],
    label: "links",
    description:
      "open or copy the session's preview, pull request and sandbox URLs, its id, and its detected ports",
    modes: [...ACTING, "links"],
    scope: "sessions:read",
  },
  {
    id: "nextHunk",
    keys: [k("]")],
    label: "hunk",
    description: "next hunk",
    modes: ["changes"],
    footer: { rank: 1 },
  },
  {
    id: "prevHunk",
    keys: [k("[")],
    label: "hunk back",
    description: "previous hunk",
    modes: ["changes"],
  },
  {
    id: "nextFile",
    keys: [k("}")],
    label: "file",
    description: "next file",
    modes: ["changes"],
    footer: { rank: 2 },
  },
  {
    id: "prevFile",
    keys: [k("{")],
    label: "file back",
    description: "previous file",
    modes: ["changes"],
  },
  {
    id: "reviewSearch",
    keys: [k("/")],
    label: "search",
    description:
      "search the diff (changes view), or file names and contents (files browser: asks the service)",
    modes: ["changes", "files"],
    footer: { rank: 3 },
  },
  {
    id: "reviewNext",
    keys: [k("n")],
    label: "next",
    description: "next search match",
    modes: ["changes", "files"],
  },
  {
    id: "reviewPrev",
    keys: [k("N")],
    label: "prev",
    description: "previous search match",
    modes: ["changes", "files"],
  },
  {
    id: "reviewOpen",
    keys: [named("return")],
    label: "open",
    description:
      "the file under the cursor whole (changes view, files browser: a folder opens); in the links menu, open the link in the browser",
    modes: REVIEW_VIEWS,
    footer: { rank: 4 },
  },
  {
    id: "copyLink",
    keys: [k("c")],
    label: "copy",
    description: "copy the link or id to the clipboard (OSC 52, written by this client)",
    modes: ["links"],
    footer: { rank: 5 },
  },
  {
    id: "takeHomeSwitch",
    keys: [named("tab")],
    label: "apply/checkout",
    description:
      "taking changes home: switch between applying the diff and checking out the pushed branch",
    modes: ["confirm"],
  },
  // marks (many at once): Z, U and K act on every marked session
  {
    id: "mark",
    keys: [k(" ")],
    label: "mark",
    description: "mark or unmark the selected session: Z, U and K then act on every marked one",
    modes: ["list", "fleet"],
    footer: { rank: 95, in: ["fleet"] },
    live: true,
  },
  {
    id: "markAll",
    keys: [k("*")],
    label: "mark all",
    description: "mark every shown session, or unmark all when all are marked",
    modes: ["list", "fleet"],
  },
  // replay (agent-sessions replay): on the list and in a pane, while a recording plays
  {
    id: "replayToggle",
    keys: [k(" ")],
    label: "play/pause",
    description: "play or pause the recording",
    modes: SCREENS,
    footer: { rank: -3 },
    replay: true,
  },
  {
    id: "replayFaster",
    keys: [k("]"), k(">")],
    label: "faster",
    description: "play faster: ×1, ×10, ×100, max",
    modes: SCREENS,
    footer: { rank: -2 },
    replay: true,
  },
  {
    id: "replaySlower",
    keys: [k("["), k("<")],
    label: "slower",
    description: "play slower",
    modes: SCREENS,
    replay: true,
  },
  {
    id: "replayBack",
    keys: [named("left")],
    label: "back",
    description: "10 seconds back",
    modes: SCREENS,
    replay: true,
  },
  {
    id: "replayForward",
    keys: [named("right")],
    label: "forward",
    description: "10 seconds forward",
    modes: SCREENS,
    replay: true,
  },
  {
    id: "replayJump",
    keys: [k(":")],
    label: "jump",
    description: "jump to a time (10:12:30, +5m, -30s, 50%, start, end)",
    modes: SCREENS,
    footer: { rank: -1 },
    replay: true,
  },
];

export function commandById(id: CommandId): Command {
  const c = KEYMAP.find((x) => x.id === id);
  if (!c) throw new Error(`no command ${id}`);
  return c;
}

/** How a key spec is written in help and docs. */
export function keyLabel(spec: KeySpec): string {
  const names: Record<NamedKey, string> = {
    up: "↑",
    down: "↓",
    left: "←",
    right: "→",
    pageUp: "PgUp",
    pageDown: "PgDn",
    home: "Home",
    end: "End",
    return: "Enter",
    escape: "Esc",
    tab: "Tab",
    backspace: "Backspace",
    delete: "Del",
  };
  const char = spec.char ?? "";
  const base = spec.name ? names[spec.name] : spec.ctrl ? char.toUpperCase() : char;
  const mods = `${spec.ctrl ? "Ctrl-" : ""}${spec.shift ? "Shift-" : ""}`;
  return base === " " ? `${mods}Space` : `${mods}${base}`;
}

/** The first key of a command, as help writes it: for hints in the views. */
export function keyOf(id: CommandId): string {
  const k = commandById(id).keys[0];
  return k ? keyLabel(k) : "?";
}

export function keysLabel(cmd: Command): string {
  if (cmd.id === "focusPane") return "1–6";
  return cmd.keys.map(keyLabel).join(" / ");
}

/**
 * Where help and the README list a command, derived from its modes: enabled on both screens
 * is "everywhere", on one of them is that screen's, on neither is a dialog's; a replay's
 * commands are listed apart.
 */
export type KeyGroup = "global" | "list" | "pane" | "terminal" | "review" | "dialog" | "replay";

export const KEY_GROUPS: readonly KeyGroup[] = [
  "global",
  "list",
  "pane",
  "terminal",
  "review",
  "dialog",
  "replay",
];

export const GROUP_TITLES: Record<KeyGroup, string> = {
  global: "Everywhere",
  list: "Session list",
  pane: "Session pane",
  terminal: "Session shell (its pane has the keys)",
  review: "Changes, files and links",
  dialog: "Dialogs",
  replay: "Replay (agent-sessions replay)",
};

export function groupOf(c: Pick<Command, "modes" | "replay">): KeyGroup {
  if (c.replay) return "replay";
  const list = c.modes.includes("list");
  const pane = c.modes.includes("pane");
  if (list && pane) return "global";
  if (list) return "list";
  if (pane) return "pane";
  if (c.modes.every((m) => SHELL_MODES.includes(m))) return "terminal";
  return c.modes.some((m) => REVIEW_VIEWS.includes(m)) ? "review" : "dialog";
}

/** The commands of a group, in table order. */
export function commandsOf(group: KeyGroup): Command[] {
  return KEYMAP.filter((c) => groupOf(c) === group);
}

/** Whether a command's keys are on now: a replay's only while one plays, a live UI's only then not. */
export function enabledNow(c: Pick<Command, "replay" | "live">, replaying: boolean): boolean {
  return replaying ? !c.live : !c.replay;
}

/** The footer hints of a mode, in their footer order; a replay's only while one plays. */
export function footerCommands(mode: ModeKind, replaying = false): Command[] {
  return KEYMAP.filter(
    (c) => c.footer && (c.footer.in ?? c.modes).includes(mode) && enabledNow(c, replaying),
  ).sort((a, b) => (a.footer?.rank ?? 0) - (b.footer?.rank ?? 0));
}

/** The README's key reference, generated (a test keeps the README in step). */
export function keymapMarkdown(): string {
  const lines: string[] = [];
  for (const group of KEY_GROUPS) {
    lines.push(`**${GROUP_TITLES[group]}**`, "", "| keys | action |", "|---|---|");
    for (const c of commandsOf(group)) {
      const scope = c.scope ? ` (needs \`${c.scope}\`)` : "";
      lines.push(`| ${keysLabel(c).replace(/\|/g, "\\|")} | ${c.description}${scope} |`);
    }
    lines.push("");
  }
  return lines.join("\n").trimEnd();
}
