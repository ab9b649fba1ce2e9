import type { Command } from "commander";
import type { PagingEnd } from "../../client/apiClient.js";
import { EXIT } from "../../client/errors.js";
import { type Session, sessionName } from "../../protocol/resources.js";
import { sessionRepo } from "../../protocol/sessionRecord.js";
import { hiddenUnlessAsked } from "../../protocol/states.js";
import { parseTime } from "../../protocol/values.js";
import { readCatalogue } from "../../store/catalogueReader.js";
import { truncate } from "../../text/format.js";
import { toJsonText } from "../../text/json.js";
import { keyRedactor } from "../../text/redact.js";
import { sanitizeLine } from "../../text/sanitize.js";
import { commandContext } from "../context.js";
import { columnWidths, err, fail, out, stdoutClosed, tableLines } from "../output.js";
import { outputIsTerminal } from "../terminalCheck.js";
import { humanTime, type TimeStyle, timeStyleFor } from "../timeStyle.js";

export interface SessionsOptions {
  json?: boolean;
  limit?: number;
  state?: string;
  agent?: string;
  template?: string;
  visibility?: string;
  all?: boolean;
  /** Every column whole, however wide (on a terminal; piped output is always whole). */
  wide?: boolean;
  /** Times as ISO 8601 UTC on a terminal too (timeStyle.ts). */
  absoluteTime?: boolean;
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
  const t = parseTime(v);
  return t === undefined ? null : new Date(t).toISOString();
}

/**
 * The table's columns: those any listed record fills, so an empty column is never shown.
 * `time` marks a timestamp (relative on a terminal); `drop` is the order in which a column
 * gives way when the table is wider than the screen (lowest first); `min` is how far a column
 * may be cut (with …) before anything else gives way.
 */
const COLUMNS: {
  header: string;
  cell: (r: Session) => unknown;
  time?: true;
  drop?: number;
  min?: number;
}[] = [
  { header: "SESSION", cell: (r) => r.session_id },
  { header: "STATE", cell: (r) => r.state },
  { header: "NAME", cell: (r) => sessionName(r), min: 24 },
  { header: "AGENT", cell: (r) => r.agent, drop: 4, min: 11 },
  { header: "TEMPLATE", cell: (r) => r.template_id, drop: 3, min: 10 },
  { header: "VISIBILITY", cell: (r) => r.visibility, drop: 2 },
  // The documented github_repo (owner/repo), else a repo some servers send.
  { header: "REPO", cell: (r) => sessionRepo(r), drop: 5, min: 16 },
  { header: "LAST ACTIVITY", cell: (r) => timeCell(r.last_activity_at), time: true, drop: 6 },
  { header: "UPDATED", cell: (r) => timeCell(r.updated_at ?? r.created_at), time: true },
  { header: "SANDBOX", cell: (r) => r.sandbox_url, drop: 1, min: 16 },
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

/**
 * How the table is laid out: for a person at a terminal, padded columns at most `width` wide
 * (times relative to `now`); for a script (a pipe, a file), one tab between cells, every
 * chosen column whole, times as sent (`tabs`).
 */
export interface TableLayout {
  width: number;
  /** Cells separated by one tab, never cut or left out: output that is not a terminal. */
  tabs: boolean;
  /** How times read (timeStyle.ts): "5m ago" on a terminal, else ISO 8601 UTC. */
  time: TimeStyle;
}

export function tableLayout(
  opts: SessionsOptions,
  stdout: { isTTY?: boolean; columns?: number } = process.stdout,
  now = Date.now(),
): TableLayout {
  const tty = outputIsTerminal(stdout);
  const width = opts.wide || !tty ? Number.POSITIVE_INFINITY : stdout.columns || 80;
  return { width, tabs: !tty, time: timeStyleFor(opts, stdout, now) };
}

function cellOf(c: Column, r: Session, layout: TableLayout): string {
  const text = cellText(c.cell(r));
  return c.time ? humanTime(text, layout.time) : text;
}

const GAP = 2;

function tableWidth(widths: readonly number[]): number {
  return widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, widths.length - 1);
}

/**
 * Columns and widths that fit `max`: columns are cut toward their least width (the widest
 * first); where that is not enough the ones that may give way are left out, lowest `drop`
 * first; with none left to leave out, the cut columns go down to their headers' width.
 */
