import type { TerminalEnd } from "../../../client/terminalConnection.js";
import { keysForRemote } from "../../../text/terminal/keys.js";
import type { UiDeps } from "../../model/deps.js";
import { disabledReason } from "../../model/gitActions.js";
import { commandById, keyOf } from "../../model/keymap.js";
import type { MessageLevel } from "../../model/uiStore.js";
import {
  message,
  openPane,
  patch,
  refusedId,
  selectedSessionId,
  sessionRecord,
} from "../actions.js";
import type { KeyPress } from "../keys.js";
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
  const sessionId = selectedSessionId(deps);
  if (!sessionId) {
    message(deps, "Select a session first (list row or pane)");
    return null;
  }
  const available = id === "openTerminal" ? deps.services.terminals : deps.attach;
  if (!available) {
    message(deps, `${cmd.label} is not available here`, "warn");
    return null;
  }
  const reason =
    disabledReason(cmd, deps.services.identity.getState()) ?? refusedId(deps, sessionId);
  if (reason) {
    message(deps, reason, "error");
    return null;
  }
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
    patch(deps, { terminals: cur.terminals.filter((t) => t !== id) });
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

function scroll(direction: 1 | -1): Handler<{ kind: "terminal"; sessionId: string }> {
  return (deps, mode) => {
    const rows = Math.max(1, deps.ui.getState().size.rows - 6);
    deps.services.terminals?.scroll(mode.sessionId, direction * rows);
  };
}

export const TERMINAL: ModeHandlers<"terminal"> = {
  leaveTerminal: (deps) => {
    patch(deps, { focus: 0, zoomed: false });
    message(
      deps,
      `The keys are the grid's again; the shell stays open in its pane (${keyOf("focusNext")} focuses it)`,
    );
  },
  terminalScrollUp: scroll(1),
  terminalScrollDown: scroll(-1),
};

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
