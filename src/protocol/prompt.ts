/**
 * Prompts and the session lifecycle: what `POST …/sessions/{id}/prompt`, `…/prompt/cancel`,
 * `…/pause`, `…/resume` and `…/start` send and answer, in one place for client and server.
 *
 * The real service documents the prompt's answer as a `text/event-stream` of
 * `{type: text|tool_use|tool_result|error|done, content}` items (with or without `event:`
 * names), `202 {status: "already_running"}` while a prompt runs, and a cancel answered by
 * `{session_id, cancelled}`. Reading is lenient: unknown fields are kept, an item without a
 * `type` takes its event name, and a `content` that is not a string is kept as JSON text.
 */
import { formatCount } from "../text/format.js";
import * as z from "./schema.js";

/** The longest prompt this client sends (characters); longer is refused before sending. */
export const MAX_PROMPT_CHARS = 100_000;

/**
 * One item of a prompt's answer. `type` is open: the service documents text, tool_use,
 * tool_result, error and done; others are shown as sent.
 */
export interface PromptItem {
  type: string;
  content: string;
}

/** The body of `POST …/prompt`. */
export function promptBody(prompt: string): { prompt: string } {
  return { prompt };
}

/** Why a prompt cannot be sent, or null when it can. */
export function promptProblem(prompt: string): string | null {
  if (prompt.trim() === "") return "the prompt is empty";
  if (prompt.length > MAX_PROMPT_CHARS) {
    return `the prompt is ${formatCount(prompt.length)} characters, more than the ${formatCount(MAX_PROMPT_CHARS)} this client sends`;
  }
  return null;
}

function contentText(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === undefined || v === null) return "";
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

/**
 * One SSE item of the answer as a PromptItem. The type is the data's `type`, else the item's
 * event name (when it is not the default "message"), else "text"; data that is not a JSON
 * object is text as it came.
 */
export function readPromptItem(eventName: string | undefined, data: string): PromptItem {
  const named = eventName !== undefined && eventName !== "message" ? eventName : undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return { type: named ?? "text", content: data };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { type: named ?? "text", content: typeof parsed === "string" ? parsed : data };
  }
  const o = parsed as Record<string, unknown>;
  const type = typeof o.type === "string" && o.type !== "" ? o.type : (named ?? "text");
  const content = "content" in o ? contentText(o.content) : contentText(o.text ?? o.message ?? "");
  return { type, content };
}

/** A token that says "already running" in any spelling: already_running, already-running, "Already running". */
function saysAlreadyRunning(v: unknown): boolean {
  return typeof v === "string" && /^already[\s_-]running$/i.test(v.trim());
}

/** Words of an error body that say a prompt already runs ("A prompt is already running"). */
const ALREADY_RUNNING_TEXT = /\b(already[\s_-]running|prompt is (already )?running)\b/i;

/**
 * The one decision whether an answer to `POST …/prompt` says a prompt already runs, so that
 * every form of it is exit 10 (the CLI) and "not sent" (the UI): the documented
 * `202 {status: "already_running"}`, the same body with a 2xx or a 409/423 (a conflict is
 * the documented status of "invalid state for the operation"), the token as `error`, `code`
 * or `detail` (a string, or `detail.error|code|status`, the error shapes the service
 * documents), a 202 `{status: "running"}`, and a 409/423 whose message says it ("A prompt is
 * already running").
 */
export function isAlreadyRunning(status: number, body: unknown): boolean {
  const conflict = status === 409 || status === 423;
  if (!conflict && (status < 200 || status >= 300)) return false;
  if (body === null || typeof body !== "object" || Array.isArray(body)) return false;
  const o = body as Record<string, unknown>;
  const detail =
    o.detail !== null && typeof o.detail === "object" && !Array.isArray(o.detail)
      ? (o.detail as Record<string, unknown>)
      : {};
  const tokens = [o.status, o.error, o.code, o.detail, detail.error, detail.code, detail.status];
  if (tokens.some(saysAlreadyRunning)) return true;
  if (status === 202 && o.status === "running") return true;
  if (!conflict) return false;
  return [o.detail, o.message, o.error, detail.message].some(
    (v) => typeof v === "string" && ALREADY_RUNNING_TEXT.test(v),
  );
}

/**
 * Items carried by a JSON (not streamed) 2xx answer: one `{type, content}` object, as the
 * documentation's example shows, or a list of them. Null when the body is neither.
 */
export function itemsOfJson(body: unknown): PromptItem[] | null {
  const one = (v: unknown): PromptItem | null => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return null;
    const o = v as Record<string, unknown>;
    if (typeof o.type !== "string") return null;
    return { type: o.type, content: contentText(o.content) };
  };
  if (Array.isArray(body)) {
    const items = body.map(one);
    return items.every((i) => i !== null) ? (items as PromptItem[]) : null;
  }
  const single = one(body);
  return single ? [single] : null;
}

/** `POST …/prompt/cancel`: `{session_id, cancelled}`. */
export const CancelAnswerSchema = z.looseObject({
  session_id: z.optional(z.nullable(z.string())),
  cancelled: z.boolean(),
});
export type CancelAnswer = z.infer<typeof CancelAnswerSchema>;

export const LIFECYCLE_ACTIONS = ["pause", "resume", "start"] as const;
export type LifecycleAction = (typeof LIFECYCLE_ACTIONS)[number];

/**
 * `POST …/pause|resume|start`: `{id, paused_at|resumed_at, message}`, and for start
 * `{id, state, preview_url, port, project_type, framework, server_ready, message}`. Every
 * field is optional and unknown ones are kept: the line said is built from what came.
 */
export const LifecycleAnswerSchema = z.looseObject({
  id: z.optional(z.nullable(z.string())),
  state: z.optional(z.nullable(z.string())),
  message: z.optional(z.nullable(z.string())),
  paused_at: z.optional(z.nullable(z.string())),
  resumed_at: z.optional(z.nullable(z.string())),
  preview_url: z.optional(z.nullable(z.string())),
  server_ready: z.optional(z.nullable(z.boolean())),
});
export type LifecycleAnswer = z.infer<typeof LifecycleAnswerSchema>;

/** The past tense of an action, for result lines. */
export function lifecyclePast(action: LifecycleAction): string {
  return action === "pause" ? "paused" : action === "resume" ? "resumed" : "started";
}
