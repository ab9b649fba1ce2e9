import type { Command } from "commander";

type WithUnknownCommand = Command & { unknownCommand?: () => never };

/**
 * Fails with commander's own "unknown command 'x' (Did you mean y?)", the message a mistyped
 * `git` subcommand already gets, for a word given to `command`. Commander reaches it by itself
 * only for commands without an action of their own; the root (the UI) and `help` need it too.
 */
export function rejectUnknownCommand(command: Command, word: string): never {
  command.args = [word];
  const c = command as WithUnknownCommand;
  if (typeof c.unknownCommand === "function") c.unknownCommand();
  command.error(`error: unknown command '${word}'`, { code: "commander.unknownCommand" });
}
