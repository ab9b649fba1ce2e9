import { keyOf } from "./keymap.js";

/**
 * How many panes are open at once, decided here only: the UI's own limit, what `open`
 * accepts, what `replay` and `snapshot` open first, and the words said of ids past it.
 */

export const MAX_PANES = 6;

/** Ids asked for, without repeats, split into those that get a pane and those past the limit. */
export function fitPanes(
  ids: readonly string[],
  max: number = MAX_PANES,
): { open: string[]; left: string[] } {
  const unique = [...new Set(ids)];
  return { open: unique.slice(0, max), left: unique.slice(max) };
}

/** What is said of ids past the limit: which, and why (ids as they may be drawn). */
export function panesLeftMessage(left: readonly string[], max: number = MAX_PANES): string {
  const n = left.length;
  return `${n} session${n === 1 ? " was" : "s were"} not opened, at most ${max} panes: ${left.join(", ")} (close a pane with ${keyOf("closePane")}, then open from the list)`;
}
