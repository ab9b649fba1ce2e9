import type { ApiClient } from "../../client/apiClient.js";
import { cancellableDelay } from "../../client/signals.js";
import { errorMessageOf, lastPrompt } from "../../protocol/sessionRecord.js";

/**
 * How a launched session's first prompt ended, read from its record as the launch's docs
 * say to (`last_prompt.status`: completed, error, timed_out): the event stream says what
 * the agent does, not when its prompt is over. Polled at `intervalMs` (every read goes
 * through the client's one budget) until an end, the session failing or going, or `signal`.
 */
export type FirstPromptEnd =
  | { kind: "completed"; state: string | null }
  | { kind: "error" | "timed_out"; state: string | null; message: string | null }
  /** The session ended (destroyed, error) before its prompt said how it went. */
  | { kind: "session_ended"; state: string; message: string | null };

const ENDED_STATES = new Set(["destroyed", "error"]);

export async function firstPromptEnd(
  client: Pick<ApiClient, "getSession">,
  sessionId: string,
  opts: { intervalMs: number; signal: AbortSignal; maxPolls?: number },
): Promise<FirstPromptEnd> {
  const maxPolls = opts.maxPolls ?? 100_000;
  for (let n = 0; n < maxPolls; n++) {
    const s = await client.getSession(sessionId, opts.signal);
    const state = typeof s.state === "string" ? s.state : null;
    const message = errorMessageOf(s);
    const status = lastPrompt(s)?.status ?? null;
    if (status === "completed") return { kind: "completed", state };
    if (status === "error" || status === "timed_out") return { kind: status, state, message };
    if (state !== null && ENDED_STATES.has(state)) return { kind: "session_ended", state, message };
    await cancellableDelay(opts.intervalMs, opts.signal);
  }
  throw new Error(`the first prompt of ${sessionId} did not end in ${maxPolls} reads`);
}
