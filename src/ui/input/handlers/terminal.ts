import type { TerminalEnd } from "../../../client/terminalConnection.js";
import { keysForRemote } from "../../../text/terminal/keys.js";
import type { UiDeps } from "../../model/deps.js";
import { commandById, keyOf } from "../../model/keymap.js";
import type { MainMode } from "../../model/mode.js";
import type { MessageLevel } from "../../model/uiStore.js";
import { message, openPane, patch, sessionRecord } from "../actions.js";
import type { KeyPress } from "../keys.js";
import type { TextField } from "../textField.js";
import { target } from "./sessionTarget.js";
import type { Handler, ModeHandlers } from "./types.js";

/**
 * The session's shell in its pane (`$`), or over the whole body (`@`): what to offer (the
 * scope, a paused session resumed first, a destroyed one said), and the keys of the shell's
 * own mode. The connection and the emulator live in store/terminal/terminalPanes.ts.
 */

/** States without a sandbox to open a shell in. */
const GONE = new Set(["destroyed", "destroying", "error"]);

function endMessage(
  sessionId: string,
  end: TerminalEnd,
  attached: boolean,
): { text: string; level: MessageLevel } {
  switch (end.kind) {
    case "detached":
      return { text: `${sessionId}: ${attached ? "detached" : "shell closed"}`, level: "info" };
    case "closed":
      return { text: `${sessionId}: ${end.message}`, level: "info" };
    case "idle":
    case "taken":
    case "sandbox_expired":
      return { text: `${sessionId}: ${end.message}`, level: "warn" };
    default:
      return { text: `${sessionId}: shell: ${end.message}`, level: "error" };
  }
}

/**
 * The session whose shell the key may open, or null when it may not (said why): none
 * selected, the scope missing, a paused session (offered a resume), a destroyed one.
 */
function shellTarget(deps: UiDeps, id: "openTerminal" | "attachTerminal"): string | null {
  const cmd = commandById(id);
  const available = id === "openTerminal" ? deps.services.terminals : deps.attach;
  const sessionId = target(deps, cmd, available);
  if (!sessionId) return null;
  const state = sessionRecord(deps, sessionId)?.state;
  if (state === "paused") {
    patch(deps, { dialog: { kind: "confirm", sessionId, action: { kind: "resume" } } });
    message(deps, `${sessionId} is paused: resume it first, then ${keyOf(cmd.id)} opens its shell`);
    return null;
  }
  if (typeof state === "string" && GONE.has(state)) {
    message(deps, `${sessionId} is ${state}: it has no shell to open`, "error");
    return null;
  }
  return sessionId;
}

const openShell: Handler = (deps) => {
  const terms = deps.services.terminals;
  const sessionId = shellTarget(deps, "openTerminal");
  if (!sessionId || !terms) return;
  openPane(deps, sessionId);
  const s = deps.ui.getState();
  const at = s.panes.indexOf(sessionId);
  if (at < 0) return;
  patch(deps, {
    view: "main",
    focus: at + 1,
    terminals: s.terminals.includes(sessionId) ? s.terminals : [...s.terminals, sessionId],
  });
  // The pane sizes it when it draws; 80x24 until then.
  terms.open(sessionId, 80, 24, (id, end) => {
    const cur = deps.ui.getState();
    patch(deps, {
      terminals: cur.terminals.filter((t) => t !== id),
      ...(cur.shellScroll?.sessionId === id ? { shellScroll: null } : {}),
    });
    const said = endMessage(id, end, false);
    message(deps, said.text, said.level);
  });
  message(deps, `${sessionId}: its shell has the keys; ${keyOf("leaveTerminal")} gives them back`);
};

/**
 * `@`: the shell takes the whole terminal, as `agent-sessions attach` does (one terminal per
 * session: a shell open in its pane is closed first); the UI comes back as it was after.
 */
const attachShell: Handler = (deps) => {
  const attach = deps.attach;
  const sessionId = shellTarget(deps, "attachTerminal");
  if (!sessionId || !attach) return;
  if (deps.ui.getState().terminals.includes(sessionId)) deps.services.terminals?.close(sessionId);
  attach(sessionId).then(
    (end) => {
      const said = endMessage(sessionId, end, true);
      message(deps, said.text, said.level);
    },
    (e: unknown) => message(deps, `${sessionId}: shell: ${(e as Error).message}`, "error"),
  );
};

export const TERMINAL_SCREEN: ModeHandlers<"list" | "pane" | "fleet"> = {
  openTerminal: openShell,
  attachTerminal: attachShell,
};

type ShellMode = Extract<MainMode, { kind: "terminal" | "terminalScroll" }>;

/** A page of the shell's pane (its rows, less the status line). */
function pageOf(deps: UiDeps): number {
  return Math.max(1, deps.ui.getState().size.rows - 8);
}

function scroll(direction: 1 | -1): Handler<ShellMode> {
  return (deps, mode) => {
    deps.services.terminals?.scroll(mode.sessionId, direction * pageOf(deps));
  };
}

const leaveTerminal: Handler<ShellMode> = (deps, mode) => {
  deps.services.terminals?.scroll(mode.sessionId, -Number.MAX_SAFE_INTEGER);
  patch(deps, { focus: 0, zoomed: false, shellScroll: null });
  message(
    deps,
    `The keys are the grid's again; the shell stays open in its pane (${keyOf("focusNext")} focuses it)`,
  );
};

