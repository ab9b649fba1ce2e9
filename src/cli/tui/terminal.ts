/**
 * The alternate screen and the cleanup that restores the terminal. Cleanup runs once,
 * whichever way the process leaves: q, Ctrl-C, SIGTERM/SIGHUP, an uncaught error or exit.
 */

const ENTER_ALT = "\u001b[?1049h\u001b[H";
const LEAVE_ALT = "\u001b[?1049l";
const SHOW_CURSOR = "\u001b[?25h";

export interface TerminalSession {
  /** Leaves the alternate screen and shows the cursor; idempotent. */
  restore(): void;
}

export function enterAlternateScreen(stdout: NodeJS.WriteStream): TerminalSession {
  stdout.write(ENTER_ALT);
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    process.off("exit", restore);
    stdout.write(`${SHOW_CURSOR}${LEAVE_ALT}`);
  };
  process.on("exit", restore);
  return { restore };
}
