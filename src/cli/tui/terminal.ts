/**
 * The alternate screen and the cleanup that restores the terminal. Cleanup runs once,
 * whichever way the process leaves: q, Ctrl-C, SIGTERM/SIGHUP, an uncaught error or exit.
 */

const ENTER_ALT = "\u001b[?1049h\u001b[H";
const LEAVE_ALT = "\u001b[?1049l";
const SHOW_CURSOR = "\u001b[?25h";

export interface TerminalSession {
  /**
   * Runs `fn` just before the alternate screen is left, however the process leaves. The UI
   * unmounts here: its last frame then lands on the alternate screen, never on the user's
   * screen after it was given back (an uncaught error leaves through `exit`, where the UI's
   * own exit hook would otherwise draw once more).
   */
  beforeLeave(fn: () => void): void;
  /** Leaves the alternate screen and shows the cursor; idempotent. */
  restore(): void;
}

export function enterAlternateScreen(stdout: NodeJS.WriteStream): TerminalSession {
  stdout.write(ENTER_ALT);
  const before: (() => void)[] = [];
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    process.off("exit", restore);
    for (const fn of before) {
      try {
        fn();
      } catch {
        // Leaving the alternate screen matters more than a failed teardown.
      }
    }
    stdout.write(`${SHOW_CURSOR}${LEAVE_ALT}`);
  };
  process.on("exit", restore);
  return { beforeLeave: (fn) => before.push(fn), restore };
}
