/**
 * Keys typed into a session terminal, shared by the pane and `attach`: the detach key, and
 * arrows in the form the remote program asked for (application cursor keys, as `less` and
 * `vim` ask with DECCKM, are ESC O A rather than ESC [ A).
 */

/** Ctrl-]: leaves the terminal (pane focus back to the grid; `attach` detaches), as telnet's. */
export const DETACH_BYTE = 0x1d;
export const DETACH_KEY = "Ctrl-]";

const NORMAL_ARROWS = /\x1b\[([ABCDHF])/g;

/** Typed input as the remote program expects it. */
export function keysForRemote(input: string, applicationCursorKeys: boolean): string {
  return applicationCursorKeys ? input.replace(NORMAL_ARROWS, "\x1bO$1") : input;
}
