import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { closeDefaultAgent } from "../../client/transport.js";
import type { GitResult } from "../../protocol/git.js";
import { isSessionId } from "../../protocol/resources.js";
import { sanitize, sanitizeLine } from "../../text/sanitize.js";
import { type CommandContext, commandContext } from "../context.js";
import { fail, out, printJson } from "../output.js";

function sessionArg(id: string): string {
  if (!isSessionId(id)) throw new InvalidArgumentError("expected a session id (ses_<id>)");
  return id;
}

function summary(r: GitResult): string {
  const s = (v: unknown) => (typeof v === "string" ? sanitizeLine(v) : "");
  const where = `${s(r.session_id)}${r.branch ? ` on ${s(r.branch)}` : ""}`;
  const commit = r.commit ? ` at ${s(r.commit).slice(0, 12)}` : "";
  switch (r.operation) {
    case "clone":
      return `cloned into ${where}${commit}`;
    case "push":
      return `pushed ${where}${commit}`;
    case "create_branch":
      return `created branch ${s(r.branch)} in ${s(r.session_id)}`;
    case "create_pull_request": {
      const pr = r.pull_request;
      return pr
        ? `opened pull request #${pr.number} "${s(pr.title)}" ${s(pr.head)} → ${s(pr.base)}`
        : `opened pull request in ${where}`;
    }
    default:
      return `${s(r.operation)} done in ${where}`;
  }
}

/** Runs one git call with the shared context and prints its result either way. */
async function runGit(
  cmd: Command,
  json: boolean | undefined,
  call: (ctx: CommandContext) => Promise<GitResult>,
): Promise<void> {
  try {
    const ctx = await commandContext(cmd);
    const result = await call(ctx);
    if (json) {
      printJson(result);
    } else {
      out(summary(result));
      const output = sanitize(result.output ?? "").trimEnd();
      if (output) out(output.replace(/^/gm, "  "));
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
    .argument("<session_id>", "session (ses_…)", sessionArg)
    .argument("<repo_url>", "repository to clone")
    .option("--branch <branch>", "branch to check out")
    .option("--json", "print the result as JSON")
    .action((id: string, repoUrl: string, opts: { branch?: string; json?: boolean }, cmd) =>
      runGit(cmd, opts.json, (ctx) =>
        ctx.client.gitClone(id, {
          repo_url: repoUrl,
          ...(opts.branch ? { branch: opts.branch } : {}),
        }),
      ),
    );

  git
    .command("push")
    .description("commit pending changes and push the session's branch")
    .argument("<session_id>", "session (ses_…)", sessionArg)
    .option("--branch <branch>", "remote branch to push to (default: the current branch)")
    .option("--json", "print the result as JSON")
    .action((id: string, opts: { branch?: string; json?: boolean }, cmd) =>
      runGit(cmd, opts.json, (ctx) =>
        ctx.client.gitOperation(id, {
          operation: "push",
          ...(opts.branch ? { branch: opts.branch } : {}),
        }),
      ),
    );

  git
    .command("branch")
    .description("create and switch to a new branch in the session")
    .argument("<session_id>", "session (ses_…)", sessionArg)
    .argument("<name>", "new branch name")
    .option("--from <ref>", "start point (default: the current commit)")
    .option("--json", "print the result as JSON")
    .action((id: string, name: string, opts: { from?: string; json?: boolean }, cmd) =>
      runGit(cmd, opts.json, (ctx) =>
        ctx.client.gitOperation(id, {
          operation: "create_branch",
          name,
          ...(opts.from ? { from: opts.from } : {}),
        }),
      ),
    );

  git
    .command("pr")
    .description("open a pull request from the session's branch")
    .argument("<session_id>", "session (ses_…)", sessionArg)
    .requiredOption("--title <title>", "pull request title")
    .option("--base <branch>", "branch to merge into (default: main)")
    .option("--head <branch>", "branch with the changes (default: the current branch)")
    .option("--body <text>", "description")
    .option("--json", "print the result as JSON")
    .action(
      (
        id: string,
        opts: { title: string; base?: string; head?: string; body?: string; json?: boolean },
        cmd,
      ) =>
        runGit(cmd, opts.json, (ctx) =>
          ctx.client.gitOperation(id, {
            operation: "create_pull_request",
            title: opts.title,
            ...(opts.base ? { base: opts.base } : {}),
            ...(opts.head ? { head: opts.head } : {}),
            ...(opts.body ? { body: opts.body } : {}),
          }),
        ),
    );
}
