import { startUi } from "./commands/ui.js";
import { exitCodeSet, handleClosedOutput, reportError, stdoutClosed } from "./output.js";

/**
 * `agent-sessions` with nothing after it: the UI, with the process-wide handlers the program
 * otherwise sets up (a closed stdout, unhandled rejections). Returns the exit code.
 */
export async function runBareUi(): Promise<number> {
  handleClosedOutput();
  process.on("unhandledRejection", (reason) => {
    process.exitCode = reportError(reason);
  });
  let code: number;
  try {
    await startUi({}, []);
    code = exitCodeSet();
  } catch (e) {
    code = reportError(e);
  }
  return stdoutClosed.aborted ? 0 : code;
}