function fitToWidth(
  cols: Column[],
  natural: number[],
  max: number,
): { cols: Column[]; widths: number[]; dropped: Column[] } {
  const dropped: Column[] = [];
  let shown = cols.map((c, i) => ({ c, w: natural[i] ?? 0 }));
  const over = () => tableWidth(shown.map((x) => x.w)) - max;
  const shrink = (least: (c: Column) => number) => {
    let excess = over();
    while (excess > 0) {
      const widest = shown
        .filter((x) => x.c.min !== undefined && x.w > least(x.c))
        .sort((a, b) => b.w - a.w)[0];
      if (!widest) return;
      const cut = Math.min(excess, widest.w - least(widest.c));
      widest.w -= cut;
      excess -= cut;
    }
  };
  const header = (c: Column) => c.header.length;
  for (;;) {
    shrink((c) => Math.max(c.min ?? 0, header(c)));
    if (over() <= 0) break;
    const next = shown
      .filter((x) => x.c.drop !== undefined)
      .sort((a, b) => (a.c.drop ?? 0) - (b.c.drop ?? 0))[0];
    if (!next) {
      shrink(header);
      break;
    }
    dropped.push(next.c);
    // The columns left get their room back, then are cut again only as far as needed.
    shown = shown
      .filter((x) => x !== next)
      .map((x) => ({ c: x.c, w: natural[cols.indexOf(x.c)] ?? x.w }));
  }
  return { cols: shown.map((x) => x.c), widths: shown.map((x) => x.w), dropped };
}

function tableSink(opts: SessionsOptions, layout: TableLayout): Sink {
  let cols: Column[] | null = null;
  let widths: number[] = [];
  // Only a column cut to fit is cut in later pages too; elsewhere a longer value stays whole.
  let cut: boolean[] = [];
  let count = 0;
  const rowOf = (shown: Column[], r: Session) =>
    shown.map((c, i) => {
      const text = cellOf(c, r, layout);
      // A tab inside a value would shift a script's columns: shown as a blank.
      if (layout.tabs) return text.replace(/\t/g, " ");
      return cut[i] ? truncate(text, widths[i] ?? 0) : text;
    });
  const lines = (rows: string[][]) =>
    layout.tabs ? rows.map((r) => r.join("\t")) : tableLines(widths, rows);
  return {
    get count() {
      return count;
    },
    page(sessions) {
      if (sessions.length === 0) return;
      if (cols === null) {
        const chosen = COLUMNS.filter((c) => sessions.some((r) => cellText(c.cell(r)) !== ""));
        const natural = columnWidths(
          chosen.map((c) => c.header),
          sessions.map((r) => chosen.map((c) => cellOf(c, r, layout))),
        );
        const fitted = fitToWidth(chosen, natural, layout.width);
        cols = fitted.cols;
        widths = fitted.widths;
        cut = fitted.cols.map((c, i) => (widths[i] ?? 0) < (natural[chosen.indexOf(c)] ?? 0));
        const shown = cols;
        out(
          lines([shown.map((c) => c.header), ...sessions.map((r) => rowOf(shown, r))]).join("\n"),
        );
        if (fitted.dropped.length > 0) {
          const names = fitted.dropped.map((c) => c.header.toLowerCase()).join(", ");
          err(`(${names} left out to fit ${layout.width} columns: --wide shows every column)`);
        }
      } else {
        const shown = cols;
        out(lines(sessions.map((r) => rowOf(shown, r))).join("\n"));
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

/**
 * `agent-sessions sessions`: one page of the list, or every page with --all, read through the
 * catalogue's reader (the UI's: the same paging loop, each record admitted once, the user's
 * key redacted) and printed page by page as it comes.
 */
export async function runSessions(opts: SessionsOptions, cmd: Command): Promise<void> {
  try {
    const ctx = await commandContext(cmd);
    const sink = opts.json ? jsonSink() : tableSink(opts, tableLayout(opts));
    const query = {
      limit: opts.limit,
      state: opts.state,
      agent: opts.agent,
      templateId: opts.template,
      visibility: opts.visibility,
      ...(includesDestroyed(opts) ? { includeDestroyed: true } : {}),
    };
    const pages = readCatalogue(ctx.client, query, {
      redact: keyRedactor(ctx.apiKey).redact,
      signal: stdoutClosed,
      ...(opts.all ? {} : { maxPages: 1 }),
    });
    const listing: Listing = { total: null, more: false };
    let end: PagingEnd;
    for (;;) {
      const next = await pages.next();
      if (next.done) {
        end = next.value;
        break;
      }
      sink.page(next.value.records);
      listing.total = next.value.total ?? listing.total;
      listing.more = next.value.hasMore;
      if (!opts.all || stdoutClosed.aborted) {
        await pages.return({ complete: true, pages: 0 });
        if (!opts.all) sink.end(null, listing);
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
