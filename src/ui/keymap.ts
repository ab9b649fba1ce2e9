import type { Key } from "ink";

/**
 * The one keymap table. Input handling, the `?` overlay, the footer hints and the README's key
 * reference are all generated from it; never hand-write help elsewhere.
 */

export type KeyContext = "global" | "list" | "pane" | "dialog" | "replay";

/** Named keys as Ink reports them (see ink's Key type). */
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
  | "quit"
  | "forceQuit"
  | "focusNext"
  | "focusPrev"
  | "focusList"
  | "focusPane"
  | "nextAttention"
  | "refresh"
  | "up"
  | "down"
  | "pageUp"
  | "pageDown"
  | "top"
  | "bottom"
  | "open"
  | "filter"
  | "stateFilter"
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
  | "submit"
  | "cancel"
  | "nextField"
  | "confirmYes"
  | "confirmNo"
  | "deleteChar"
  | "deleteWord"
  | "clearField"
  | "replayToggle"
  | "replayFaster"
  | "replaySlower"
  | "replayBack"
  | "replayForward"
  | "replayJump";

export interface Command {
  id: CommandId;
  context: KeyContext;
  keys: KeySpec[];
  /** Short label for the footer. */
  label: string;
  /** One line for the help overlay and the README. */
  description: string;
  /** Shown in the footer of its context. */
  footer?: boolean;
  /** Effective scope the command needs (git actions); disabled without it. */
  scope?: string;
}

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
    context: "global",
    keys: [k("?")],
    label: "help",
    description: "show or hide this help",
    footer: true,
  },
  {
    id: "quit",
    context: "global",
    keys: [k("q")],
    label: "quit",
    description: "quit (asks first while a git action runs)",
    footer: true,
  },
  {
    id: "forceQuit",
    context: "global",
    keys: [ctrl("c")],
    label: "exit",
    description: "exit at once and restore the terminal",
  },
  {
    id: "focusNext",
    context: "global",
    keys: [named("tab")],
    label: "focus",
    description: "focus the next pane (the session list counts as one)",
    footer: true,
  },
  {
    id: "focusPrev",
    context: "global",
    keys: [named("tab", { shift: true })],
    label: "focus back",
    description: "focus the previous pane",
  },
  {
    id: "focusList",
    context: "global",
    keys: [k("0")],
    label: "list",
    description: "focus the session list",
  },
  {
    id: "focusPane",
    context: "global",
    keys: ["1", "2", "3", "4", "5", "6"].map(k),
    label: "pane N",
    description: "focus pane 1–6",
  },
  {
    id: "nextAttention",
    context: "global",
    keys: [k("a")],
    label: "attention",
    description: "jump to the next session that needs attention (paused, or its stream stopped)",
    footer: true,
  },
  {
    id: "refresh",
    context: "global",
    keys: [ctrl("r")],
    label: "refresh",
    description: "reload identity and the session list",
  },
  // git actions, on the focused session (list row or pane)
  {
    id: "clone",
    context: "global",
    keys: [k("c")],
    label: "clone",
    description: "clone a repository into the focused session",
    footer: true,
    scope: "sessions:write",
  },
  {
    id: "push",
    context: "global",
    keys: [k("p")],
    label: "push",
    description: "push the focused session's branch (asks first)",
    footer: true,
    scope: "sessions:write",
  },
  {
    id: "branch",
    context: "global",
    keys: [k("b")],
    label: "branch",
    description: "create a branch in the focused session (asks first)",
    footer: true,
    scope: "sessions:write",
  },
  {
    id: "pullRequest",
    context: "global",
    keys: [k("r")],
    label: "PR",
    description: "open a pull request from the focused session (asks first)",
    footer: true,
    scope: "sessions:write",
  },
  // movement, shared by list and pane
  {
    id: "up",
    context: "global",
    keys: [k("k"), named("up")],
    label: "up",
    description: "move up / scroll up",
  },
  {
    id: "down",
    context: "global",
    keys: [k("j"), named("down")],
    label: "down",
    description: "move down / scroll down",
  },
  {
    id: "pageUp",
    context: "global",
    keys: [named("pageUp"), ctrl("u")],
    label: "page up",
    description: "one page up",
  },
  {
    id: "pageDown",
    context: "global",
    keys: [named("pageDown"), ctrl("d")],
    label: "page down",
    description: "one page down",
  },
  {
    id: "top",
    context: "global",
    keys: [k("g"), named("home")],
    label: "top",
    description: "go to the top",
  },
  {
    id: "bottom",
    context: "global",
    keys: [k("G"), named("end")],
    label: "bottom",
    description: "go to the bottom (in a pane: resume following)",
  },
  // session list
  {
    id: "open",
    context: "list",
    keys: [named("return")],
    label: "open",
    description: "open the selected session in a pane",
    footer: true,
  },
  {
    id: "filter",
    context: "list",
    keys: [k("/")],
    label: "filter",
    description: "filter sessions by text (id and visible fields)",
    footer: true,
  },
  {
    id: "stateFilter",
    context: "list",
    keys: [k("s")],
    label: "state",
    description: "cycle the state filter (all, active, paused)",
  },
  {
    id: "sort",
    context: "list",
    keys: [k("o")],
    label: "sort",
    description: "cycle the sort order",
  },
  {
    id: "detail",
    context: "list",
    keys: [k("i")],
    label: "detail",
    description: "show every field of the selected session",
  },
  // pane
  {
    id: "zoom",
    context: "pane",
    keys: [k("z")],
    label: "zoom",
    description: "zoom the pane to full screen and back",
    footer: true,
  },
  {
    id: "closePane",
    context: "pane",
    keys: [k("x")],
    label: "close",
    description: "close the pane",
  },
  {
    id: "follow",
    context: "pane",
    keys: [k("f")],
    label: "follow",
    description: "toggle follow mode (auto-scroll)",
    footer: true,
  },
  {
    id: "wrap",
    context: "pane",
    keys: [k("w")],
    label: "wrap",
    description: "toggle line wrapping",
  },
  {
    id: "timestamps",
    context: "pane",
    keys: [k("t")],
    label: "time",
    description: "toggle timestamps",
  },
  {
    id: "search",
    context: "pane",
    keys: [k("/")],
    label: "search",
    description: "search the pane (lands on the newest match)",
    footer: true,
  },
  {
    id: "searchNext",
    context: "pane",
    keys: [k("n")],
    label: "next",
    description: "next search match (older, further up)",
  },
  {
    id: "searchPrev",
    context: "pane",
    keys: [k("N")],
    label: "prev",
    description: "previous search match (newer, further down)",
  },
  {
    id: "toggleKindPrompt",
    context: "pane",
    keys: [k("P")],
    label: "prompt",
    description: "show or hide prompt progress",
  },
  {
    id: "toggleKindOutput",
    context: "pane",
    keys: [k("O")],
    label: "output",
    description: "show or hide process output",
  },
  {
    id: "toggleKindFiles",
    context: "pane",
    keys: [k("F")],
    label: "files",
    description: "show or hide file changes",
  },
  {
    id: "toggleKindState",
    context: "pane",
    keys: [k("S")],
    label: "state",
    description: "show or hide state changes",
  },
  {
    id: "save",
    context: "pane",
    keys: [k("e")],
    label: "export",
    description: "save the pane's events to a file (NDJSON)",
  },
  // dialogs
  {
    id: "submit",
    context: "dialog",
    keys: [named("return")],
    label: "submit",
    description: "submit the form",
    footer: true,
  },
  {
    id: "cancel",
    context: "dialog",
    keys: [named("escape")],
    label: "cancel",
    description: "close the dialog",
    footer: true,
  },
  {
    id: "nextField",
    context: "dialog",
    keys: [named("tab")],
    label: "next field",
    description: "move to the next field",
    footer: true,
  },
  {
    id: "confirmYes",
    context: "dialog",
    keys: [k("y")],
    label: "yes",
    description: "confirm",
    footer: true,
  },
  { id: "confirmNo", context: "dialog", keys: [k("n")], label: "no", description: "decline" },
  {
    id: "deleteChar",
    context: "dialog",
    keys: [named("backspace"), named("delete")],
    label: "delete",
    description: "delete the character before the cursor (text fields)",
  },
  {
    id: "deleteWord",
    context: "dialog",
    keys: [ctrl("w")],
    label: "delete word",
    description: "delete the word before the cursor (text fields)",
  },
  {
    id: "clearField",
    context: "dialog",
    keys: [ctrl("u")],
    label: "clear",
    description: "clear the text field",
  },
  // replay (agent-sessions replay): active only while a recording plays
  {
    id: "replayToggle",
    context: "replay",
    keys: [k(" ")],
    label: "play/pause",
    description: "play or pause the recording",
    footer: true,
  },
  {
    id: "replayFaster",
    context: "replay",
    keys: [k("]"), k(">")],
    label: "faster",
    description: "play faster: ×1, ×10, ×100, max",
    footer: true,
  },
  {
    id: "replaySlower",
    context: "replay",
    keys: [k("["), k("<")],
    label: "slower",
    description: "play slower",
  },
  {
    id: "replayBack",
    context: "replay",
    keys: [named("left")],
    label: "back",
    description: "10 seconds back",
  },
  {
    id: "replayForward",
    context: "replay",
    keys: [named("right")],
    label: "forward",
    description: "10 seconds forward",
  },
  {
    id: "replayJump",
    context: "replay",
    keys: [k(":")],
    label: "jump",
    description: "jump to a time (10:12:30, +5m, -30s, 50%, start, end)",
    footer: true,
  },
];

