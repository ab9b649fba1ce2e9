import type { Command } from "commander";
import type { LoginOptions } from "../commands/login.js";

export function registerLoginCommand(program: Command): void {
  program
    .command("login")
    .description(
      "verify an API key and store it for a profile (OS keychain by default). The key is read from stdin when piped, else from a hidden prompt; never from arguments",
    )
    // --profile and --base-url are the root program's; show them here too.
    .configureHelp({ showGlobalOptions: true })
    .option(
      "--insecure-storage",
      "store the key in a plain-text file (mode 0600) instead of the OS keychain; every use warns",
    )
    // Extra words are refused by us, not commander: its message would echo them, and an
    // extra word here is most likely the key itself.
    .allowExcessArguments(true)
    .allowUnknownOption(true)
    .addHelpText(
      "after",
      "\nExamples:\n  agent-sessions login --base-url https://agents.example.com\n  agent-sessions login --profile work --base-url https://agents.example.com < key.txt\n  pass show agents/key | agent-sessions login",
    )
    .action(async (opts: LoginOptions, cmd: Command) => {
      const { runLogin } = await import("../commands/login.js");
      await runLogin(opts, cmd);
    });
}
