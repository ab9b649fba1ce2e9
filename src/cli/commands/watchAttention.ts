import { ApiClient } from "../../client/apiClient.js";
import { EXIT } from "../../client/errors.js";
import type { OrganizationSource } from "../../client/routes.js";
import { displayId } from "../../store/admitSession.js";
import { type AttentionItem, createAttentionStore } from "../../store/attention/attentionStore.js";
import { LiveList } from "../../store/liveList.js";
import { createSessionsStore } from "../../store/sessionsStore.js";
import { StreamsController } from "../../store/streams/streamsController.js";
import { createStreamsStore } from "../../store/streams/streamsStore.js";
import { toJsonText } from "../../text/json.js";
import { oscText } from "../../text/notification.js";
import { keyRedactor } from "../../text/redact.js";
import { type CommandContext, orgOptions } from "../context.js";
import { clock } from "../eventFormat.js";
import { err, out } from "../output.js";

/**
 * `watch --attention`: only the moments a session starts needing the user, one line each
 * (or one JSON object with --json), for scripts and notifiers. Every session is followed
 * through the list (read again every 15 s, paced by the request budget like the UI's), and
 * the sessions named are streamed too, so their pauses, errors, stopped and silent streams
 * show at once. What already waits when it starts is not printed: only transitions are.
 */

export interface AttentionWatchOptions {
  json?: boolean;
  maxEvents?: number;
  /** The list's cadence (AGENT_SESSIONS_REFRESH_MS). */
  refreshMs?: number;
}

export type AttentionWatchContext = Pick<CommandContext, "baseUrl" | "apiKey" | "tuning"> & {
  organizationId?: string | null;
  organizationFrom?: OrganizationSource | null;
  /**
   * The command's client: its waits are announced on stderr and a closed stdout cancels it;
   * the streams open through its transport. One is made when not given.
   */
  client?: ApiClient;
};

/** Most pages of the list read at start (100 sessions each). */
const MAX_PAGES = 50;

export function attentionLine(item: AttentionItem, json: boolean): string {
  if (json) {
    return toJsonText({
      session_id: item.sessionId,
      attention: item.reason,
      message: item.message,
      since: new Date(item.since).toISOString(),
      source: item.source,
    });
  }
  // The id (as the server sent it) and the message are server text: one line, nothing a
  // terminal would act on.
  return `${clock(item.since)} ${displayId(item.sessionId)} ${item.reason.padEnd(9)} ${oscText(item.message, 300)}`;
}

export async function watchAttention(
  ids: string[],
  opts: AttentionWatchOptions,
  ctx: AttentionWatchContext,
): Promise<number> {
  const json = opts.json === true;
  const org = ctx.organizationId ?? undefined;
  const config = {
    baseUrl: ctx.baseUrl,
    apiKey: ctx.apiKey,
    ...(org ? { organizationId: org } : {}),
  };
  const client =
    ctx.client ??
    new ApiClient({
      ...config,
      ...orgOptions(ctx),
      ...(ctx.tuning.maxAttempts !== undefined ? { maxAttempts: ctx.tuning.maxAttempts } : {}),
      ...(ctx.tuning.backoffBaseMs !== undefined
        ? { backoffBaseMs: ctx.tuning.backoffBaseMs }
        : {}),
      ...(ctx.tuning.timeoutMs !== undefined ? { timeoutMs: ctx.tuning.timeoutMs } : {}),
    });
  // Records and events enter the stores as they do in the UI: sanitized, the key redacted.
  const { redact } = keyRedactor(ctx.apiKey);
  // Destroyed and error sessions are what this command is for: the list asks for them
  // (the real service leaves them out otherwise, and a session that fails would just vanish).
  const sessions = createSessionsStore(client, { redact, includeDestroyed: true });
  const streams = createStreamsStore({ capacity: 50, redact });
  const live = new LiveList({
    sessions,
    budget: client.budget,
    ...(opts.refreshMs !== undefined ? { baseMs: opts.refreshMs } : {}),
    // Nobody presses keys here: never the idle cadence.
    idleAfterMs: Number.POSITIVE_INFINITY,
  });
  const controller = new StreamsController({
    config,
    transport: client.transport,
    store: streams,
    sessions,
    onStateChange: () => live.poke("state"),
    ...(ctx.tuning.backoffBaseMs !== undefined
      ? { subscribeOptions: { backoffBaseMs: ctx.tuning.backoffBaseMs } }
      : {}),
  });

  let printed = 0;
  let finish: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  const onSignal = () => finish(EXIT.ok);
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  await sessions.getState().load();
  const first = sessions.getState();
  if (first.error) {
    err(`error: could not list the sessions: ${first.error.message}`);
    if (first.error.hint) err(`hint: ${first.error.hint}`);
  }
  for (let n = 0; n < MAX_PAGES && sessions.getState().hasMore; n++) {
    await sessions.getState().loadMore();
  }
  // Made after the first list: what already waits is known, and not printed.
  const attention = createAttentionStore({ sessions, streams });
  let seen = attention.getState().raisedVersion;
  const off = attention.subscribe((s) => {
    if (s.raisedVersion === seen) return;
    seen = s.raisedVersion;
    for (const item of s.lastRaised) {
      if (opts.maxEvents !== undefined && printed >= opts.maxEvents) break;
      out(attentionLine(item, json));
      printed++;
    }
    if (opts.maxEvents !== undefined && printed >= opts.maxEvents) finish(EXIT.ok);
  });
  const total = sessions.getState().items.length;
  err(
    `watching ${total} session${total === 1 ? "" : "s"} for attention${ids.length > 0 ? ` (streaming ${ids.join(", ")})` : ""}; Ctrl-C to stop`,
  );
  for (const id of ids) controller.openStream(id);
  live.start();
  // The list's timers do not hold the process (they never should in the UI): this does, until
  // Ctrl-C or --max-events.
  const keepAlive = setInterval(() => {}, 1 << 30);

  const code = await finished;
  clearInterval(keepAlive);
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  live.stop();
  off();
  attention.dispose();
  await controller.closeAll();
  streams.getState().dispose();
  return code;
}
