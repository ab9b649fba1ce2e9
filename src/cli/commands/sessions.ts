import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { DEFAULT_MAX_PAGES, type PagingEnd } from "../../client/apiClient.js";
import { EXIT } from "../../client/errors.js";
import type { Session } from "../../protocol/resources.js";
import { toJsonText } from "../../text/json.js";
import { sanitizeLine } from "../../text/sanitize.js";
import { commandContext } from "../context.js";
import { columnWidths, err, fail, out, stdoutClosed, tableLines } from "../output.js";

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

const HEADERS = ["SESSION", "STATE", "TITLE", "REPO", "UPDATED"];

function row(r: Session): string[] {
  const s = (v: unknown) => (typeof v === "string" ? sanitizeLine(v) : "");
  return [s(r.session_id), s(r.state), s(r.title), s(r.repo), s(r.updated_at)];
}

/**
 * Where the listing goes, page by page: nothing but the current page is held, so `--all` over
 * any number of sessions needs the memory of one page. The table's columns are sized by the
 * first page; the JSON array is written as it comes.
 */
interface Sink {
  page(sessions: readonly Session[]): void;
  /** After the last page; `end` says whether the listing is complete. */
  end(end: PagingEnd | null): void;
  readonly count: number;
}

function jsonSink(): Sink {
  let count = 0;
  return {
    get count() {
      return count;
    },
    page(sessions) {
      // One line per record after the opening bracket: still one JSON array, written as it comes.
      if (sessions.length === 0) return;
      const lines: string[] = [];
      for (const s of sessions) {
        lines.push(`${count === 0 ? "[" : ","}${toJsonText(s)}`);
        count++;
      }
      out(lines.join("\n"));
    },
    end(end) {
      // A cut listing ends with a marker element, so a script reading only stdout still knows.
      const marker =
        end && !end.complete
          ? toJsonText({ incomplete: true, reason: end.reason, pages: end.pages, listed: count })
          : null;
      if (count === 0) out(marker ? `[${marker}]` : "[]");
      else out(marker ? `,${marker}]` : "]");
    },
  };
}

function tableSink(state: string | undefined): Sink {
  let widths: number[] | null = null;
  let count = 0;
  return {
    get count() {
      return count;
    },
    page(sessions) {
      if (sessions.length === 0) return;
      const rows: string[][] = [];
      for (const s of sessions) rows.push(row(s));
      if (widths === null) {
        widths = columnWidths(HEADERS, rows);
        out(tableLines(widths, [HEADERS]).join("\n"));
      }
      out(tableLines(widths, rows).join("\n"));
      count += rows.length;
    },
    end() {
      if (count === 0) out(state ? `no sessions in state ${sanitizeLine(state)}` : "no sessions");
    },
  };
}

export function registerSessionsCommand(program: Command): void {
  program
    .command("sessions")
    .description("list sessions (one page unless --all)")
    .option("--json", "print a JSON array of session records")
    .option("--limit <n>", "sessions per page (the service caps it)", parsePositiveInt)
    .option("--state <state>", "only sessions in this state (active, paused, …)")
    .option(
      "--all",
      `follow pagination to the last page (at most ${DEFAULT_MAX_PAGES} pages; exit 7 when cut short)`,
    )
    .action(async (opts: SessionsOptions, cmd: Command) => {
      try {
        const ctx = await commandContext(cmd);
        const sink = opts.json ? jsonSink() : tableSink(opts.state);
        const params = { limit: opts.limit, state: opts.state };
        if (!opts.all) {
          const page = await ctx.client.listSessions(params, stdoutClosed);
          sink.page(page.sessions);
          sink.end(null);
          if (page.nextCursor !== null && !opts.json && sink.count > 0) {
            out("(more sessions: use --all or a larger --limit)");
          }
          return;
        }
        const pages = ctx.client.sessionPages(params, stdoutClosed);
        let end: PagingEnd | null = null;
        for (;;) {
          const next = await pages.next();
          if (next.done) {
            end = next.value;
            break;
          }
          sink.page(next.value.sessions);
          if (stdoutClosed.aborted) {
            await pages.return({ complete: true, pages: 0 });
            return;
          }
        }
        sink.end(end);
        if (!end.complete) {
          err(
            `warning: the list is incomplete: ${end.reason} after ${end.pages} page${end.pages === 1 ? "" : "s"} (${sink.count} sessions listed)`,
          );
          process.exitCode = EXIT.incomplete;
        }
      } catch (e) {
        fail(e);
      }
    });
}