export const TERMINAL: ModeHandlers<"terminal"> = {
  leaveTerminal,
  terminalScrollUp: (deps, mode) => {
    patch(deps, { shellScroll: { sessionId: mode.sessionId, draft: null, query: "" } });
    deps.services.terminals?.scroll(mode.sessionId, pageOf(deps));
  },
};

/**
 * The next match of the last search from where the pane is scrolled: further back (older)
 * or towards the live screen. Read again each time, as output keeps coming.
 */
function findFrom(deps: UiDeps, sessionId: string, query: string, older: boolean): void {
  const terms = deps.services.terminals;
  const screen = terms?.screenOf(sessionId);
  if (!terms || !screen || query === "") {
    message(deps, `Search first (${keyOf("terminalFind")})`);
    return;
  }
  const hits = screen.search(query);
  const at = terms.getState().terms[sessionId]?.scrolledBack ?? 0;
  if (hits.length === 0) {
    message(deps, `No line of the shell holds "${query}"`, "warn");
    return;
  }
  // Newest last: the nearest older match is the first one scrolled back further than now.
  const i = older ? hits.findLastIndex((h) => h > at) : hits.findIndex((h) => h < at);
  if (i < 0) {
    message(deps, `"${query}": no match ${older ? "further back" : "after this one"}`);
    return;
  }
  const to = hits[i] as number;
  terms.scroll(sessionId, to - at);
  message(deps, `"${query}": match ${hits.length - i} of ${hits.length} from the newest`);
}

export const TERMINAL_SCROLL: ModeHandlers<"terminalScroll"> = {
  leaveTerminal,
  terminalPageUp: scroll(1),
  terminalScrollDown: scroll(-1),
  terminalFind: (deps, mode) => {
    const cur = deps.ui.getState().shellScroll;
    patch(deps, { shellScroll: { sessionId: mode.sessionId, draft: "", query: cur?.query ?? "" } });
  },
  terminalFindOlder: (deps, mode) =>
    findFrom(deps, mode.sessionId, deps.ui.getState().shellScroll?.query ?? "", true),
  terminalFindNewer: (deps, mode) =>
    findFrom(deps, mode.sessionId, deps.ui.getState().shellScroll?.query ?? "", false),
  terminalLive: (deps, mode) => {
    deps.services.terminals?.scroll(mode.sessionId, -Number.MAX_SAFE_INTEGER);
    patch(deps, { shellScroll: null });
    message(deps, `${mode.sessionId}: the live shell has the keys again`);
  },
};

export const TERMINAL_SEARCH: ModeHandlers<"terminalSearch"> = {
  submit: (deps, mode) => {
    const query = mode.draft;
    patch(deps, { shellScroll: { sessionId: mode.sessionId, draft: null, query } });
    if (query === "") return;
    // From the live screen: the newest match first.
    const terms = deps.services.terminals;
    const at = terms?.getState().terms[mode.sessionId]?.scrolledBack ?? 0;
    terms?.scroll(mode.sessionId, -at);
    findFrom(deps, mode.sessionId, query, true);
  },
  cancel: (deps, mode) => {
    const cur = deps.ui.getState().shellScroll;
    patch(deps, {
      shellScroll: { sessionId: mode.sessionId, draft: null, query: cur?.query ?? "" },
    });
  },
};

/** The search field of a shell pane in scroll mode. */
export function shellSearchField(deps: UiDeps): TextField {
  return {
    get: () => deps.ui.getState().shellScroll?.draft ?? "",
    set: (v) => {
      const cur = deps.ui.getState().shellScroll;
      if (cur && cur.draft !== null) patch(deps, { shellScroll: { ...cur, draft: v } });
    },
  };
}

const CSI_NAMED: Partial<Record<NonNullable<KeyPress["name"]>, string>> = {
  up: "\x1b[A",
  down: "\x1b[B",
  right: "\x1b[C",
  left: "\x1b[D",
  home: "\x1b[H",
  end: "\x1b[F",
  pageUp: "\x1b[5~",
  pageDown: "\x1b[6~",
  return: "\r",
  escape: "\x1b",
  tab: "\t",
  backspace: "\x7f",
  delete: "\x7f",
};

/** A key press as the bytes a terminal sends for it. */
export function bytesOfPress(p: KeyPress): string {
  if (p.name) {
    if (p.name === "tab" && p.shift) return "\x1b[Z";
    return `${p.meta ? "\x1b" : ""}${CSI_NAMED[p.name] ?? ""}`;
  }
  if (p.ctrl && p.text.length === 1) {
    const c = p.text.toLowerCase().charCodeAt(0);
    if (c >= 0x61 && c <= 0x7a) return String.fromCharCode(c - 0x60);
    if (c >= 0x5b && c <= 0x5f) return String.fromCharCode(c - 0x40);
    if (c === 0x20 || c === 0x40) return "\x00";
  }
  return `${p.meta ? "\x1b" : ""}${p.text}`;
}

/** Keys typed into the focused shell: sent, or said when it is not taking them. */
export function typeIntoShell(deps: UiDeps, sessionId: string, p: KeyPress): void {
  const terms = deps.services.terminals;
  const bytes = bytesOfPress(p);
  if (!terms || bytes === "") return;
  const screen = terms.screenOf(sessionId);
  if (!terms.input(sessionId, keysForRemote(bytes, screen?.applicationCursorKeys ?? false))) {
    message(deps, `${sessionId}: the shell is not taking input now`, "warn");
  }
}
