import type { UiDeps } from "../../model/deps.js";
import type { Command, CommandId } from "../../model/keymap.js";
import { holdOrder } from "../../model/listOrder.js";
import { type MainMode, modeOf } from "../../model/mode.js";
import { patch } from "../actions.js";
import type { KeyPress } from "../keys.js";
import type { KeyTarget } from "../route.js";
import type { TextField } from "../textField.js";
import { ACT_SCREEN, PROMPT, toggleTools } from "./act.js";
import { CONFIRM, FORM, QUIT } from "./dialogs.js";
import { FILTER, SEARCH } from "./editing.js";
import { FOLLOW_UPS, FOLLOW_UPS_SCREEN, PROMPT_FOLLOW_UPS } from "./followUps.js";
import { INTEGRATION_EDIT, INTEGRATIONS, integrationEditField } from "./integrations.js";
import { LAUNCH_SCREEN } from "./launch.js";
import { LIST } from "./list.js";
import { MARKS } from "./marks.js";
import { ATTENTION, DETAIL, HELP, MESSAGES } from "./overlays.js";
import { PANE } from "./pane.js";
import { JUMP, REPLAY } from "./replay.js";
import {
  CHANGES,
  FILES,
  LINKS,
  REVIEW_SCREEN,
  REVIEW_SEARCH,
  reviewSearchField,
} from "./review.js";
import { SCREEN } from "./screen.js";
import {
  shellSearchField,
  TERMINAL,
  TERMINAL_SCREEN,
  TERMINAL_SCROLL,
  TERMINAL_SEARCH,
  typeIntoShell,
} from "./terminal.js";
import type { Handler, ModeHandlers } from "./types.js";
import { FLEET, MERGED } from "./views.js";

/**
 * What each command does in each mode of the signed-in screen: a table of plain functions of
 * the UI state and the services. A command enabled in a mode (see the keymap) with no
 * handler here does nothing there.
 */

type Table = { [K in MainMode["kind"]]: ModeHandlers<K> };

const EVERYWHERE: Partial<Record<CommandId, Handler>> = {
  forceQuit: (deps) => deps.exit(),
};

export const HANDLERS: Table = {
  tooSmall: { quit: (deps) => deps.exit() },
  form: FORM,
  confirm: CONFIRM,
  quit: QUIT,
  filter: FILTER,
  search: SEARCH,
  jump: JUMP,
  prompt: { ...PROMPT, ...PROMPT_FOLLOW_UPS },
  help: HELP,
  detail: DETAIL,
  messages: MESSAGES,
  attention: ATTENTION,
  followUps: FOLLOW_UPS,
  fleet: {
    ...SCREEN,
    ...ACT_SCREEN,
    ...LAUNCH_SCREEN,
    ...FOLLOW_UPS_SCREEN,
    ...TERMINAL_SCREEN,
    ...REVIEW_SCREEN,
    ...FLEET,
    ...MARKS,
  },
  integrations: INTEGRATIONS,
  integrationEdit: INTEGRATION_EDIT,
  merged: { ...SCREEN, ...MERGED },
  pane: {
    ...SCREEN,
    ...ACT_SCREEN,
    ...LAUNCH_SCREEN,
    ...FOLLOW_UPS_SCREEN,
    ...TERMINAL_SCREEN,
    ...REVIEW_SCREEN,
    ...REPLAY,
    ...PANE,
    toggleTools,
  },
  list: {
    ...SCREEN,
    reply: ACT_SCREEN.reply,
    ...LAUNCH_SCREEN,
    ...FOLLOW_UPS_SCREEN,
    ...TERMINAL_SCREEN,
    ...REVIEW_SCREEN,
    ...REPLAY,
    ...LIST,
    ...MARKS,
    pause: ACT_SCREEN.pause,
    resume: ACT_SCREEN.resume,
  },
  terminal: TERMINAL,
  terminalScroll: TERMINAL_SCROLL,
  terminalSearch: TERMINAL_SEARCH,
  changes: CHANGES,
  files: FILES,
  links: LINKS,
  reviewSearch: REVIEW_SEARCH,
};

/** The handler of a command in a mode, if it has one. */
export function handlerFor<M extends MainMode>(mode: M, id: CommandId): Handler<M> | undefined {
  const own = (HANDLERS[mode.kind] as Partial<Record<CommandId, Handler<M>>>)[id];
  return own ?? EVERYWHERE[id];
}

/** The text field with the cursor in a mode. */
export function fieldOf(deps: UiDeps, mode: MainMode): TextField | null {
  switch (mode.kind) {
    case "form": {
      const d = mode.dialog;
      return {
        get: () => d.values[d.field] ?? "",
        set: (v) => {
          const cur = deps.ui.getState().dialog;
          if (cur?.kind !== "form") return;
          const values = cur.values.slice();
          values[cur.field] = v;
          // Typing starts the clone form's suggestions over; an approval picked stays.
          patch(deps, {
            dialog: { ...cur, values, error: null, ...(cur.approvals ? {} : { pick: 0 }) },
          });
        },
      };
    }
    case "filter": {
      const st = deps.services.sessions;
      return {
        get: () => st.getState().filterText,
        set: (v) => {
          st.getState().setFilterText(v);
          patch(deps, { listCursor: 0, fleetCursor: 0 });
        },
      };
    }
    case "prompt":
      return {
        multiline: true,
        get: () => mode.editing.draft,
        set: (v) => {
          const cur = deps.ui.getState().editing;
          if (cur?.kind === "prompt") patch(deps, { editing: { ...cur, draft: v } });
        },
      };
    case "integrationEdit":
      return integrationEditField(deps, mode.dialog);
    case "terminalSearch":
      return shellSearchField(deps);
    case "reviewSearch":
      return reviewSearchField(deps);
    case "search":
    case "jump":
      return {
        get: () => mode.editing.draft,
        set: (v) => {
          const cur = deps.ui.getState().editing;
          if (cur?.kind === mode.kind) patch(deps, { editing: { ...cur, draft: v } });
        },
      };
    default:
      return null;
  }
}

/** Modes where a key acts on what is shown: it clears the last message. */
const CLEARS_MESSAGE = new Set<MainMode["kind"]>(["list", "pane", "fleet", "merged"]);

/** Run a command in a mode. A key that acts on the list, a pane or a view clears the last message. */
export function runCommand(deps: UiDeps, cmd: Command, mode: MainMode, p: KeyPress): void {
  // The window is in use: the live list keeps its normal cadence, and the rows keep their
  // order until the keys pause (Ctrl-R applies the new order at once).
  deps.services.live?.activity();
  if (cmd.id !== "refresh") holdOrder(deps);
  if (CLEARS_MESSAGE.has(mode.kind) && deps.ui.getState().message) {
    patch(deps, { message: null });
  }
  handlerFor(mode, cmd.id)?.(deps, mode, p);
}

/** The signed-in screen as the key path sees it. */
export function mainTarget(deps: UiDeps): KeyTarget<MainMode> {
  return {
    mode: () => modeOf(deps.ui.getState()),
    field: (mode) => fieldOf(deps, mode),
    run: (cmd, mode, p) => runCommand(deps, cmd, mode, p),
    replaying: () => deps.services.replay !== undefined,
    raw: (mode, p) => {
      if (mode.kind !== "terminal") return false;
      typeIntoShell(deps, mode.sessionId, p);
      return true;
    },
  };
}
