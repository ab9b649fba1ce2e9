import { Argument, type Command } from "commander";
import { intArg, sessionArg } from "./argParsers.js";

/**
 * Reviewing what a session changed and taking it home: diff, files, cat, apply, checkout,
 * rewind, browse and ports. Each implementation loads only when its command runs.
 */
/** What `browse` opens: a URL of the record, or (printed) the session's id. */
const BROWSE_TARGETS = ["preview", "pr", "sandbox", "id"] as const;
type BrowseTarget = (typeof BROWSE_TARGETS)[number];

export function registerReviewCommands(program: Command): void {
  program
    .command("diff")
    .description("print what the session changed as a patch git apply accepts")
    .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
    .argument("[path...]", "only these files, or the files under these folders")
    .option("--stat", "one line per file with its added and removed lines, and the totals")
    .option("--json", "the files with their counts, and the patch, as one JSON object")
    .action(async (id: string, paths: string[], opts: { stat?: boolean; json?: boolean }, cmd) => {
      const { runDiff } = await import("../commands/review.js");
      await runDiff(cmd, id, paths, { stat: opts.stat === true, json: opts.json === true });
    });

  program
    .command("files")
    .description("list the files of the session's workspace")
    .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
    .argument("[path]", "folder to list (default: the workspace's root)")
    .option("--recursive", "list everything under the folder")
    .option("--json", "a JSON array of the entries ({name, path, type, size})")
    .action(
      async (
        id: string,
        path: string | undefined,
        opts: { recursive?: boolean; json?: boolean },
        cmd,
      ) => {
        const { runFiles } = await import("../commands/review.js");
        await runFiles(cmd, id, path ?? "/", {
          recursive: opts.recursive === true,
          json: opts.json === true,
        });
      },
    );

  program
    .command("cat")
    .description("print one file of the session (its bytes to a pipe, sanitized on a terminal)")
    .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
    .argument("<path>", "the file, from the workspace's root")
    .action(async (id: string, path: string, _opts: unknown, cmd) => {
      const { runCat } = await import("../commands/review.js");
      await runCat(cmd, id, path);
    });

  program
    .command("apply")
    .description("apply the session's changes to the git checkout here (a preflight first)")
    .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
    .option("--check", "only say whether it applies; change nothing")
    .option("--3way", "merge three ways where the patch's context moved (never over a conflict)")
    .action(async (id: string, opts: { check?: boolean; "3way"?: boolean }, cmd) => {
      const { runApply } = await import("../commands/takeHome.js");
      await runApply(cmd, id, { check: opts.check === true, threeWay: opts["3way"] === true });
    });

  program
    .command("checkout")
    .description("fetch the branch the session pushed into a local branch of the same name")
    .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
    .option("--branch <branch>", "the session's branch (default: the one its record names)")
    .action(async (id: string, opts: { branch?: string }, cmd) => {
      const { runCheckout } = await import("../commands/takeHome.js");
      await runCheckout(cmd, id, opts.branch ?? null);
    });

  program
    .command("rewind")
    .description("undo the session's last prompt and the file changes it made")
    .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
    .option("--yes", "do not ask (required when there is no terminal to ask on)")
    .option("--json", "print the service's answer as JSON")
    .action(async (id: string, opts: { yes?: boolean; json?: boolean }, cmd) => {
      const { runRewind } = await import("../commands/review.js");
      await runRewind(cmd, id, { yes: opts.yes === true, json: opts.json === true });
    });

  program
    .command("browse")
    .description("open the session's preview, pull request or sandbox in the browser")
    .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
    .addArgument(
      new Argument("[what]", "what to open (default: the preview, else the sandbox)").choices(
        BROWSE_TARGETS,
      ),
    )
    .option("--print", "print the URL instead of opening it")
    .action(async (id: string, what: BrowseTarget | undefined, opts: { print?: boolean }, cmd) => {
      const { runBrowse } = await import("../commands/review.js");
      await runBrowse(cmd, id, what ?? null, opts.print === true);
    });

  program
    .command("ports")
    .description("the ports the session's sandbox listens on, and what listens")
    .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
    .option("--connect <port>", "resolve the port's preview URL (connect) and open it", intArg(1))
    .option("--print", "with --connect: print the URL instead of opening it")
    .option("--json", "the ports and processes as one JSON object")
    .action(
      async (id: string, opts: { connect?: number; print?: boolean; json?: boolean }, cmd) => {
        const { runPorts } = await import("../commands/review.js");
        await runPorts(cmd, id, {
          connect: opts.connect ?? null,
          print: opts.print === true,
          json: opts.json === true,
        });
      },
    );
}
