import type { Command } from "commander";
import { EXIT } from "../../client/errors.js";
import { isSessionId } from "../../protocol/ids.js";
import { MAX_PANES } from "../../ui/model/paneLimit.js";
import type { UiOptions } from "../commands/ui.js";
import { globalOptions } from "../globalOptions.js";
import { rejectUnknownCommand } from "../unknownCommand.js";

/** The UI's options from the command line: `--no-journal` on the program or on `open`. */
function uiOptions(cmd: Command, fleet = false): UiOptions {
  const g = globalOptions(cmd);
  const off = g.journal === false || cmd.opts<{ journal?: boolean }>().journal === false;
  return { ...g, journal: !off, fleet };
}

/** The terminal UI: the program itself with no command, `fleet` and `open`. */
export function registerUiCommands(program: Command): void {
  // A word that names no command reaches the root's action: say "unknown command" with a
  // suggestion rather than commander's "too many arguments".
  // Unknown options reach it too, so that `sesions --json` is told about the mistyped command
  // (with a suggestion), not about an option the root does not have.
  program
    .usage("[options] [command]")
    .argument("[command...]")
    .allowUnknownOption()
    .action(async (words: string[], _opts: unknown, cmd: Command) => {
      const word = words[0];
      if (word?.startsWith("-")) {
        cmd.error(`error: unknown option '${word}'`, {
          exitCode: EXIT.usage,
          code: "commander.unknownOption",
        });
      }
      if (word !== undefined && isSessionId(word)) {
        cmd.error(
          `error: unknown command '${word}'\n(to open sessions in the UI: ${cmd.name()} open ${words.join(" ")})`,
          { exitCode: EXIT.usage, code: "commander.unknownCommand" },
        );
      }
      if (word !== undefined) rejectUnknownCommand(cmd, word);
      const { startUi } = await import("../commands/ui.js");
      await startUi(uiOptions(cmd), []);
    });
  program
    .command("fleet")
    .description(
      "open the terminal UI on the fleet view: every session in one table with live columns",
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const { startUi } = await import("../commands/ui.js");
      await startUi(uiOptions(cmd, true), []);
    });
  program
    .command("open")
    .description(`open the terminal UI with these sessions already in panes (up to ${MAX_PANES})`)
    .argument("<session_id...>", "sessions to open (ses_…)")
    .option("--no-journal", "keep no journal of the events seen (this run)")
    .action(async (ids: string[], _opts: unknown, cmd: Command) => {
      const { sessionIds, startUi } = await import("../commands/ui.js");
      const list = sessionIds(cmd, ids);
      if (list) await startUi(uiOptions(cmd), list);
    });
}
