import { startUi } from "./commands/ui.js";
import { exitCodeSet, reportError, runCommand } from "./output.js";

/** `agent-sessions` with nothing after it: the UI. Returns the exit code. */
export function runBareUi(): Promise<number> {
  return runCommand(async () => {
    try {
      await startUi({}, []);
      return exitCodeSet();
    } catch (e) {
      return reportError(e);
    }
  });
}
