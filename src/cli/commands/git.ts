import type { Command } from "commander";
import type { ApiClient } from "../../client/apiClient.js";
import { EXIT, HttpError, NotFoundError } from "../../client/errors.js";
import { readCodeHostingApp } from "../../client/integrations.js";
import type { GitAction } from "../../protocol/git.js";
import { describeResult } from "../../store/actionsStore.js";
import { gitActionRepo, unreachableHint } from "../../store/integrations/reach.js";
import { sanitize } from "../../text/sanitize.js";
import { commandContext } from "../context.js";
import { err, fail, out, printJson } from "../output.js";

/**
 * Runs one git action and prints its result. Any 2xx answer is a success unless it says
 * success: false (or ok: false): then the service's words go to stderr and the exit code is 1.
 * --json prints the answer exactly as the service sent it, unknown fields included. A failure
 * on a repository no installation of the code hosting app reaches says where access is
 * granted, as its hint.
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
      const reach = await reachHint(client, sessionId, action);
      err(
        `hint: ${reach ?? "The service ran the action and says it did not succeed; its output above says why."}`,
      );
      process.exitCode = EXIT.error;
    }
  } catch (e) {
    const reach = client && refusedByService(e) ? await reachHint(client, sessionId, action) : null;
    fail(e, reach);
  } finally {
    await client?.close();
  }
}

/**
 * The service refused the action itself (not the key, the scope, the session's state or its
 * existence: a repository it cannot reach is "not found" too): what the code hosting app
 * reaches may be why.
 */
function refusedByService(e: unknown): boolean {
  if (e instanceof NotFoundError) return !/\bsession\b/i.test(e.message);
  if (!(e instanceof HttpError)) return false;
  if (e.status === 409 || e.status === 410 || e.status === 503) return false;
  return !/not running \(state:/i.test(e.message);
}

/**
 * Where to grant the code hosting app access when the action's repository (the one cloned,
 * the session's for a push or a pull request) is one no installation reaches: the
 * installation's configure URL, printed, never opened. Null when it is reached, or when the
 * app or the session cannot be read (a key without integrations:read, no such service).
 */
async function reachHint(
  client: ApiClient,
  sessionId: string,
  action: GitAction,
): Promise<string | null> {
  if (action.kind === "branch") return null;
  const record =
    action.kind === "clone" ? undefined : await client.getSession(sessionId).catch(() => null);
  if (record === null) return null;
  const repo = gitActionRepo(action, record);
  if (repo === null) return null;
  const app = await readCodeHostingApp(client).catch(() => null);
  return unreachableHint(app, repo);
}
