import type { Command } from "commander";
import { rejectUnknownCommand } from "../unknownCommand.js";

export function registerProfilesCommand(program: Command): void {
  const profiles = program
    .command("profiles")
    .description("list the profiles (default, base URL, where each key is stored); use, remove")
    .usage("[options] [command]")
    .argument("[command...]")
    .option("--json", "print one JSON object")
    .action(async (words: string[], opts: { json?: boolean }, cmd: Command) => {
      if (words[0] !== undefined) rejectUnknownCommand(cmd, words[0]);
      const { runProfiles } = await import("../commands/profiles.js");
      await runProfiles(opts);
    });
  profiles
    .command("use")
    .description("make a profile the default one")
    .argument("<name>", "an existing profile (see agent-sessions profiles)")
    .action(async (name: string) => {
      const { runProfilesUse } = await import("../commands/profiles.js");
      await runProfilesUse(name);
    });

  profiles
    .command("remove")
    .alias("rm")
    .description(
      "delete a profile: its stored key (OS keychain or plain-text file) and its entry in the profiles file",
    )
    .argument("<name>", "an existing profile (see agent-sessions profiles)")
    .action(async (name: string) => {
      const { runProfilesRemove } = await import("../commands/profiles.js");
      await runProfilesRemove(name);
    });
}
