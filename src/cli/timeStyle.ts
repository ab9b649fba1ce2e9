import { parseTime } from "../protocol/values.js";
import { formatAgeCoarse } from "../text/format.js";
import { outputIsTerminal } from "./terminalCheck.js";

/**
 * The one time style of headless output for people: on a terminal a time reads as how long
 * ago it was ("5m ago"); with `--absolute-time`, or when the output is not a terminal (a
 * script reads it), as the service's ISO 8601 timestamp. `--json` always keeps those.
 */
export interface TimeStyle {
  relative: boolean;
  now: number;
}

export function timeStyleFor(
  opts: { absoluteTime?: boolean },
  stdout: { isTTY?: boolean } = process.stdout,
  now = Date.now(),
): TimeStyle {
  return { relative: outputIsTerminal(stdout) && opts.absoluteTime !== true, now };
}

/**
 * A time as the style says: how long ago, or the timestamp as the service sent it (the
 * caller writes a time sent as a number in ISO 8601); a value that is not a time as it came.
 */
export function humanTime(text: string, style: TimeStyle): string {
  if (text === "" || !style.relative) return text;
  const t = parseTime(text);
  return t === undefined ? text : formatAgeCoarse(style.now - t);
}

/** The option every command that prints times for people takes. */
export const ABSOLUTE_TIME_OPTION = [
  "--absolute-time",
  "times as ISO 8601 UTC instead of how long ago (the default on a terminal)",
] as const;
