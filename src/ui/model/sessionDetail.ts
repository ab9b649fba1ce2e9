import type { Session } from "../../protocol/resources.js";
import { formatUsd } from "../../protocol/sessionRecord.js";
import { numberValue, parseTime, recordValue } from "../../protocol/values.js";
import { displayId } from "../../store/admitSession.js";
import { formatAgeCoarse } from "../../text/format.js";

/**
 * What the `i` overlay lists for one session: every field of its record as the service sent
 * it (sanitized at the store; a field the record does not have is not listed, nor a documented
 * optional one sent as null), the documented ones first and in an order that reads top down
 * (what it is and how it is, what runs it, where, what it did, whose, when), then any other,
 * unknown ones included. `last_prompt` is spread over a line per field
 * (`last_prompt.status`, …); times get their age beside them, the cost its dollars. Below the
 * record, the API routes in use, as `whoami --verbose` names them.
 */

const FIRST = [
  "id",
  "session_id",
  "name",
  "title",
  "state",
  "error_message",
  "paused_at",
  "agent_status",
  "agent",
  "template_id",
  "template",
  "visibility",
  "sandbox_url",
  "preview_url",
  "github_repo",
  "repo",
  "branch",
  "last_activity_at",
  "last_prompt",
  "prompt_count",
  "total_cost_usd",
  "user_id",
  "organization_id",
  "created_at",
  "updated_at",
];

/**
 * The documented fields a record may leave out: one sent as null says the same (no error, not
 * paused, no repository yet), so it is not listed either.
 */
const OPTIONAL = new Set([
  "github_repo",
  "last_prompt",
  "last_activity_at",
  "error_message",
  "paused_at",
  "prompt_count",
  "total_cost_usd",
  "preview_url",
  "template",
  "agent_status",
]);

/** last_prompt's own fields in reading order; any other it has follows. */
const PROMPT_FIRST = ["status", "started_at", "completed_at"];

/** Fields (and last_prompt's) that hold a moment: shown with their age. */
const TIME_FIELDS = new Set([
  "last_activity_at",
  "paused_at",
  "created_at",
  "updated_at",
  "last_prompt.started_at",
  "last_prompt.completed_at",
]);

function ranked(order: readonly string[]) {
  return (k: string) => {
    const i = order.indexOf(k);
    return i === -1 ? order.length : i;
  };
}

/**
 * The record's fields in display order, the id as its display copy; the session_id the client
 * adds to an `id` record is left out, and an object `last_prompt` becomes one entry per field.
 */
export function detailEntries(record: Session): [string, unknown][] {
  const shownId = displayId(record);
  const all: [string, unknown][] = [];
  for (const [k, v] of Object.entries(record)) {
    if (v === undefined || (v === null && OPTIONAL.has(k))) continue;
    if (k !== "session_id") all.push([k, v]);
    else if (record.id !== shownId) all.push([k, shownId]);
  }
  const rank = ranked(FIRST);
  const out: [string, unknown][] = [];
  for (const [k, v] of all.sort(([a], [b]) => rank(a) - rank(b))) {
    const prompt = k === "last_prompt" ? recordValue(v) : null;
    if (prompt) {
      const sub = Object.entries(prompt).filter(([, x]) => x !== undefined);
      const subRank = ranked(PROMPT_FIRST);
      sub.sort(([a], [b]) => subRank(a) - subRank(b));
      for (const [sk, sv] of sub) out.push([`last_prompt.${sk}`, sv]);
      if (sub.length === 0) out.push([k, v]);
    } else out.push([k, v]);
  }
  return out;
}

function raw(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null) return "—";
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** One value as the overlay shows it: as sent, with the age of a time and a cost in dollars. */
export function detailValue(key: string, v: unknown, now: number): string {
  const text = raw(v);
  if (TIME_FIELDS.has(key)) {
    const t = parseTime(v);
    if (t !== undefined) {
      const iso = typeof v === "number" ? ` = ${new Date(t).toISOString()}` : "";
      return `${text}${iso} (${formatAgeCoarse(Math.max(0, now - t))})`;
    }
  }
  if (key === "total_cost_usd") {
    const usd = numberValue(v);
    if (usd !== null && usd >= 0) return `${text} (${formatUsd(usd)})`;
  }
  return text;
}

/** Where session routes and event streams are sent (ServiceRoutes.describe satisfies it). */
export interface RoutesView {
  describe(): { sessions: string; events: string; codeHosting: string };
}

export interface DetailLine {
  /** A note says why the session needs you or who else changes its files (before the fields). */
  kind: "note" | "field" | "heading" | "blank";
  key: string;
  value: string;
}

/** Every line of the overlay: the record's fields, then the routes (or why there are none). */
export function detailLines(record: Session, routes: RoutesView | null, now: number): DetailLine[] {
  const lines: DetailLine[] = detailEntries(record).map(([key, v]) => ({
    kind: "field",
    key,
    value: detailValue(key, v, now),
  }));
  lines.push({ kind: "blank", key: "", value: "" });
  if (routes === null) {
    lines.push({
      kind: "heading",
      key: "API routes",
      value: "none: a recording plays, no service",
    });
    return lines;
  }
  const r = routes.describe();
  lines.push({
    kind: "heading",
    key: "API routes in use",
    value: "(as whoami --verbose names them)",
  });
  lines.push({ kind: "field", key: "sessions at", value: r.sessions });
  lines.push({ kind: "field", key: "events at", value: r.events });
  lines.push({ kind: "field", key: "code hosting at", value: r.codeHosting });
  return lines;
}

/**
 * The overlay's lines: the notes first (why it needs you, who else changes its files: a row has
 * room only for a mark), then the record's fields and the routes. The overlay draws these and
 * its paging counts them.
 */
export function detailView(
  record: Session,
  routes: RoutesView | null,
  now: number,
  notes: readonly [string, string][],
): { lines: DetailLine[]; fields: number } {
  const body = detailLines(record, routes, now);
  const blank = body.findIndex((l) => l.kind === "blank");
  return {
    lines: [...notes.map(([key, value]): DetailLine => ({ kind: "note", key, value })), ...body],
    fields: blank < 0 ? body.length : blank,
  };
}
