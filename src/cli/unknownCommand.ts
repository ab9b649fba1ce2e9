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

/** "agent-sessions git push": how a user names the command. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/**
 * A usage error as every error is printed: one `error:` line, then one `hint:` line. Commander
 * writes the error and, on lines of their own, what it adds ("(Did you mean whoami?)", or the
 * UI's "(to open sessions in the UI: …)"): that becomes the hint; without it the hint points
 * at the command's own --help.
 */
export function usageErrorText(text: string, command: Command): string {
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const first = lines[0] ?? "bad usage";
  const error = first.startsWith("error:") ? first : `error: ${first}`;
  const said = lines
    .slice(1)
    .map((l) => l.replace(/^\((.*)\)$/, "$1"))
    .join(" ");
  const help = `${commandPath(command)} --help`;
  const hint =
    said === ""
      ? `See ${help} for usage.`
      : /^did you mean/i.test(said)
        ? `${said} (${help} lists them)`
        : `${said.charAt(0).toUpperCase()}${said.slice(1)}`;
  return `${error}\nhint: ${hint}\n`;
}

const HELP_FLAGS = new Set(["-h", "--help"]);

/**
 * Where the word that would name a subcommand of `command` is in `args` (its first operand:
 * options and the values they take skipped), or -1 when there is none.
 */
function firstOperand(command: Command, args: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--") return i + 1 < args.length ? i + 1 : -1;
    if (!a.startsWith("-") || a === "-") return i;
    if (a.includes("=")) continue;
    const option = command.options.find((o) => o.long === a || o.short === a);
    if (option && (option.required || option.optional)) i++;
  }
  return -1;
}

/**
 * `agent-sessions nosuchcmd --help` must be the unknown command's error (exit 2), not the
 * help of the command above it (commander shows that help before it looks at the word). The
 * command line is followed down the commands it names; where a word names none of the
 * subcommands a command has, --help and -h are taken out, so the command's own handling (its
 * action, or commander's "unknown command") reports the word, with "did you mean".
 */
export function withoutHelpForUnknownCommand(program: Command, argv: string[]): string[] {
  const head = argv.slice(0, 2);
  let args = argv.slice(2);
  let command = program;
  for (;;) {
    if (command.commands.length === 0) return argv;
    const at = firstOperand(command, args);
    if (at < 0) return argv;
    const word = args[at] as string;
    const next = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) {
      if (!args.some((a) => HELP_FLAGS.has(a))) return argv;
      const before = argv.length - args.length;
      return [
        ...head,
        ...argv.slice(2, before),
        ...args.filter((a, i) => i === at || !HELP_FLAGS.has(a)),
      ];
    }
    command = next;
    args = args.slice(at + 1);
  }
}
