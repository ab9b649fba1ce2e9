import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import type { Session } from "../../protocol/resources.js";
import { sanitize } from "../../text/sanitize.js";
import { commandContext } from "../context.js";
import { err, fail, out, printJson, table } from "../output.js";

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive integer");
  return n;
}

interface SessionsOptions {
  json?: boolean;
  limit?: number;
  state?: string;
  all?: boolean;
}

export function registerSessionsCommand(program: Command): void {
  program
    .command("sessions")
    .description("list sessions (one page unless --all)")
    .option("--json", "print a JSON array of session records")
    .option("--limit <n>", "sessions per page (the service caps it)", parsePositiveInt)
    .option("--state <state>", "only sessions in this state (active, paused, …)")
    .option("--all", "follow pagination to the last page")
    .action(async (opts: SessionsOptions, cmd: Command) => {
      try {
        const ctx = await commandContext(cmd);
        const sessions: Session[] = [];
        let more = false;
        if (opts.all) {
          for await (const page of ctx.client.sessionPages({
            limit: opts.limit,
            state: opts.state,
          })) {
            sessions.push(...page.sessions);
          }
        } else {
          const page = await ctx.client.listSessions({ limit: opts.limit, state: opts.state });
          sessions.push(...page.sessions);
          more = page.nextCursor !== null;
        }
        if (opts.json) {
          printJson(sessions);
          return;
        }
        if (sessions.length === 0) {
          out(opts.state ? `no sessions in state ${sanitize(opts.state)}` : "no sessions");
          return;
        }
        const s = (v: unknown) => (typeof v === "string" ? sanitize(v) : "");
        out(
          table(
            ["SESSION", "STATE", "TITLE", "REPO", "UPDATED"],
            sessions.map((r) => [
              s(r.session_id),
              s(r.state),
              s(r.title),
              s(r.repo),
              s(r.updated_at),
            ]),
          ),
        );
        // A note for the person, not part of the table a script reads.
        if (more) err("(more sessions: use --all or a larger --limit)");
      } catch (e) {
        fail(e);
      }
    });
}
