import type { Command } from "commander";
import type { ApiClient } from "../../client/apiClient.js";
import {
  EXIT,
  HttpError,
  MalformedResponseError,
  NetworkError,
  UsageError,
} from "../../client/errors.js";
import { newIdempotencyKey } from "../../client/idempotency.js";
import { cancellableDelay } from "../../client/signals.js";
import { unsafeIdReason } from "../../protocol/ids.js";
import {
  type LaunchRequest,
  launchProblem,
  renameProblem,
  typedMinutes,
} from "../../protocol/launch.js";
import { type FirstPromptEnd, firstPromptEnd } from "../../store/launch/firstPrompt.js";
import { sanitizeRecord } from "../../store/sanitizeRecord.js";
import { cutText, sanitizeLine } from "../../text/sanitize.js";
import { type CommandContext, commandContext } from "../context.js";
import { err, fail, out, printJson, reportError } from "../output.js";
import { readStdin } from "./prompt.js";
import { watchSessions } from "./watch.js";

/** How often `new --follow` reads the session's record for its first prompt's end. */
const FOLLOW_POLL_MS = 2_000;
/** After the end is read, events still on their way are printed before the command ends. */
const FOLLOW_GRACE_MS = 300;

/** What `new` takes, as typed: checked against the launch's schema before anything is sent. */
export interface NewOptions {
  repo?: string;
  agent?: string;
  model?: string;
  template?: string;
  plan?: boolean;
  mode?: string;
  onComplete?: string;
  ttl?: string;
  promptTimeout?: string;
  name?: string;
  follow?: boolean;
  json?: boolean;
}

/** The launch as the options ask for it: only what was given is sent. */
function launchRequestOf(prompt: string, o: NewOptions): LaunchRequest {
  const req: Record<string, unknown> = { prompt };
  if (o.agent !== undefined) req.agent = o.agent;
  if (o.model !== undefined) req.model = o.model;
  if (o.template !== undefined) req.template = o.template;
  if (o.mode !== undefined) req.mode = o.mode;
  if (o.plan === true) req.plan_mode = true;
  if (o.onComplete !== undefined) req.on_complete = o.onComplete;
  if (o.ttl !== undefined) req.ttl_minutes = typedMinutes(o.ttl);
  if (o.promptTimeout !== undefined) req.prompt_timeout_minutes = typedMinutes(o.promptTimeout);
  if (o.repo !== undefined) req.github_repo = { full_name: o.repo };
  return req as LaunchRequest;
}

/**
 * `new`: launches a session with its first prompt (one Idempotency-Key for this run: a lost
 * answer is asked again with it, never a second launch) and prints its id, or the answer as
 * JSON. --name renames it once launched. --follow streams it as watch does until its first
 * prompt ends, exiting as prompt does: 0 completed, 8 error or timed out (or the session
 * ended first). Bad values exit 2 with nothing sent.
 */
export async function runNew(
  cmd: Command,
  promptArg: string | undefined,
  opts: NewOptions,
): Promise<void> {
  let client: ApiClient | null = null;
  try {
    const prompt = promptArg === undefined || promptArg === "-" ? await readStdin() : promptArg;
    const req = launchRequestOf(prompt, opts);
    const bad = launchProblem(req) ?? (opts.name !== undefined ? renameProblem(opts.name) : null);
    if (bad !== null) {
      throw new UsageError(
        `Cannot launch: ${bad}.`,
        "agent-sessions new --help lists each option and its values.",
      );
    }
    const ctx = await commandContext(cmd);
    client = ctx.client;
    const answer = await launchOnce(ctx.client, req);
    let name: string | null = null;
    if (opts.name !== undefined) {
      try {
        const renamed = await ctx.client.renameSession(answer.id, opts.name);
        name = typeof renamed.name === "string" ? renamed.name : opts.name;
      } catch (e) {
        err(`warning: launched ${answer.id}, but could not name it: ${(e as Error).message}`);
      }
    }
    if (opts.json) {
      printJson(
        sanitizeRecord({
          id: answer.id,
          state: answer.state ?? null,
          message: answer.message ?? null,
          ...(name !== null ? { name } : {}),
        }),
      );
    } else out(answer.id);
    if (opts.follow) process.exitCode = await follow(ctx, answer.id, opts.json === true);
  } catch (e) {
    fail(e, launchMayHaveHappened(e) ? LOST_ANSWER_HINT : null);
  } finally {
    await client?.close();
  }
}

const LOST_ANSWER_HINT =
  "The launch may have reached the service although its answer did not come back: agent-sessions sessions shows whether it made the session before you launch again.";

/** A failure after which the launch may still have been made (its answer was lost). */
function launchMayHaveHappened(e: unknown): boolean {
  return e instanceof NetworkError || (e instanceof HttpError && e.status >= 500);
}

/** The launch, its id checked before it is printed or goes into a path. */
async function launchOnce(client: ApiClient, req: LaunchRequest) {
  const answer = await client.launch(req, { idempotencyKey: newIdempotencyKey() });
  const bad = unsafeIdReason(answer.id);
  if (bad !== null) {
    throw new MalformedResponseError(
      `The launch answered a session id that cannot be used (${bad}); the session may exist: agent-sessions sessions lists them.`,
    );
  }
  return answer;
}

/** Streams the session until its first prompt ends; the exit code as prompt's. */
async function follow(ctx: CommandContext, id: string, json: boolean): Promise<number> {
  const stop = new AbortController();
  const end = firstPromptEnd(ctx.client, id, { intervalMs: FOLLOW_POLL_MS, signal: stop.signal })
    .then(async (r) => {
      await cancellableDelay(FOLLOW_GRACE_MS, stop.signal).catch(() => {});
      return reportEnd(id, r, json);
    })
    .catch((e: unknown) => (stop.signal.aborted ? EXIT.ok : reportError(e)));
  try {
    return await watchSessions([id], { json }, { ...ctx, client: ctx.client }, end);
  } finally {
    stop.abort();
  }
}

function reportEnd(id: string, r: FirstPromptEnd, json: boolean): number {
  if (json) printJson({ session_id: id, first_prompt: r.kind, state: r.state });
  const why = "message" in r && r.message ? `: ${cutText(sanitizeLine(r.message), 500)}` : "";
  switch (r.kind) {
    case "completed":
      err(
        `${id}: the first prompt completed${r.state ? ` (session ${sanitizeLine(r.state)})` : ""}`,
      );
      return EXIT.ok;
    case "error":
    case "timed_out":
      err(
        `error: the first prompt of ${id} ${r.kind === "error" ? "ended in an error" : "timed out"}${why}`,
      );
      err(
        `hint: Read its events above; send another prompt to carry on: agent-sessions prompt ${id}`,
      );
      return EXIT.promptError;
    case "session_ended":
      err(`error: ${id} is ${sanitizeLine(r.state)} before its first prompt ended${why}`);
      return EXIT.promptError;
  }
}

/** `rename`: the session's new name, as the service answered it. */
export async function runRename(
  cmd: Command,
  sessionId: string,
  name: string,
  json: boolean,
): Promise<void> {
  let client: ApiClient | null = null;
  try {
    const bad = renameProblem(name);
    if (bad !== null) throw new UsageError(`Cannot rename: ${bad}.`);
    const ctx = await commandContext(cmd);
    client = ctx.client;
    const s = sanitizeRecord(await ctx.client.renameSession(sessionId, name));
    if (json) printJson(s);
    else out(`renamed ${sessionId} to ${typeof s.name === "string" ? sanitizeLine(s.name) : name}`);
  } catch (e) {
    fail(e);
  } finally {
    await client?.close();
  }
}
