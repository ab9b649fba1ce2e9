/** Small, pure formatters shared by the UI and the headless commands. */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * A duration at a glance: "12d", "2d 5h", "3h 2m", "4m 10s", "45s". At most two units; the
 * second is dropped where it stops mattering (a week or more, ten minutes or more).
 * Sub-second durations read "0s". Negative durations are formatted by magnitude.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return "∞";
  const abs = Math.abs(ms);
  const d = Math.floor(abs / DAY);
  const h = Math.floor((abs % DAY) / HOUR);
  const m = Math.floor((abs % HOUR) / MINUTE);
  const s = Math.floor((abs % MINUTE) / SECOND);
  if (d > 0) return d < 7 && h > 0 ? `${d}d ${h}h` : `${d}d`;
  if (h > 0) return m > 0 ? `${h}h ${m}m` : `${h}h`;
  if (m > 0) return m < 10 && s > 0 ? `${m}m ${s}s` : `${m}m`;
  return `${s}s`;
}

/**
 * A wait or a timeout in a message: "150 ms", "2.5 s", "45 s", "2m 30s", "11574d". The one format of
 * retry waits, reconnect delays, timeouts and watchdog bounds (the countdown of a wait in
 * progress is formatCountdown's).
 */
export function formatSeconds(ms: number): string {
  if (ms < SECOND) return `${Math.round(ms)} ms`;
  const s = ms / SECOND;
  if (s >= 100) return formatDuration(ms);
  if (s >= 10) return `${Math.round(s)} s`;
  return `${Number.parseFloat(s.toFixed(1))} s`;
}

/** Time left before something happens ("reconnecting in 3s"): rounds up, so it never reads 0s early. */
export function formatCountdown(ms: number): string {
  if (ms <= 0) return "0s";
  return formatDuration(Math.ceil(ms / SECOND) * SECOND);
}

/** Elapsed time of a running action: tenths under a minute ("1.2s"), then formatDuration. */
export function formatElapsed(ms: number): string {
  const abs = Math.max(0, ms);
  if (abs < MINUTE) return `${(Math.floor(abs / 100) / 10).toFixed(1)}s`;
  return formatDuration(abs);
}

export type ExpiryLevel = "none" | "ok" | "warn" | "expired" | "unknown";

export interface ExpiryStatus {
  /** "never expires", "expires in 12d", "expired 2h ago", "expiry unknown". */
  text: string;
  level: ExpiryLevel;
  /** ms until expiry (negative once expired); null when there is no (valid) expiry. */
  remainingMs: number | null;
}

/** Within this much of its expiry a key is shown with a warning. */
export const EXPIRY_WARNING_MS = 7 * DAY;

/**
 * Relative expiry of a key, given when it expires (ms since the epoch, `keyExpiresAt` in
 * src/protocol/resources.ts): null when it never does, undefined when the service's value
 * could not be read.
 */
export function expiryStatus(
  at: number | null | undefined,
  now: number = Date.now(),
): ExpiryStatus {
  if (at === null) return { text: "never expires", level: "none", remainingMs: null };
  if (at === undefined || !Number.isFinite(at)) {
    return { text: "expiry unknown", level: "unknown", remainingMs: null };
  }
  const remainingMs = at - now;
  if (remainingMs <= 0) {
    return { text: `expired ${formatDuration(-remainingMs)} ago`, level: "expired", remainingMs };
  }
  return {
    text: `expires in ${formatDuration(remainingMs)}`,
    level: remainingMs <= EXPIRY_WARNING_MS ? "warn" : "ok",
    remainingMs,
  };
}

/** Shorthand for expiryStatus(...).text. */
export function formatExpiry(at: number | null | undefined, now: number = Date.now()): string {
  return expiryStatus(at, now).text;
}

/** Events per second: "140 ev/s", "2.5 ev/s", "1.2k ev/s", "0 ev/s". */
export function formatRate(perSecond: number, unit = "ev/s"): string {
  if (!Number.isFinite(perSecond) || perSecond <= 0) return `0 ${unit}`;
  if (perSecond >= 10_000) return `${Math.round(perSecond / 1000)}k ${unit}`;
  if (perSecond >= 1000) return `${(perSecond / 1000).toFixed(1)}k ${unit}`;
  if (perSecond >= 10) return `${Math.round(perSecond)} ${unit}`;
  const tenths = Math.round(perSecond * 10) / 10;
  return `${tenths === 0 ? "<0.1" : tenths} ${unit}`;
}

/**
 * A count with its thousands grouped, as "en-US" writes it: "2,000", "-12,345". Rounded to a
 * whole number. Written out rather than `toLocaleString("en-US")`: the first number formatting
 * of a process initializes ICU's (about 9 ms), and the UI's start shows counts.
 */
export function formatCount(n: number): string {
  const whole = Math.round(n);
  if (!Number.isFinite(whole) || Math.abs(whole) >= 1e21) return String(whole);
  const digits = String(Math.abs(whole));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return whole < 0 ? `-${out}` : out;
}

/**
 * At most `max` code points, the last one an ellipsis when cut. Counts code points, not
 * UTF-16 units, so an emoji is never split in half.
 */
