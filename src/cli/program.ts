import { Command, CommanderError } from "commander";
import { EXIT } from "../client/errors.js";
import { VERSION } from "../version.js";
import { registerActCommands } from "./definitions/act.js";
import { registerAttentionCommand } from "./definitions/attention.js";
import { registerCompletionCommand } from "./definitions/completion.js";
import { registerDemoCommand } from "./definitions/demo.js";
import { registerGitCommand } from "./definitions/git.js";
import { registerIntegrationsCommand } from "./definitions/integrations.js";
import { registerJournalCommand } from "./definitions/journal.js";
import { registerLoginCommand } from "./definitions/login.js";
import { registerLogoutCommand } from "./definitions/logout.js";
import { registerProfilesCommand } from "./definitions/profiles.js";
import { registerReplayCommand } from "./definitions/replay.js";
import { registerReviewCommands } from "./definitions/review.js";
import { registerServeCommand } from "./definitions/serve.js";
import { registerSessionsCommand } from "./definitions/sessions.js";
import { registerSnapshotCommand } from "./definitions/snapshot.js";
import { registerUiCommands } from "./definitions/ui.js";
import { registerWatchCommand } from "./definitions/watch.js";
import { registerWhoamiCommand } from "./definitions/whoami.js";
import { exitCodeSet, redact, reportError } from "./output.js";
import {
  rejectUnknownCommand,
  usageErrorText,
  withoutHelpForUnknownCommand,
} from "./unknownCommand.js";

/**
 * Commander quotes the offending argument in usage errors ("unknown option '--key=…'",
 * "unknown command '…'"). Someone may have pasted their key there, so any quoted value after
 * '=' and any long quoted token is masked before it reaches the terminal.
 */
export function scrubArguments(text: string): string {
  return text
    .replace(/'(-{1,2}[^'=\s]+)=[^']*'/g, "'$1=…'")
    .replace(/'([^'\s]{17,})'/g, (_m, tok: string) => `'${tok.slice(0, 3)}…'`);
}

/** `help [command...]`: the help of the root, of a command or of a git subcommand. */
function registerHelpCommand(program: Command): void {
  program
    .command("help")
    .description("show help for the program or a command (help git push)")
    .argument("[command...]", "command (and subcommand) to explain")
    .action((words: string[]) => {
      let target = program;
      for (const word of words) {
        const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (!next) rejectUnknownCommand(target, word);
        target = next;
      }
      target.outputHelp();
    });
}

export function buildProgram(): Command {
  const program = new Command("agent-sessions")
    .description(
      "Terminal client for the Agent Sessions service.\nThe API key comes from AGENT_SESSIONS_API_KEY or the OS keychain (agent-sessions login); it is never accepted as an argument.",
    )
    .version(VERSION, "-V, --version")
    .option(
      "--base-url <url>",
      "service base URL (default: $AGENT_SESSIONS_BASE_URL or the profile's)",
    )
    .option(
      "--profile <name>",
      "profile to use (default: $AGENT_SESSIONS_PROFILE or the default profile)",
    )
    .option(
      "--org <id>",
      "organization to act in, sent as X-Organization-Id (default: $AGENT_SESSIONS_ORG or the profile's; login stores it)",
    )
    .option("--no-journal", "terminal UI: keep no journal of the events seen (this run)");

  registerWhoamiCommand(program);
  registerSessionsCommand(program);
  registerWatchCommand(program);
  registerAttentionCommand(program);
  registerGitCommand(program);
  registerActCommands(program);
  registerReviewCommands(program);
  registerIntegrationsCommand(program);
  registerLoginCommand(program);
  registerLogoutCommand(program);
  registerProfilesCommand(program);
  registerServeCommand(program);
  registerDemoCommand(program);
  registerUiCommands(program);
  registerSnapshotCommand(program);
  registerJournalCommand(program);
  registerReplayCommand(program);
  registerCompletionCommand(program);
  registerHelpCommand(program);

  // Every command, at every depth: usage errors map to exit 2 and are printed as every error
  // is, an `error:` line and one `hint:` line naming the command's own --help (the offending
  // argument scrubbed: a key may have been pasted there).
  const each = (c: Command) => {
    c.exitOverride();
    c.configureOutput({
      outputError: (text, write) => write(redact(scrubArguments(usageErrorText(text, c)))),
    });
    for (const sub of c.commands) each(sub);
  };
  each(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(withoutHelpForUnknownCommand(program, argv));
    return exitCodeSet();
  } catch (e) {
    if (e instanceof CommanderError) {
      // help and version "errors" are successful exits; commander already printed them.
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version") {
        return EXIT.ok;
      }
      // Help asked for is a success; help shown because something was missing (`git` with no
      // subcommand) is a usage error, printed on stderr.
      if (e.code === "commander.help") return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return EXIT.usage;
    }
    return reportError(e);
  }
}
