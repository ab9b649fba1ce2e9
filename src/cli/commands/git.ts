import type { Command } from "commander";
import { EXIT } from "../../client/errors.js";
import { closeDefaultAgent } from "../../client/transport.js";
import type { GitAction } from "../../protocol/git.js";
import { describeResult } from "../../store/actionsStore.js";
import { sanitize } from "../../text/sanitize.js";
import { commandContext } from "../context.js";
import { err, fail, out, printJson } from "../output.js";

/**
 * Runs one git action and prints its result. Any 2xx answer is a success unless it says
 * success: false (or ok: false): then the service's words go to stderr and the exit code is 1.
 * --json prints the answer exactly as the service sent it, unknown fields included.
 */
export async function runGit(
  cmd: Command,
  json: boolean | undefined,
  sessionId: string,
  action: GitAction,
): Promise<void> {
  try {
    const ctx = await commandContext(cmd);
    const result = await ctx.client.git(sessionId, action);
    if (json) {
      printJson(
        result.body !== null && typeof result.body === "object"
          ? result.body
          : { status: result.status, body: result.body },
      );
    } else {
      if (result.ok) out(describeResult(action, result));
      const output = sanitize(result.output ?? "").trimEnd();
      if (output) out(output.replace(/^/gm, "  "));
    }
    if (!result.ok) {
      err(`error: ${describeResult(action, result)}`);
      err(
        "hint: The service ran the action and says it did not succeed; its output above says why.",
      );
      process.exitCode = EXIT.error;
    }
  } catch (e) {
    fail(e);
  } finally {
    await closeDefaultAgent();
  }
}
