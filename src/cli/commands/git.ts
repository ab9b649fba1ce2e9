import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { EXIT } from "../../client/errors.js";
import { closeDefaultAgent } from "../../client/transport.js";
import type { GitAction } from "../../protocol/git.js";
import { isSessionId } from "../../protocol/resources.js";
import { describeResult } from "../../store/actionsStore.js";
import { sanitize } from "../../text/sanitize.js";
import { commandContext } from "../context.js";
import { err, fail, out, printJson } from "../output.js";

function sessionArg(id: string): string {
  if (!isSessionId(id))
    throw new InvalidArgumentError("expected a session id (ses_<id> or a UUID)");
  return id;
}

/**
 * Runs one git action and prints its result. Any 2xx answer is a success unless it says
 * success: false (or ok: false): then the service's words go to stderr and the exit code is 1.
 * --json prints the answer exactly as the service sent it, unknown fields included.
 */
async function runGit(
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

export function registerGitCommand(program: Command): void {
  const git = program
    .command("git")
    .description("git actions inside a session: clone, push, branch, pull request");

  git
    .command("clone")
    .description("clone a repository into the session's workspace")
    .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
    .argument("<repo_url>", "repository to clone")
    .option("--branch <branch>", "branch to check out")
    .option("--json", "print the service's answer as JSON")
    .action((id: string, repoUrl: string, opts: { branch?: string; json?: boolean }, cmd) =>
      runGit(cmd, opts.json, id, { kind: "clone", repoUrl, branch: opts.branch }),
    );

  git
    .command("push")
    .description("commit pending changes and push the session's branch")
    .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
    .option("--branch <branch>", "remote branch to push to (default: the current branch)")
    .option("--json", "print the service's answer as JSON")
    .action((id: string, opts: { branch?: string; json?: boolean }, cmd) =>
      runGit(cmd, opts.json, id, { kind: "push", branch: opts.branch }),
    );

  git
    .command("branch")
    .description("create and switch to a new branch in the session")
    .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
    .argument("<name>", "new branch name")
    .option("--from <ref>", "start point (default: the current commit)")
    .option("--json", "print the service's answer as JSON")
    .action((id: string, name: string, opts: { from?: string; json?: boolean }, cmd) =>
      runGit(cmd, opts.json, id, { kind: "branch", name, from: opts.from }),
    );

  git
    .command("pr")
    .description("open a pull request from the session's branch")
    .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
    .requiredOption("--title <title>", "pull request title")
    .option("--base <branch>", "branch to merge into (default: the service's, main here)")
    .option("--head <branch>", "branch with the changes (default: the current branch)")
    .option("--body <text>", "description")
    .option("--json", "print the service's answer as JSON")
    .action(
      (
        id: string,
        opts: { title: string; base?: string; head?: string; body?: string; json?: boolean },
        cmd,
      ) =>
        runGit(cmd, opts.json, id, {
          kind: "pr",
          title: opts.title,
          base: opts.base,
          head: opts.head,
          body: opts.body,
        }),
    );
}
