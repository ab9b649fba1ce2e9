import type { UiDeps } from "../../model/deps.js";
import type { CommandId } from "../../model/keymap.js";
import type { MainMode } from "../../model/mode.js";
import type { KeyPress } from "../keys.js";

/** What one command does in one mode. */
export type Handler<M extends MainMode = MainMode> = (
  deps: UiDeps,
  mode: M,
  press: KeyPress,
) => void;

export type ModeOf<K extends MainMode["kind"]> = Extract<MainMode, { kind: K }>;

/** The handlers of one mode, by command. */
export type ModeHandlers<K extends MainMode["kind"]> = Partial<
  Record<CommandId, Handler<ModeOf<K>>>
>;
