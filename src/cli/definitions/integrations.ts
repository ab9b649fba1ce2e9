import { type Command, InvalidArgumentError } from "commander";
import { LAUNCH_LIMIT_RULE, parseLaunchLimit } from "../../protocol/launchLimit.js";
import type { IntegrationsOptions, LinearSetOptions } from "../commands/integrations.js";
import { rejectUnknownCommand } from "../unknownCommand.js";

/** The hourly launch limit, refused here when outside the documented 1–100. */
function parseLimit(value: string): number {
  const n = parseLaunchLimit(value);
  if (n === null) throw new InvalidArgumentError(`expected ${LAUNCH_LIMIT_RULE}`);
  return n;
}

/** A default repository: owner/repo, or "" to clear it. */
function parseRepo(value: string): string {
  const v = value.trim();
  if (v !== "" && !/^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/.test(v)) {
    throw new InvalidArgumentError('expected owner/repo (or "" to clear the default)');
  }
  return v;
}

export function registerIntegrationsCommand(program: Command): void {
  const integrations = program
    .command("integrations")
    .description(
      "show what the service can reach: the code hosting app and its repositories, your token, the issue tracker, the chat tool",
    )
    .usage("[options] [command]")
    .argument("[command...]")
    .option("--json", "print one JSON object, a part per integration")
    .action(async (words: string[], opts: IntegrationsOptions, cmd: Command) => {
      // A word that names no subcommand is a mistyped one (`integrations linaer`).
      if (words[0] !== undefined) rejectUnknownCommand(cmd, words[0]);
      const { runIntegrations } = await import("../commands/integrations.js");
      await runIntegrations(opts, cmd);
    });
  const linear = integrations
    .command("linear")
    .description("the issue tracker integration (admins and owners configure it)");
  linear
    .command("set")
    .description("change the issue tracker's hourly launch limit or default repository")
    .option("--rate-limit <n>", `agent launches per hour, ${LAUNCH_LIMIT_RULE}`, parseLimit)
    .option("--default-repo <owner/repo>", 'default repository ("" clears it)', parseRepo)
    .option("--json", "print the service's answer as JSON")
    .action(async (opts: LinearSetOptions, cmd: Command) => {
      const { runLinearSet } = await import("../commands/integrations.js");
      await runLinearSet(opts, cmd);
    });
}
