import { type Session, sessionName } from "../../protocol/resources.js";
import { displayId } from "../../store/admitSession.js";
import { type AttentionItem, selectTopItems } from "../../store/attention/attentionStore.js";
import type { AttentionReason } from "../../store/attention/reasons.js";
import { formatAge, sparkline } from "../../text/format.js";
import type { AppServices } from "./services.js";

/**
 * What one row of the fleet table shows: derived from the record (the list refresh), the
 * session's stream when it has one, its activity, the attention queue and the overlaps, and
 * cut to the columns it is drawn in. A row that draws the same keeps its object (however much
 * its stream moved on out of sight), so only rows that look different draw again, and a
 * refresh that changes nothing on screen draws nothing.
 */

/** Column widths of the table (each text column ends in a space that parts it from the next). */
export interface FleetColumns {
  id: number;
  name: number;
  agent: number;
  last: number;
  spark: number;
  files: number;
  step: number;
  /** The columns are wider than the table (a narrow terminal): the row's end is cut off. */
  overflows: boolean;
}

/** The state column: badge glyph and state name. */
export const FLEET_STATE_WIDTH = 12;

/** Column widths for an inner width: what does not fit goes, the step and name share the rest. */
export function fleetColumns(inner: number): FleetColumns {
  const fixed = { mark: 3, stream: 2, state: FLEET_STATE_WIDTH, id: 13, last: 10, spark: 11 };
  const files = 6;
  const agent = inner >= 110 ? 13 : 0;
  const base =
    fixed.mark + fixed.stream + fixed.state + fixed.id + fixed.last + fixed.spark + files;
  const rest = Math.max(0, inner - base - agent);
  const step = inner >= 100 ? Math.floor(rest * 0.55) : 0;
  const name = Math.max(8, rest - step);
  return {
    id: fixed.id,
    name,
    agent,
    last: fixed.last,
    spark: fixed.spark,
    files,
    step,
    overflows: base + agent + name + step > inner,
  };
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
  /** "12s ago", "just now", or "—", as drawn. */
  lastActivity: string;
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

type RowServices = Pick<AppServices, "streams" | "activity" | "attention" | "overlaps">;

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
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
  const updated = Date.parse(str(s.updated_at));
  const last = lastEvent ?? (Number.isFinite(updated) ? updated : null);
  const counts = activity.perMinute(id, now);
  const files = activity.files(id);
  const fileCount = files ? files.size : stream ? 0 : null;
  return {
    id,
    state: stream?.sessionState ?? (str(s.state) || null),
    stream: stream ? stream.status.state : null,
    idText: cutEnd(displayId(s), cols.id),
    name: cutEnd(sessionName(s) ?? "", cols.name),
    agent: cutEnd(str(s.agent), cols.agent),
    lastActivity: cutEnd(last === null ? "—" : formatAge(Math.max(0, now - last)), cols.last),
    spark: cutEnd(counts ? sparkline(counts) : "", cols.spark),
    files: cutEnd(fileCount === null ? "—" : String(fileCount), cols.files),
    step: cutStart(activity.currentStep(id) ?? "", cols.step),
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
