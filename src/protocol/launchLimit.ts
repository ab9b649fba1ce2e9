/**
 * The issue tracker's hourly launch limit: the documented range (1–100) and how a typed value
 * is read. No imports, so the command line's definitions can check `--rate-limit` before
 * anything heavy loads.
 */

export const LAUNCH_LIMIT_MIN = 1;
export const LAUNCH_LIMIT_MAX = 100;

/** A launch limit as typed: the number, or null when it is not a whole number in range. */
export function parseLaunchLimit(raw: string): number | null {
  const s = raw.trim();
  if (!/^\d{1,6}$/.test(s)) return null;
  const n = Number(s);
  return n >= LAUNCH_LIMIT_MIN && n <= LAUNCH_LIMIT_MAX ? n : null;
}

export const LAUNCH_LIMIT_RULE = `a whole number from ${LAUNCH_LIMIT_MIN} to ${LAUNCH_LIMIT_MAX} (launches per hour)`;
