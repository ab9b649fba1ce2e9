import { type Command, InvalidArgumentError } from "commander";
import { DEFAULT_MAX_PAGES, PAGE_LIMIT } from "../../client/paging.js";
import type { SessionsOptions } from "../commands/sessions.js";

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
 * A filter value as it may go into a query: letters, digits and . _ : - (states, agent
 * names, template ids and visibilities all look like that), at most 100 characters.
 */
function parseFilterValue(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/.test(value)) {
    throw new InvalidArgumentError(
      "expected a name such as active, claude-code, tpl_xyz or team (letters, digits, . _ : -)",
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
    .option("--state <state>", "only sessions in this state (active, paused, …)", parseFilterValue)
    .option(
      "--agent <agent>",
      "only sessions of this agent (claude-code, codex, …)",
      parseFilterValue,
    )
    .option("--template <id>", "only sessions made from this template", parseFilterValue)
    .option(
      "--visibility <v>",
      "only sessions with this visibility (private, team)",
      parseFilterValue,
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
      "every column whole (by default the table fits the terminal's width, or 100 columns when not a terminal)",
    )
    .action(async (opts: SessionsOptions, cmd: Command) => {
      const { runSessions } = await import("../commands/sessions.js");
      await runSessions(opts, cmd);
    });
}
