/** The five event names of a session stream. */
export const EVENT_NAMES = [
  "prompt_progress",
  "file_changed",
  "process_output",
  "state_changed",
  "heartbeat",
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

export function isEventName(s: string): s is EventName {
  return (EVENT_NAMES as readonly string[]).includes(s);
}
