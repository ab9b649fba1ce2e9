import type { Command } from "commander";
import type { GitAction } from "../../protocol/git.js";
import { sessionArg } from "./argParsers.js";

/** Every git subcommand runs through here: the implementation loads when one runs. */
async function gitAction(
  cmd: Command,
  json: boolean | undefined,
  sessionId: string,
  action: GitAction,
): Promise<void> {
  const { runGit } = await import("../commands/git.js");
  await runGit(cmd, json, sessionId, action);
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
      gitAction(cmd, opts.json, id, { kind: "clone", repoUrl, branch: opts.branch }),
    );

  git
    .command("push")
    .description("commit pending changes and push the session's branch")
    .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
    .option("--branch <branch>", "remote branch to push to (default: the current branch)")
    .option("--json", "print the service's answer as JSON")
    .action((id: string, opts: { branch?: string; json?: boolean }, cmd) =>
      gitAction(cmd, opts.json, id, { kind: "push", branch: opts.branch }),
    );

  git
    .command("branch")
    .description("create and switch to a new branch in the session")
    .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
    .argument("<name>", "new branch name")
    .option("--from <ref>", "start point (default: the current commit)")
    .option("--json", "print the service's answer as JSON")
    .action((id: string, name: string, opts: { from?: string; json?: boolean }, cmd) =>
      gitAction(cmd, opts.json, id, { kind: "branch", name, from: opts.from }),
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
        gitAction(cmd, opts.json, id, {
          kind: "pr",
          title: opts.title,
          base: opts.base,
          head: opts.head,
          body: opts.body,
        }),
    );
}
