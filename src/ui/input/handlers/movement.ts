import type { CommandId } from "../../model/keymap.js";
import type { MainMode } from "../../model/mode.js";
import type { Handler } from "./types.js";

/** Where a movement key takes a cursor or a scroll offset: from where it is, a page's rows. */
export type Step = (at: number, page: number) => number;

/**
 * The movement keys, one table for every list, view and overlay that moves: ↑/↓ a line,
 * PgUp/PgDn a page, Home/End the ends. `move` makes a key's handler from its step and keeps
 * the result within what it moves over.
 */
export function movementKeys<M extends MainMode>(
  move: (step: Step) => Handler<M>,
): Partial<Record<CommandId, Handler<M>>> {
  return {
    up: move((at) => at - 1),
    down: move((at) => at + 1),
    pageUp: move((at, page) => at - page),
    pageDown: move((at, page) => at + page),
    top: move(() => 0),
    bottom: move(() => Number.MAX_SAFE_INTEGER),
  };
}
