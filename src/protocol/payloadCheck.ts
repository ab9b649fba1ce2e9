/**
 * Hand-written twins of the five payload schemas in events.ts, for the ingest hot path: a zod
 * parse costs more than the JSON.parse before it and copies every payload. The zod schemas stay
 * the documented source of truth; a property test (test/unit/payloadCheck.property.test.ts)
 * holds these checks to accepting exactly what the schemas accept.
 *
 * Each check only answers "would the schema accept this object?"; the object itself is then
 * used as the parsed data (the schemas are loose: unknown keys pass through unchanged).
 */

import type { EventName } from "./eventNames.js";

type Obj = Record<string, unknown>;

const isString = (v: unknown): boolean => typeof v === "string";

function promptProgress(o: Obj): boolean {
  return isString(o.type) && isString(o.content);
}

function fileChanged(o: Obj): boolean {
  return isString(o.path) && isString(o.action);
}

/** Any object: the payload's shape is open (payloadText reads whatever it carries). */
function processOutput(_o: Obj): boolean {
  return true;
}

function stateChanged(o: Obj): boolean {
  const prev = o.previous_state;
  return isString(o.state) && (prev === undefined || prev === null || isString(prev));
}

function heartbeat(o: Obj): boolean {
  return isString(o.timestamp);
}

/**
 * True when the payload schema of `event` accepts `data`: an object (not an array, not null)
 * whose known fields have the schema's types. Fields are read like zod reads them (inherited
 * ones included), so the answer is the same for any value, not only JSON.parse output.
 */
export function payloadAccepted(event: EventName, data: unknown): boolean {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return false;
  const o = data as Obj;
  switch (event) {
    case "process_output":
      return processOutput(o);
    case "prompt_progress":
      return promptProgress(o);
    case "heartbeat":
      return heartbeat(o);
    case "file_changed":
      return fileChanged(o);
    case "state_changed":
      return stateChanged(o);
  }
}
