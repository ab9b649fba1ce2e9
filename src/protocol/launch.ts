/**
 * Starting work: what `POST /api/v0/sessions/launch` (a session and its first prompt in one
 * call), `POST /api/sessions` (a session alone), `PATCH /api/sessions/{id}/name` and
 * `DELETE /api/sessions/{id}` send and answer, in one place for client and server. The
 * fields, ranges and values are the real service's documented ones
 * (docs/cloud-api/sessions/launch.mdx, create.mdx, rename.mdx, delete.mdx); the client
 * checks a request against these schemas before anything is sent, the reference service
 * checks what it receives against the same ones.
 *
 * Creating POSTs carry an `Idempotency-Key` (conventions.mdx): the same key within 24 hours
 * is answered with the first answer instead of making a second session.
 */
import { formatCount } from "../text/format.js";
import {
  LAUNCH_AGENTS,
  LAUNCH_MODELS,
  LAUNCH_MODES,
  LAUNCH_TEMPLATES,
  ON_COMPLETE,
  PROMPT_TIMEOUT_MINUTES,
  TTL_MINUTES,
} from "./launchValues.js";
import { MAX_PROMPT_CHARS } from "./prompt.js";
import * as z from "./schema.js";

export {
  LAUNCH_AGENTS,
  LAUNCH_MODELS,
  LAUNCH_MODES,
  LAUNCH_TEMPLATES,
  ON_COMPLETE,
  type OnComplete,
  PROMPT_TIMEOUT_MINUTES,
  TTL_MINUTES,
} from "./launchValues.js";

/** How long the service keeps an Idempotency-Key's first answer. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The longest session name this client sends (the docs give none; a list row shows less). */
export const MAX_SESSION_NAME_CHARS = 200;
/** Launch needs both (launch.mdx): the session is made and its first prompt sent. */
export const LAUNCH_SCOPES = ["sessions:write", "sessions:prompt"] as const;
/** The header that makes a creating POST safe to send again. */
export const IDEMPOTENCY_HEADER = "idempotency-key";

/** owner/repo, as the code hosting service spells a repository's full name. */
const REPO_FULL_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;

const minutes = (r: { min: number; max: number }, what: string) =>
  z
    .int({ error: `${what} must be a whole number of minutes` })
    .check(
      z.gte(r.min, { error: `${what} must be from ${r.min} to ${r.max} minutes` }),
      z.lte(r.max, { error: `${what} must be from ${r.min} to ${r.max} minutes` }),
    );

const oneOf = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z.enum(values, { error: `${what} must be one of ${values.join(", ")}` });

/** The body of `POST /api/v0/sessions/launch`. */
export const LaunchRequestSchema = z.strictObject({
  prompt: z.string().check(
    z.refine((s) => s.trim() !== "", { error: "the prompt is empty" }),
    z.maxLength(MAX_PROMPT_CHARS, {
      error: `the prompt must be at most ${formatCount(MAX_PROMPT_CHARS)} characters`,
    }),
  ),
  agent: z.optional(oneOf(LAUNCH_AGENTS, "agent")),
  template: z.optional(oneOf(LAUNCH_TEMPLATES, "template")),
  model: z.optional(oneOf(LAUNCH_MODELS, "model")),
  mode: z.optional(oneOf(LAUNCH_MODES, "mode")),
  plan_mode: z.optional(z.boolean({ error: "plan_mode must be true or false" })),
  on_complete: z.optional(oneOf(ON_COMPLETE, "on_complete")),
  ttl_minutes: z.optional(minutes(TTL_MINUTES, "ttl_minutes")),
  prompt_timeout_minutes: z.optional(minutes(PROMPT_TIMEOUT_MINUTES, "prompt_timeout_minutes")),
  github_repo: z.optional(
    z.looseObject({
      full_name: z
        .string()
        .check(z.regex(REPO_FULL_NAME, { error: "the repository must be written OWNER/REPO" })),
      size_kb: z.optional(z.int().check(z.gte(0))),
    }),
  ),
});
export type LaunchRequest = z.infer<typeof LaunchRequestSchema>;

/** The launch's documented answer: 201 `{id, state: "creating", message}` (read leniently). */
export const LaunchAnswerSchema = z.looseObject({
  id: z.string(),
  state: z.optional(z.nullable(z.string())),
  message: z.optional(z.nullable(z.string())),
});
export type LaunchAnswer = z.infer<typeof LaunchAnswerSchema>;

/** The body of `POST /api/sessions`. */
export const CreateRequestSchema = z.strictObject({
  agent: z.string().check(z.minLength(1, { error: "agent is required" })),
  template_id: z.optional(z.string().check(z.minLength(1))),
  name: z.optional(sessionNameSchema()),
  visibility: z.optional(oneOf(["private", "team"] as const, "visibility")),
  env_vars: z.optional(z.record(z.string(), z.string())),
});
export type CreateRequest = z.infer<typeof CreateRequestSchema>;

function sessionNameSchema() {
  return z.string().check(
    z.refine((s) => s.trim() !== "", { error: "the name is empty" }),
    z.maxLength(MAX_SESSION_NAME_CHARS, {
      error: `the name must be at most ${MAX_SESSION_NAME_CHARS} characters`,
    }),
  );
}

/** The body of `PATCH /api/sessions/{id}/name`. */
export const RenameRequestSchema = z.strictObject({ name: sessionNameSchema() });

/**
 * Minutes as a user typed them (a flag, a form field): a whole number becomes the number;
 * anything else stays as typed, for the schema to refuse with its own words.
 */
export function typedMinutes(raw: string): number | string {
  const s = raw.trim();
  return /^-?\d{1,9}$/.test(s) ? Number(s) : raw;
}

/** The first problem of a request, said as a field and what is wrong, or null when it is fine. */
export function requestProblem(schema: z.ZodMiniType, body: unknown): string | null {
  const r = schema.safeParse(body);
  if (r.success) return null;
  const issue = r.error.issues[0];
  if (!issue) return "the request is not valid";
  if (issue.code === "unrecognized_keys") return `unknown field ${issue.keys.join(", ")}`;
  const where = issue.path.map(String).join(".");
  // Each message names its field already; a nested one (github_repo.full_name) is named here.
  return where.includes(".") && !issue.message.includes(where)
    ? `${where}: ${issue.message}`
    : issue.message;
}

export const launchProblem = (req: unknown) => requestProblem(LaunchRequestSchema, req);
export const createProblem = (req: unknown) => requestProblem(CreateRequestSchema, req);
export const renameProblem = (name: string) => requestProblem(RenameRequestSchema, { name });

/** What destroying a session loses (delete.mdx), said by every confirmation of it. */
export const DESTROY_LOSES =
  "the sandbox, its files and any work not pushed are lost, and the session cannot be resumed";