const NAMED_FLAGS: Record<NamedKey, keyof Key> = {
  up: "upArrow",
  down: "downArrow",
  left: "leftArrow",
  right: "rightArrow",
  pageUp: "pageUp",
  pageDown: "pageDown",
  home: "home",
  end: "end",
  return: "return",
  escape: "escape",
  tab: "tab",
  backspace: "backspace",
  delete: "delete",
};

/** Whether one key press (as Ink reports it) matches a spec. */
export function keyMatches(spec: KeySpec, input: string, key: Key): boolean {
  if (spec.name) {
    if (!key[NAMED_FLAGS[spec.name]]) return false;
    return Boolean(spec.shift) === Boolean(key.shift) && Boolean(spec.ctrl) === Boolean(key.ctrl);
  }
  if (spec.char === undefined) return false;
  if (Boolean(spec.ctrl) !== Boolean(key.ctrl)) return false;
  if (key.meta) return false;
  return input === spec.char;
}

/**
 * The command a key press means in a context: the context's own commands first, then the
 * replay's (their keys are free elsewhere; the controller ignores them outside a replay),
 * then the global ones (dialogs get none of the global ones but force-quit, so typing stays
 * typing).
 */
export function commandFor(context: KeyContext, input: string, key: Key): Command | null {
  const order: KeyContext[] =
    context === "global"
      ? ["global"]
      : context === "dialog"
        ? ["dialog", "global"]
        : [context, "replay", "global"];
  for (const ctx of order) {
    for (const cmd of KEYMAP) {
      if (cmd.context !== ctx) continue;
      if (context === "dialog" && ctx === "global" && cmd.id !== "forceQuit") continue;
      if (cmd.keys.some((s) => keyMatches(s, input, key))) return cmd;
    }
  }
  return null;
}

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

