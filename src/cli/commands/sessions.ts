import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { PAGE_LIMIT } from "../../client/apiClient.js";
import { type Session, sessionName } from "../../protocol/resources.js";
import { sanitize } from "../../text/sanitize.js";
import { commandContext } from "../context.js";
import { err, fail, out, printJson, table } from "../output.js";

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive integer");
  return n;
}

/** The documented page size: 1–100, checked here so the service never has to refuse it. */
export function parsePageLimit(value: string): number {
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
export function parseFilterValue(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/.test(value)) {
    throw new InvalidArgumentError(
      "expected a name such as active, claude-code, tpl_xyz or team (letters, digits, . _ : -)",
    );
  }
  return value;
}

interface SessionsOptions {
  json?: boolean;
  limit?: number;
  state?: string;
  agent?: string;
  template?: string;
  visibility?: string;
  all?: boolean;
}

/** The table's columns: those any listed record fills, so an empty column is never shown. */
const COLUMNS: { header: string; cell: (r: Session) => unknown }[] = [
  { header: "SESSION", cell: (r) => r.session_id },
  { header: "STATE", cell: (r) => r.state },
  { header: "NAME", cell: (r) => sessionName(r) },
  { header: "AGENT", cell: (r) => r.agent },
  { header: "TEMPLATE", cell: (r) => r.template_id },
  { header: "VISIBILITY", cell: (r) => r.visibility },
  { header: "REPO", cell: (r) => r.repo },
  { header: "UPDATED", cell: (r) => r.updated_at ?? r.created_at },
  { header: "SANDBOX", cell: (r) => r.sandbox_url },
];

function cellText(v: unknown): string {
  // One line per row whatever the server put in a field.
  return typeof v === "string" ? sanitize(v).replace(/\s+/g, " ").trim() : "";
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
    .option("--all", "follow pagination to the last page")
    .action(async (opts: SessionsOptions, cmd: Command) => {
      try {
        const ctx = await commandContext(cmd);
        const params = {
          limit: opts.limit,
          state: opts.state,
          agent: opts.agent,
          templateId: opts.template,
          visibility: opts.visibility,
        };
        const sessions: Session[] = [];
        let more = false;
        let total: number | null = null;
        if (opts.all) {
          for await (const page of ctx.client.sessionPages(params)) {
            sessions.push(...page.sessions);
            total = page.total ?? total;
            more = page.hasMore;
          }
          if (more) {
            err(
              `warning: the service says there are more sessions but gave no way to fetch them; ${sessions.length} listed`,
            );
          }
        } else {
          const page = await ctx.client.listSessions(params);
          sessions.push(...page.sessions);
          more = page.hasMore;
          total = page.total;
        }
        if (opts.json) {
          printJson(sessions);
          return;
        }
        const filtered = opts.state || opts.agent || opts.template || opts.visibility;
        if (sessions.length === 0) {
          out(filtered ? "no sessions match the filters" : "no sessions");
          return;
        }
        const cols = COLUMNS.filter((c) => sessions.some((r) => cellText(c.cell(r)) !== ""));
        out(
          table(
            cols.map((c) => c.header),
            sessions.map((r) => cols.map((c) => cellText(c.cell(r)))),
          ),
        );
        // Notes for the person, not part of the table a script reads.
        if (total !== null && total > sessions.length) {
          err(`${total} sessions, ${sessions.length} listed (use --all, or --limit up to 100)`);
        } else if (more && !opts.all) {
          err("(more sessions: use --all, or --limit up to 100)");
        } else if (total !== null) {
          err(`${total} session${total === 1 ? "" : "s"}`);
        }
      } catch (e) {
        fail(e);
      }
    });
}
