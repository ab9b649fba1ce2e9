import { type Session, sessionName } from "../../protocol/resources.js";
import {
  formatUsd,
  lastActivityAt,
  promptCount,
  sessionRepo,
  totalCostUsd,
  updatedAt,
} from "../../protocol/sessionRecord.js";
import { textOrEmpty } from "../../protocol/values.js";
import { displayId } from "../../store/admitSession.js";
import { type AttentionItem, selectTopItems } from "../../store/attention/queue.js";
import type { AttentionReason } from "../../store/attention/reasons.js";
import { formatAge, formatAgeCoarse, sparkline } from "../../text/format.js";
import type { AppServices } from "./services.js";

/**
 * What one row of the fleet table shows: derived from the record (the list refresh), the
 * session's stream when it has one, its activity, the attention queue and the overlaps, and
 * cut to the columns it is drawn in. A row that draws the same keeps its object (however much
 * its stream moved on out of sight), so only rows that look different draw again, and a
 * refresh that changes nothing on screen draws nothing.
 */

/**
 * Most often the fleet's rows take in what the streams brought (its beat): a change waits up
 * to this long to be drawn.
 */
export const FLEET_REFRESH_MS = 100;

/** Column widths of the table (each text column ends in a space that parts it from the next). */
export interface FleetColumns {
  id: number;
  name: number;
  agent: number;
  /** The repository (github_repo, else repo); 0 when the table is too narrow for it. */
  repo: number;
  last: number;
  /** Prompts and cost ("12 · $0.42"); 0 when the table is too narrow for it. */
  usage: number;
  spark: number;
  files: number;
  step: number;
  /** The columns are wider than the table (a narrow terminal): the row's end is cut off. */
  overflows: boolean;
}

/** The state column: badge glyph and state name. */
export const FLEET_STATE_WIDTH = 12;

/**
 * Column widths for an inner width: what does not fit goes (the agent below 110 columns, the
 * repository below 125, prompts and cost below 145), the step and name share the rest.
 */
export function fleetColumns(inner: number): FleetColumns {
  const fixed = { mark: 3, stream: 2, state: FLEET_STATE_WIDTH, id: 13, last: 10, spark: 11 };
  const files = 6;
  const agent = inner >= 110 ? 13 : 0;
  const repo = inner >= 125 ? 17 : 0;
  const usage = inner >= 145 ? 14 : 0;
  const base =
    fixed.mark + fixed.stream + fixed.state + fixed.id + fixed.last + fixed.spark + files;
  const extra = agent + repo + usage;
  const rest = Math.max(0, inner - base - extra);
  const step = inner >= 100 ? Math.floor(rest * 0.55) : 0;
  const name = Math.max(8, rest - step);
  return {
    id: fixed.id,
    name,
    agent,
    repo,
    last: fixed.last,
    usage,
    spark: fixed.spark,
    files,
    step,
    overflows: base + extra + name + step > inner,
  };
}

/** "12 · $0.42", "12 prompts", "$0.42" or "" from what the record says. */
export function usageText(s: Session): string {
  const n = promptCount(s);
  const usd = totalCostUsd(s);
  return [n === null ? "" : String(n), usd === null ? "" : formatUsd(usd)]
    .filter(Boolean)
    .join(" · ");
}

/** Text in a column of `width`: its start, cut with "…" when longer, padded to the width. */
export function cutEnd(text: string, width: number): string {
  if (width <= 0) return "";
  return text.length > width - 1
    ? `${text.slice(0, Math.max(0, width - 2))}… `
    : text.padEnd(width);
}

/**
 * Text in the last column: its end when longer (the step is the sentence being written, and
 * what it writes next is at its end), not padded.
 */
export function cutStart(text: string, width: number): string {
  if (width <= 1) return "";
  return text.length > width - 1 ? `…${text.slice(text.length - (width - 2))}` : text;
}

