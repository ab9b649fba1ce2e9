import type { Command } from "commander";
import type { PagingEnd } from "../../client/apiClient.js";
import { EXIT } from "../../client/errors.js";
import { type Session, sessionName } from "../../protocol/resources.js";
import { sessionRepo, timeValue } from "../../protocol/sessionRecord.js";
import { hiddenUnlessAsked } from "../../protocol/states.js";
import { toJsonText } from "../../text/json.js";
import { sanitizeLine } from "../../text/sanitize.js";
import { commandContext } from "../context.js";
import { columnWidths, err, fail, out, stdoutClosed, tableLines } from "../output.js";

export interface SessionsOptions {
  json?: boolean;
  limit?: number;
  state?: string;
  agent?: string;
  template?: string;
  visibility?: string;
  all?: boolean;
  /** List destroyed and error sessions too (the service hides them otherwise). */
  includeDestroyed?: boolean;
}

/**
 * Whether the request asks for destroyed and error sessions: --include-destroyed, or a
 * --state filter naming one of them (which the service would otherwise answer with none).
 */
export function includesDestroyed(opts: Pick<SessionsOptions, "includeDestroyed" | "state">) {
  return opts.includeDestroyed === true || hiddenUnlessAsked(opts.state);
}

/** A time as a cell: text as sent, an epoch number as ISO 8601. */
function timeCell(v: unknown): unknown {
  if (typeof v !== "number") return v;
  const t = timeValue(v);
  return t === null ? null : new Date(t).toISOString();
}

/** The table's columns: those any listed record fills, so an empty column is never shown. */
const COLUMNS: { header: string; cell: (r: Session) => unknown }[] = [
  { header: "SESSION", cell: (r) => r.session_id },
  { header: "STATE", cell: (r) => r.state },
  { header: "NAME", cell: (r) => sessionName(r) },
  { header: "AGENT", cell: (r) => r.agent },
  { header: "TEMPLATE", cell: (r) => r.template_id },
  { header: "VISIBILITY", cell: (r) => r.visibility },
  // The documented github_repo (owner/repo), else a repo some servers send.
  { header: "REPO", cell: (r) => sessionRepo(r) },
  { header: "LAST ACTIVITY", cell: (r) => timeCell(r.last_activity_at) },
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
      // What the service leaves out unless asked, said with the count (or when nothing is
      // listed) where it matters: no state asked for.
      const hidden =
        opts.state || includesDestroyed(opts)
          ? ""
          : " · destroyed and error sessions hidden (--include-destroyed lists them)";
      if (count === 0) {
        const filtered = opts.state || opts.agent || opts.template || opts.visibility;
        out(filtered ? "no sessions match the filters" : "no sessions");
        if (hidden) err(hidden.slice(3));
        return;
      }
      // Notes for the person, not part of the table a script reads.
      if (total !== null && total > count) {
        err(
          end === null
            ? `${total} sessions, ${count} listed (use --all, or --limit up to 100)${hidden}`
            : `${total} sessions, ${count} listed${hidden}`,
        );
      } else if (more && end === null) {
        err(`(more sessions: use --all, or --limit up to 100)${hidden}`);
      } else if (total !== null) {
        err(`${total} session${total === 1 ? "" : "s"}${hidden}`);
      }
    },
  };
}

/** `agent-sessions sessions`: one page of the list, or every page with --all. */
export async function runSessions(opts: SessionsOptions, cmd: Command): Promise<void> {
  try {
    const ctx = await commandContext(cmd);
    const sink = opts.json ? jsonSink() : tableSink(opts);
    const params = {
      limit: opts.limit,
      state: opts.state,
      agent: opts.agent,
      templateId: opts.template,
      visibility: opts.visibility,
      ...(includesDestroyed(opts) ? { includeDestroyed: true } : {}),
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
}
