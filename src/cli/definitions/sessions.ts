import { type Command, InvalidArgumentError, Option } from "commander";
import { DEFAULT_MAX_PAGES, PAGE_LIMIT } from "../../client/paging.js";
import { DOCUMENTED_STATES } from "../../protocol/states.js";
import { VISIBILITIES } from "../../protocol/visibility.js";
import type { SessionsOptions } from "../commands/sessions.js";
import { ABSOLUTE_TIME_OPTION } from "../timeStyle.js";

/** The documented page size: 1–100, checked here so the service never has to refuse it. */
function parsePageLimit(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < PAGE_LIMIT.min || n > PAGE_LIMIT.max) {
    throw new InvalidArgumentError(
      `expected an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max} (the service's page size)`,
    );
  }
  return n;
}

/**
 * An open filter value as it may go into a query: letters, digits and . _ : - (agent names
 * and template ids look like that), at most 100 characters.
 */
function parseFilterValue(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/.test(value)) {
    throw new InvalidArgumentError(
      "expected a name such as claude-code or tpl_xyz (letters, digits, . _ : -)",
    );
  }
  return value;
}

export function registerSessionsCommand(program: Command): void {
  program
    .command("sessions")
    .description("list sessions (one page unless --all)")
    .option("--json", "print a JSON array of session records")
    .option("--limit <n>", "sessions per page, 1-100 (default: the service's, 20)", parsePageLimit)
    // The enumerated filters are checked here, before anything is sent (exit 2).
    .addOption(
      new Option("--state <state>", "only sessions in this state").choices([...DOCUMENTED_STATES]),
    )
    .option(
      "--agent <agent>",
      "only sessions of this agent (claude-code, codex, …)",
      parseFilterValue,
    )
    .option("--template <id>", "only sessions made from this template", parseFilterValue)
    .addOption(
      new Option("--visibility <v>", "only sessions with this visibility").choices([
        ...VISIBILITIES,
      ]),
    )
    .option(
      "--include-destroyed",
      "also list destroyed and error sessions (the service hides them unless asked; --state error or destroyed asks too)",
    )
    .option(
      "--all",
      `follow pagination to the last page (at most ${DEFAULT_MAX_PAGES} pages; exit 7 when cut short)`,
    )
    .option(
      "--wide",
      "every column whole on a terminal (by default the table fits its width; piped output is always whole, tab-separated)",
    )
    .option(...ABSOLUTE_TIME_OPTION)
    .action(async (opts: SessionsOptions, cmd: Command) => {
      const { runSessions } = await import("../commands/sessions.js");
      await runSessions(opts, cmd);
    });
}