export function keysLabel(cmd: Command): string {
  if (cmd.id === "focusPane") return "1–6";
  return cmd.keys.map(keyLabel).join(" / ");
}

export const CONTEXT_TITLES: Record<KeyContext, string> = {
  global: "Everywhere",
  list: "Session list",
  pane: "Session pane",
  dialog: "Dialogs",
  replay: "Replay (agent-sessions replay)",
};

/** Footer hints for a context: its own footer commands, then the global ones. */
export function footerCommands(context: KeyContext): Command[] {
  if (context === "dialog" || context === "replay") {
    return KEYMAP.filter((c) => c.context === context && c.footer);
  }
  return [
    ...KEYMAP.filter((c) => c.context === context && c.footer),
    ...KEYMAP.filter((c) => c.context === "global" && c.footer),
  ];
}

/** The README's key reference, generated (a test keeps the README in step). */
export function keymapMarkdown(): string {
  const lines: string[] = [];
  for (const ctx of ["global", "list", "pane", "dialog", "replay"] as const) {
    lines.push(`**${CONTEXT_TITLES[ctx]}**`, "", "| keys | action |", "|---|---|");
    for (const c of KEYMAP.filter((x) => x.context === ctx)) {
      const scope = c.scope ? ` (needs \`${c.scope}\`)` : "";
      lines.push(`| ${keysLabel(c).replace(/\|/g, "\\|")} | ${c.description}${scope} |`);
    }
    lines.push("");
  }
  return lines.join("\n").trimEnd();
}

/**
 * Text and Enter that arrived in one read (a pasted line, type-ahead over a slow link): the
 * text field takes the text, and the Enter must still submit once it has.
 */
export function endsWithEnter(input: string): boolean {
  return input.length > 1 && /[\r\n]$/.test(input);
}

/** The key Ink reports for a lone Enter, built from another key event. */
export function enterKey(from: Key): Key {
  return { ...from, return: true, shift: false, ctrl: false, meta: false };
}
