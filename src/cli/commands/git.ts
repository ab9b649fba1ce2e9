import type { Command } from "commander";
import type { ApiClient } from "../../client/apiClient.js";
import { EXIT } from "../../client/errors.js";
import { readCodeHostingApp } from "../../client/integrations.js";
import { closeDefaultAgent } from "../../client/transport.js";
import type { GitAction } from "../../protocol/git.js";
import { describeResult } from "../../store/actionsStore.js";
import { unreachableHint } from "../../store/integrations/reach.js";
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
  let client: ApiClient | null = null;
  try {
    const ctx = await commandContext(cmd);
    client = ctx.client;
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
      await reachHint(client, action);
    }
  } catch (e) {
    fail(e);
    const scope = (e as { code?: unknown }).code === "missing_scope";
    if (client && !scope) await reachHint(client, action);
  } finally {
    await closeDefaultAgent();
  }
}

/**
 * A clone that failed on a repository no installation of the code hosting app reaches: say
 * so, and where access is granted (the installation's configure URL, printed, never opened).
 * Nothing when the app cannot be read (a key without integrations:read, no such service).
 */
async function reachHint(client: ApiClient, action: GitAction): Promise<void> {
  if (action.kind !== "clone") return;
  const app = await readCodeHostingApp(client).catch(() => null);
  const hint = unreachableHint(app, action.repoUrl);
  if (hint) err(`hint: ${hint}`);
}
