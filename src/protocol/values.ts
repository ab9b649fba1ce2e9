/**
 * Lenient readers of one value a server sent: text, a number, a moment. Every time the
 * client reads (record fields, event payloads, history entries, key expiry, rate-limit
 * resets, a time the user types in ISO form) goes through `parseTime`, so the list, the
 * fleet, the attention queue, the panes and the headless commands never disagree on one.
 */

/** A JSON object (not null, not an array), to read its fields; null otherwise. */
export function recordValue(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === "object" && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : null;
}

/** The JSON object a text holds (it starts with `{`); null for any other text. */
export function recordInText(text: string): Record<string, unknown> | null {
  if (!text.startsWith("{")) return null;
  try {
    return recordValue(JSON.parse(text));
  } catch {
    return null;
  }
}

/** A non-empty string, trimmed; null otherwise. */
export function textValue(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const t = v.trim();
  return t === "" ? null : t;
}

/** A string value as sent, "" for anything else (a field drawn as text whatever came). */
export function textOrEmpty(v: unknown): string {
  return typeof v === "string" ? v : "";
}

const NUMERIC = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** A finite number, from a number or a numeric string; null otherwise. */
export function numberValue(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "string" && NUMERIC.test(v)) {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** Below this an epoch number counts seconds, from it milliseconds (2001-09-09 in ms). */
export const EPOCH_MS_FROM = 1e12;

/** The largest moment a JavaScript Date holds, either side of the epoch. */
const MAX_MS = 8.64e15;

// date, then optionally a time (T, t or a space), then optionally a zone (Z or ±hh[:mm]).
const ISO =
  /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] as number);
}

function isoTime(text: string): number | undefined {
  const m = ISO.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m;
  if (y === "-000000") return undefined;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = h === undefined ? 0 : Number(h);
  const minute = mi === undefined ? 0 : Number(mi);
  const second = s === undefined ? 0 : Number(s);
  const ms = frac === undefined ? 0 : Number(frac.slice(0, 3).padEnd(3, "0"));
  const offH = oh === undefined ? 0 : Number(oh);
  const offM = om === undefined ? 0 : Number(om);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offH > 23 || offM > 59) return undefined;
  let t = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // Date.UTC reads years 0 to 99 as 1900 to 1999.
  if (year >= 0 && year < 100) t = new Date(t).setUTCFullYear(year);
  if (z === undefined && sign !== undefined) {
    t -= (sign === "-" ? -1 : 1) * (offH * 60 + offM) * 60_000;
  }
  return Number.isFinite(t) && Math.abs(t) <= MAX_MS ? t : undefined;
}

/**
 * The one time parser: a moment in ms since the epoch, or undefined when `v` is none (never
 * NaN). It reads
 * - ISO 8601 / RFC 3339 text: a date (`2030-01-01`), optionally a time (`T`, `t` or a space,
 *   then `hh:mm`, `hh:mm:ss` or with a fraction), optionally a zone (`Z`, `+02:00`, `+0200`,
 *   `+02`). Without a zone the time is UTC, as a service's clock is, never the reader's local
 *   time. A date or time that does not exist (30 February, 24:00) is none;
 * - an epoch number, or a string holding only one (`"1767225600"`): seconds below 10¹²,
 *   milliseconds from it (10¹² s would be the year 33658; 10¹² ms is 2001). Zero and
 *   negative numbers are none: services send them for "never".
 * Any other text (an HTTP-date, "yesterday") is none.
 */
export function parseTime(v: unknown): number | undefined {
  const n = numberValue(v);
  if (n !== null) {
    if (n <= 0) return undefined;
    const ms = Math.floor(n < EPOCH_MS_FROM ? n * 1000 : n);
    return ms <= MAX_MS ? ms : undefined;
  }
  const t = textValue(v);
  return t === null ? undefined : isoTime(t);
}