export interface FleetRow {
  id: string;
  /** The state shown: the stream's latest when it has one, else the record's. */
  state: string | null;
  /** The stream of the row: live, connecting, reconnecting, stopped, or none. */
  stream: "live" | "connecting" | "reconnecting" | "stopped" | null;
  /** The id, name and agent as drawn. */
  idText: string;
  name: string;
  agent: string;
  /** The repository, as drawn ("" when the column is not shown). */
  repo: string;
  /**
   * "12s ago", "just now", or "—", as drawn: the newest of the stream's last event and the
   * record's last_activity_at, else its updated_at.
   */
  lastActivity: string;
  /** Prompts and cost, as drawn ("" when the column is not shown). */
  usage: string;
  /** Events per minute over the last ten minutes ("" without a stream), as drawn. */
  spark: string;
  /** Distinct paths changed ("—" when unknown: no stream), as drawn. */
  files: string;
  /** The newest line of prompt text, as drawn (its end when it is longer than the column). */
  step: string;
  /** The reason of the session's most pressing attention item, if any (its glyph is the mark). */
  attention: AttentionReason | null;
  /** That item calls (notifies, not yet seen): drawn loud; else dimmed. */
  attentionLoud: boolean;
  overlap: boolean;
}

/**
 * The fleet's activity age: to the second within the first minute (a live table), whole
 * minutes after ("6m ago", not "6m 48s a…" cut by its column).
 */
function fleetAge(ms: number): string {
  return ms < 60_000 ? formatAge(ms) : formatAgeCoarse(ms);
}

type RowServices = Pick<AppServices, "streams" | "activity" | "attention" | "overlaps" | "secrets">;

/**
 * The current step as drawn: the end of the prompt text joined (fragments and lines
 * together), masked whole before it is cut, so a key sent a few characters a fragment is
 * masked in it.
 */
function stepOf(services: RowServices, id: string): string {
  const step = services.activity.currentStep(id) ?? "";
  return services.secrets ? services.secrets.mask(step) : step;
}

export function fleetRow(
  services: RowServices,
  s: Session,
  now: number,
  cols: FleetColumns,
  marks: ReadonlyMap<string, AttentionItem>,
): FleetRow {
  const mark = marks.get(s.session_id);
  const id = s.session_id;
  const stream = services.streams.getState().sessions[id];
  const activity = services.activity;
  const lastEvent = activity.lastEventAt(id);
  const recorded = lastActivityAt(s);
  const last =
    lastEvent !== null || recorded !== null
      ? Math.max(lastEvent ?? 0, recorded ?? 0)
      : updatedAt(s);
  // `now` is the shared tick's (up to a second old): an event that came since, in a minute
  // the tick has not reached, is still this row's newest minute, not one left out.
  const counts = activity.perMinute(id, Math.max(now, lastEvent ?? 0));
  const files = activity.files(id);
  const fileCount = files ? files.size : stream ? 0 : null;
  return {
    id,
    state: stream?.sessionState ?? (textOrEmpty(s.state) || null),
    stream: stream ? stream.status.state : null,
    idText: cutEnd(displayId(s), cols.id),
    name: cutEnd(sessionName(s) ?? "", cols.name),
    agent: cutEnd(textOrEmpty(s.agent), cols.agent),
    repo: cutEnd(cols.repo > 0 ? (sessionRepo(s) ?? "—") : "", cols.repo),
    lastActivity: cutEnd(last === null ? "—" : fleetAge(Math.max(0, now - last)), cols.last),
    usage: cutEnd(cols.usage > 0 ? usageText(s) || "—" : "", cols.usage),
    spark: cutEnd(counts ? sparkline(counts) : "", cols.spark),
    files: cutEnd(fileCount === null ? "—" : String(fileCount), cols.files),
    step: cutStart(stepOf(services, id), cols.step),
    attention: mark?.reason ?? null,
    attentionLoud: mark?.notify === true && !mark.seen,
    overlap: (services.overlaps.getState().bySession.get(id)?.length ?? 0) > 0,
  };
}

function same(a: FleetRow, b: FleetRow): boolean {
  for (const k of Object.keys(a) as (keyof FleetRow)[]) if (a[k] !== b[k]) return false;
  return true;
}

/**
 * The rows in view, reusing the previous objects of rows that draw the same (and the previous
 * array when none changed).
 */
export function fleetRows(
  services: RowServices,
  shown: readonly Session[],
  now: number,
  cols: FleetColumns,
  prev: readonly FleetRow[],
): readonly FleetRow[] {
  const before = new Map(prev.map((r) => [r.id, r]));
  const marked = selectTopItems(services.attention.getState());
  let changed = shown.length !== prev.length;
  const out = shown.map((s, i) => {
    const row = fleetRow(services, s, now, cols, marked);
    const old = before.get(row.id);
    if (old && same(old, row)) {
      if (prev[i] !== old) changed = true;
      return old;
    }
    changed = true;
    return row;
  });
  return changed ? out : prev;
}
