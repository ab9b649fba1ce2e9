/**
 * Session states. The interface shows active and paused and says the complete set is "not
 * shown"; the real service's documentation also uses creating, running, destroying,
 * destroyed and error. The set is open: a state none of these tables names is shown as it
 * was sent (and ranked last).
 */

/**
 * Every state the interface and the real service's documentation name: what the list's
 * `state` filter accepts (`sessions --state`, checked before anything is sent).
 */
export const DOCUMENTED_STATES = [
  "creating",
  "running",
  "active",
  "paused",
  "destroying",
  "destroyed",
  "error",
] as const;

/**
 * The states each lifecycle action applies in (`start` applies in any, so it is absent): the
 * one table the UI's keys and the headless `pause`/`resume` decide by. The real service
 * answers a resume of a running session with a success ("Session is already running"), so
 * the client says so before sending anything.
 */
export const LIFECYCLE_STATES: Readonly<Record<string, readonly string[]>> = {
  pause: ["running", "active"],
  resume: ["paused"],
};

/**
 * Why `action` does not apply to a session in `state`, or null when it does. A state this
 * client does not know (the set is open) or does not know yet is left to the service.
 */
export function stateRefusal(action: string, state: string | null | undefined): string | null {
  const allowed = LIFECYCLE_STATES[action];
  if (allowed === undefined || typeof state !== "string") return null;
  if (!(DOCUMENTED_STATES as readonly string[]).includes(state)) return null;
  if (allowed.includes(state)) return null;
  return `the session is ${state}; ${action} applies to ${allowed.join(" or ")} sessions`;
}

/** States in which a session waits for the user (or has failed): they raise attention. */
export const ATTENTION_STATES: ReadonlySet<string> = new Set(["paused", "error", "destroyed"]);

export function stateNeedsAttention(state: string | null | undefined): boolean {
  return typeof state === "string" && ATTENTION_STATES.has(state);
}

/** Sort rank: live work first, then what waits, then what is gone; unknown states last. */
export const STATE_RANK: Readonly<Record<string, number>> = {
  running: 0,
  active: 0,
  creating: 1,
  paused: 2,
  error: 3,
  destroying: 4,
  destroyed: 5,
};

/**
 * States the real service leaves out of `GET /api/sessions` unless the request says
 * `include_destroyed=true`.
 */
export const HIDDEN_UNLESS_ASKED: ReadonlySet<string> = new Set(["destroyed", "error"]);

export function hiddenUnlessAsked(state: string | null | undefined): boolean {
  return typeof state === "string" && HIDDEN_UNLESS_ASKED.has(state);
}
