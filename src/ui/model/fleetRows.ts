import { type Session, sessionName } from "../../protocol/resources.js";
import { selectMarkedIds } from "../../store/attention/attentionStore.js";
import { formatAge, sparkline } from "../../text/format.js";
import type { AppServices } from "./services.js";

/**
 * What one row of the fleet table shows, as plain values: derived from the record (the list
 * refresh), the session's stream when it has one, its activity, the attention queue and the
 * overlaps. Rows that read the same keep their object, so only changed rows draw again.
 */

export interface FleetRow {
  id: string;
  name: string;
  agent: string;
  /** The state shown: the stream's latest when it has one, else the record's. */
  state: string | null;
  /** The stream of the row: live, connecting, reconnecting, stopped, or none. */
  stream: "live" | "connecting" | "reconnecting" | "stopped" | null;
  /** "12s ago", "just now", or "—". */
  lastActivity: string;
  /** Events per minute over the last ten minutes, or "" without a stream. */
  spark: string;
  /** Distinct paths changed, or null when unknown (no stream). */
  files: number | null;
  /** The newest line of prompt text, or "". */
  step: string;
  attention: boolean;
  overlap: boolean;
}

type RowServices = Pick<AppServices, "streams" | "activity" | "attention" | "overlaps">;

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

export function fleetRow(services: RowServices, s: Session, now: number): FleetRow {
  const id = s.session_id;
  const stream = services.streams.getState().sessions[id];
  const activity = services.activity;
  const lastEvent = activity.lastEventAt(id);
  const updated = Date.parse(str(s.updated_at));
  const last = lastEvent ?? (Number.isFinite(updated) ? updated : null);
  const counts = activity.perMinute(id, now);
  const files = activity.files(id);
  return {
    id,
    name: sessionName(s) ?? "",
    agent: str(s.agent),
    state: stream?.sessionState ?? (str(s.state) || null),
    stream: stream ? stream.status.state : null,
    lastActivity: last === null ? "—" : formatAge(Math.max(0, now - last)),
    spark: counts ? sparkline(counts) : "",
    files: files ? files.size : stream ? 0 : null,
    step: activity.currentStep(id) ?? "",
    attention: selectMarkedIds(services.attention.getState()).has(id),
    overlap: (services.overlaps.getState().bySession.get(id)?.length ?? 0) > 0,
  };
}

function same(a: FleetRow, b: FleetRow): boolean {
  for (const k of Object.keys(a) as (keyof FleetRow)[]) if (a[k] !== b[k]) return false;
  return true;
}

/**
 * The rows in view, reusing the previous objects of rows that did not change (and the
 * previous array when none did).
 */
export function fleetRows(
  services: RowServices,
  shown: readonly Session[],
  now: number,
  prev: readonly FleetRow[],
): readonly FleetRow[] {
  const before = new Map(prev.map((r) => [r.id, r]));
  let changed = shown.length !== prev.length;
  const out = shown.map((s, i) => {
    const row = fleetRow(services, s, now);
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
