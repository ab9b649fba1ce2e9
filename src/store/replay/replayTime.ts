/**
 * A moment of a recording as a user writes it (`--at`, the jump field):
 *
 * - `start`, `end`, or a share of the way: `50%`;
 * - from the start: `+90s`, `+5m`, `+1h30m`, `+250ms`; from the end: `-30s`;
 * - a clock time on the recording's first day (local time): `10:12`, `10:12:30`;
 * - a full ISO 8601 time, read by the one time parser (UTC unless it names its zone, as the
 *   recording's own times are written): `2024-05-01T10:12:30Z`.
 *
 * The result is clamped to the recording. Null when the text is none of these.
 */

import { parseTime } from "../../protocol/values.js";

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function duration(text: string): number | null {
  const parts = text.match(/\d+(?:\.\d+)?(?:ms|s|m|h)/g);
  if (!parts || parts.join("") !== text) return null;
  let ms = 0;
  for (const p of parts) {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(p);
    if (!m) return null;
    ms += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  }
  return ms;
}

export function parseReplayTime(raw: string, start: number, end: number): number | null {
  const text = raw.trim().toLowerCase();
  const clamp = (t: number) => Math.min(end, Math.max(start, t));
  if (text === "start") return start;
  if (text === "end") return end;
  const pct = /^(\d{1,3}(?:\.\d+)?)%$/.exec(text);
  if (pct) return clamp(start + ((end - start) * Number(pct[1])) / 100);
  if (text.startsWith("+") || text.startsWith("-")) {
    const ms = duration(text.slice(1));
    if (ms === null) return null;
    return clamp(text.startsWith("+") ? start + ms : end - ms);
  }
  const clock = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(text);
  if (clock) {
    const [h, m, s, frac] = [Number(clock[1]), Number(clock[2]), Number(clock[3] ?? 0), clock[4]];
    if (h > 23 || m > 59 || s > 59) return null;
    const d = new Date(start);
    d.setHours(h, m, s, frac ? Number(frac.padEnd(3, "0")) : 0);
    return clamp(d.getTime());
  }
  if (/^\d{4}-\d{2}-\d{2}t/.test(text)) {
    const t = parseTime(text);
    return t === undefined ? null : clamp(t);
  }
  return null;
}

export const REPLAY_TIME_HELP =
  "a time such as 10:12:30, +5m (from the start), -30s (from the end), 50%, start, end or an ISO 8601 time (UTC unless it names its zone)";
