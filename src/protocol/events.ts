import { isEventName } from "./eventNames.js";
import { payloadAccepted } from "./payloadCheck.js";
import * as z from "./schema.js";
import { parseTime } from "./values.js";

export const PromptProgressSchema = z.looseObject({ type: z.string(), content: z.string() });
export const FileChangedSchema = z.looseObject({ path: z.string(), action: z.string() });
/**
 * Payload "not shown": any JSON object, kept as sent. Real servers carry the text in one of
 * several fields (text, content, data, …) and the stream as `stream` or `fd`; payloadText in
 * src/text/payloadText.ts is the one reading of it.
 */
export const ProcessOutputSchema = z.looseObject({});
export const StateChangedSchema = z.looseObject({
  state: z.string(),
  previous_state: z.optional(z.nullable(z.string())),
});
export const HeartbeatSchema = z.looseObject({ timestamp: z.string() });

export type PromptProgress = z.infer<typeof PromptProgressSchema>;
export type FileChanged = z.infer<typeof FileChangedSchema>;
export type ProcessOutput = z.infer<typeof ProcessOutputSchema>;
export type StateChanged = z.infer<typeof StateChangedSchema>;
export type Heartbeat = z.infer<typeof HeartbeatSchema>;

const PAYLOAD_SCHEMAS = {
  prompt_progress: PromptProgressSchema,
  file_changed: FileChangedSchema,
  process_output: ProcessOutputSchema,
  state_changed: StateChangedSchema,
  heartbeat: HeartbeatSchema,
} as const;

interface EventBase {
  /** SSE id of the item, when the server sent one. */
  id: string | null;
}

export type SessionEvent =
  | (EventBase & { kind: "prompt_progress"; data: PromptProgress })
  | (EventBase & { kind: "file_changed"; data: FileChanged })
  | (EventBase & { kind: "process_output"; data: ProcessOutput })
  | (EventBase & { kind: "state_changed"; data: StateChanged })
  | (EventBase & { kind: "heartbeat"; data: Heartbeat })
  /** An event name the interface does not list: delivered as such, never dropped. */
  | (EventBase & { kind: "unknown"; event: string; data: unknown })
  /** data that is not JSON, or JSON of the wrong shape: shown with its (cut) raw text. */
  | (EventBase & { kind: "malformed"; event: string; raw: string; error: string });

/** How much raw text a malformed item keeps. */
export const MALFORMED_RAW_LIMIT = 2048;

/**
 * When the service says an event happened: its payload's `ts` or `timestamp`, read by the one
 * time parser; undefined when the payload carries none.
 */
export function payloadTime(data: unknown): number | undefined {
  if (data === null || typeof data !== "object") return undefined;
  const o = data as Record<string, unknown>;
  return parseTime(o.ts ?? o.timestamp);
}

function cut(raw: string): string {
  return raw.length > MALFORMED_RAW_LIMIT ? `${raw.slice(0, MALFORMED_RAW_LIMIT)}…` : raw;
}

function malformed(event: string, id: string | null, rawData: string, error: string): SessionEvent {
  return { kind: "malformed", event, id, raw: cut(rawData), error };
}

/**
 * One SSE item (event name, data text, id) to a typed event. Never throws: bad data becomes a
 * `malformed` item so the stream can go on and the user can see what arrived.
 *
 * The payload is checked by payloadAccepted (the schemas' hand-written twins) and then used as
 * is; zod runs only for what the fast check refuses, to word the error, and for the odd object
 * with an own `__proto__` key, which zod's copy treats specially.
 */
export function decodeEvent(
  eventName: string | undefined,
  rawData: string,
  id: string | undefined,
): SessionEvent {
  const event = eventName === undefined || eventName === "" ? "message" : eventName;
  const evId = id === undefined || id === "" ? null : id;
  let json: unknown;
  try {
    json = JSON.parse(rawData);
  } catch (e) {
    return malformed(event, evId, rawData, `data is not JSON (${(e as Error).message})`);
  }
  if (!isEventName(event)) return { kind: "unknown", event, id: evId, data: json };
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    return malformed(event, evId, rawData, "data is not a JSON object");
  }
  if (payloadAccepted(event, json) && !Object.hasOwn(json, "__proto__")) {
    return { kind: event, id: evId, data: json } as SessionEvent;
  }
  const parsed = PAYLOAD_SCHEMAS[event].safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") || "data";
    return malformed(event, evId, rawData, `${event}: ${where}: ${issue?.message ?? "invalid"}`);
  }
  return { kind: event, id: evId, data: parsed.data } as SessionEvent;
}
