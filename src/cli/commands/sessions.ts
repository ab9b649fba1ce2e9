import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { DEFAULT_MAX_PAGES, PAGE_LIMIT, type PagingEnd } from "../../client/apiClient.js";
import { EXIT } from "../../client/errors.js";
import { type Session, sessionName } from "../../protocol/resources.js";
import { toJsonText } from "../../text/json.js";
import { sanitizeLine } from "../../text/sanitize.js";
import { commandContext } from "../context.js";
import { columnWidths, err, fail, out, stdoutClosed, tableLines } from "../output.js";

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

type Column = (typeof COLUMNS)[number];

/** A cell is a single-line place: a newline in a field is folded visibly (⏎), never a row. */
function cellText(v: unknown): string {
  return typeof v === "string" ? sanitizeLine(v).trim() : "";
}

/** What the service said about the whole listing, from its pages. */
interface Listing {
  total: number | null;
  /** The service says there are more than were asked for (one page without --all). */
  more: boolean;
}

/**
 * Where the listing goes, page by page: nothing but the current page is held, so `--all` over
 * any number of sessions needs the memory of one page. The table's columns are chosen and
 * sized by the first page with sessions; the JSON array is written as it comes.
 */
interface Sink {
  page(sessions: readonly Session[]): void;
  /** After the last page; `end` says whether an `--all` walk was complete (null: one page). */
  end(end: PagingEnd | null, listing: Listing): void;
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

function tableSink(opts: SessionsOptions): Sink {
  let cols: Column[] | null = null;
  let widths: number[] = [];
  let count = 0;
  return {
    get count() {
      return count;
    },
    page(sessions) {
      if (sessions.length === 0) return;
      if (cols === null) {
        const chosen = COLUMNS.filter((c) => sessions.some((r) => cellText(c.cell(r)) !== ""));
        cols = chosen;
        const rows = sessions.map((r) => chosen.map((c) => cellText(c.cell(r))));
        const headers = chosen.map((c) => c.header);
        widths = columnWidths(headers, rows);
        out(tableLines(widths, [headers, ...rows]).join("\n"));
      } else {
        const shown = cols;
        out(
          tableLines(
            widths,
            sessions.map((r) => shown.map((c) => cellText(c.cell(r)))),
          ).join("\n"),
        );
      }
      count += sessions.length;
    },
    end(end, { total, more }) {
      if (count === 0) {
        const filtered = opts.state || opts.agent || opts.template || opts.visibility;
        out(filtered ? "no sessions match the filters" : "no sessions");
        return;
      }
      // Notes for the person, not part of the table a script reads.
      if (total !== null && total > count) {
        err(
          end === null
            ? `${total} sessions, ${count} listed (use --all, or --limit up to 100)`
            : `${total} sessions, ${count} listed`,
        );
      } else if (more && end === null) {
        err("(more sessions: use --all, or --limit up to 100)");
      } else if (total !== null) {
        err(`${total} session${total === 1 ? "" : "s"}`);
      }
    },
  };
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
      "--all",
      `follow pagination to the last page (at most ${DEFAULT_MAX_PAGES} pages; exit 7 when cut short)`,
    )
    .action(async (opts: SessionsOptions, cmd: Command) => {
      try {
        const ctx = await commandContext(cmd);
        const sink = opts.json ? jsonSink() : tableSink(opts);
        const params = {
          limit: opts.limit,
          state: opts.state,
          agent: opts.agent,
          templateId: opts.template,
          visibility: opts.visibility,
        };
        if (!opts.all) {
          const page = await ctx.client.listSessions(params, stdoutClosed);
          sink.page(page.sessions);
          sink.end(null, { total: page.total, more: page.hasMore });
          return;
        }
        const pages = ctx.client.sessionPages(params, stdoutClosed);
        const listing: Listing = { total: null, more: false };
        let end: PagingEnd;
        for (;;) {
          const next = await pages.next();
          if (next.done) {
            end = next.value;
            break;
          }
          sink.page(next.value.sessions);
          listing.total = next.value.total ?? listing.total;
          if (stdoutClosed.aborted) {
            await pages.return({ complete: true, pages: 0 });
            return;
          }
        }
        sink.end(end, listing);
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