export function truncate(text: string, max: number, ellipsis = "…"): string {
  if (max <= 0) return "";
  // Fast path: UTF-16 length is an upper bound on code points.
  if (text.length <= max) return text;
  const points = Array.from(text);
  if (points.length <= max) return text;
  const ell = Array.from(ellipsis);
  if (ell.length >= max) return ell.slice(0, max).join("");
  return points.slice(0, max - ell.length).join("") + ellipsis;
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** HH:MM:SS of a time (ms since epoch), local time unless `utc`. */
export function formatTime(ms: number, opts?: { utc?: boolean }): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return "--:--:--";
  return opts?.utc
    ? `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`
    : `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}

/**
 * The marker for a stretch of a stream that may have lost events (a reconnect on a stream
 * without event ids): the same words in the pane and in `watch`.
 */
export function gapNotice(from: number, to: number, opts?: { utc?: boolean }): string {
  return `${GAP_NOTICE_START} ${formatTime(from, opts)} and ${formatTime(to, opts)} may be missing`;
}

/** How every gap marker starts, so a display can set it apart from other notices. */
export const GAP_NOTICE_START = "reconnected — events between";

/** Rate-limit figures as a client last read them (X-RateLimit-Limit, -Remaining, -Reset). */
export interface RateFigures {
  remaining: number | null;
  limit: number | null;
  /** Seconds until the window resets, as of observedAt. */
  resetSeconds: number | null;
  observedAt: number;
}

/** "97/100 left, resets in 41 s"; parts the server did not send are left out. */
/**
 * `coarse` (the UI's header, redrawn with the clock): while more than a tenth of the allowance
 * is left, the reset is told in steps of 10 s ("resets in ~50 s", never sooner than it is),
 * so an idle screen is not redrawn every second for it; near the limit, to the second.
 */
export function formatRateLimit(
  r: RateFigures,
  now: number = Date.now(),
  opts: { coarse?: boolean } = {},
): string {
  const left =
    r.remaining !== null
      ? `${r.remaining}${r.limit !== null ? `/${r.limit}` : ""} left`
      : r.limit !== null
        ? `limit ${r.limit}`
        : "no figures";
  if (r.resetSeconds === null) return left;
  // A clock behind the observation (a fixed test clock, a skewed one) counts as no time passed.
  const elapsed = Math.max(0, now - r.observedAt);
  const inS = Math.max(0, Math.ceil(r.resetSeconds - elapsed / 1000));
  const plenty = r.remaining !== null && r.limit !== null && r.remaining > r.limit / 10;
  if (opts.coarse && plenty && inS > 10) return `${left}, resets in ~${Math.ceil(inS / 10) * 10} s`;
  return `${left}, resets in ${inS} s`;
}

/** 1536 → "1.5 KB". */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 1024) return `${Math.max(0, Math.round(n || 0))} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

/**
 * An API key as it may be shown: its kind prefix and the last four characters, e.g.
 * "ask_…9f3a" or "runtm_sk_live_…9f3a". The prefix is up to three leading letter-only
 * segments that each end in "_" (so "runtm_sk_live_" but never part of the secret), kept
 * only while at least eight characters stay hidden; without one, the first four characters.
 * Keys under 12 characters show only the last two ("…3a"), and keys under 6 show nothing of
 * themselves ("****"): too little would be hidden otherwise. Never the whole key.
 */
export function maskKey(key: string): string {
  const k = key.trim();
  if (k.length < 6) return "****";
  if (k.length < 12) return `…${k.slice(-2)}`;
  const segments = /^(?:[A-Za-z]{1,8}_){1,3}/.exec(k)?.[0] ?? "";
  let prefix = segments;
  // Shorten to fewer segments until enough of the key stays hidden.
  while (prefix !== "" && k.length - prefix.length - 4 < 8) {
    prefix = prefix.slice(0, prefix.slice(0, -1).lastIndexOf("_") + 1);
  }
  if (prefix === "") prefix = k.slice(0, 4);
  return `${prefix}…${k.slice(-4)}`;
}

function dayOf(d: Date): string {
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`;
}

/**
 * A stretch of local time as short as it can be read: "10:12 to 14:30"; with seconds when
 * both fall in one minute; with the date when it spans days ("2024-03-01 10:12 to
 * 2024-03-02 09:05").
 */
export function formatTimeSpan(from: number, to: number): string {
  const a = new Date(from);
  const b = new Date(to);
  if (Number.isNaN(a.getTime()) || Number.isNaN(b.getTime())) return "an unknown time";
  const hm = (d: Date) => `${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
  if (dayOf(a) !== dayOf(b)) return `${dayOf(a)} ${hm(a)} to ${dayOf(b)} ${hm(b)}`;
  if (hm(a) === hm(b)) return `${formatTime(from)} to ${formatTime(to)}`;
  return `${hm(a)} to ${hm(b)}`;
}

/** How long ago something happened: "just now" under a second, else "4s ago", "2m 5s ago". */
export function formatAge(ms: number): string {
  if (!Number.isFinite(ms) || ms < SECOND) return "just now";
  return `${formatDuration(ms)} ago`;
}

/**
 * formatAge for a text redrawn with the clock that needs no second-by-second precision:
 * "just now" under 5 s, then steps of 5 s ("15s ago"), whole minutes from one minute on
 * ("3m ago"), so an idle screen changes every few seconds instead of every second.
 */
export function formatAgeCoarse(ms: number): string {
  if (!Number.isFinite(ms) || ms < 5 * SECOND) return "just now";
  if (ms < 60 * SECOND) return `${Math.floor(ms / (5 * SECOND)) * 5}s ago`;
  return `${formatDuration(Math.floor(ms / (60 * SECOND)) * 60 * SECOND)} ago`;
}

const SPARK = "▁▂▃▄▅▆▇█";

/**
 * A sparkline of counts, one character each: "·" for none, else a block scaled to the
 * largest count (so a quiet session's busiest minute still shows as a full block).
 */
export function sparkline(counts: readonly number[]): string {
  const max = Math.max(0, ...counts);
  let out = "";
  for (const n of counts) {
    if (n <= 0 || max <= 0) out += "·";
    else out += SPARK[Math.min(SPARK.length - 1, Math.ceil((n / max) * SPARK.length) - 1)];
  }
  return out;
}
