import { parseTime } from "../protocol/values.js";
import { formatAgeCoarse } from "../text/format.js";
import { outputIsTerminal } from "./terminalCheck.js";

/**
 * The one time style of headless output for people: on a terminal a time reads as how long
 * ago it was ("5m ago"); with `--absolute-time`, or when the output is not a terminal (a
 * script reads it), as ISO 8601 UTC. `--json` always keeps the service's timestamps.
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

/** A time as the style says; a value that is not a time is returned as it came. */
export function humanTime(text: string, style: TimeStyle): string {
  if (text === "") return text;
  const t = parseTime(text);
  if (t === undefined) return text;
  return style.relative ? formatAgeCoarse(style.now - t) : new Date(t).toISOString();
}

/** The option every command that prints times for people takes. */
export const ABSOLUTE_TIME_OPTION = [
  "--absolute-time",
  "times as ISO 8601 UTC instead of how long ago (the default on a terminal)",
] as const;
