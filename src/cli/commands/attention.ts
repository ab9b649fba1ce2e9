import type { Command } from "commander";
import type { ApiClient } from "../../client/apiClient.js";
import { EXIT } from "../../client/errors.js";
import type { OrganizationSource } from "../../client/routes.js";
import { isSessionId } from "../../protocol/ids.js";
import { sessionName } from "../../protocol/resources.js";
import { displayId } from "../../store/admitSession.js";
import type { AttentionItem } from "../../store/attention/queue.js";
import { type AttentionConfig, REASON_LABEL } from "../../store/attention/reasons.js";
import { selectRecord } from "../../store/sessionsStore.js";
import { createSessionWatch } from "../../store/sessionWatch.js";
import { formatAge } from "../../text/format.js";
import { toJsonText } from "../../text/json.js";
import { oscText } from "../../text/notification.js";
import { keyRedactor } from "../../text/redact.js";
import { attentionSetting } from "../attentionSetting.js";
import { createClient } from "../clientFactory.js";
import { type CommandContext, commandContext, orgOptions } from "../context.js";
import { uiTuningFromEnv } from "../envTuning.js";
import { clock } from "../eventFormat.js";
import { err, fail, out, stdoutClosed, table } from "../output.js";

/**
 * `agent-sessions attention`: what needs you now, over every session (every page of the list,
 * the pending approvals of sessions that wait on one), one row each, or a JSON document;
 * `--watch` then prints each arrival and departure as it happens, one line (or one JSON
 * object) each, until interrupted. The reasons and what they say are store/attention's, the
 * same the UI's queue, marks and notifications use. `watch --attention` is this with --watch.
 */

export interface AttentionOptions {
  json?: boolean;
  watch?: boolean;
  /** Stop after this many printed changes (--watch; tests and scripts). */
  maxEvents?: number;
}

export type AttentionContext = Pick<CommandContext, "baseUrl" | "apiKey" | "tuning"> & {
  organizationId?: string | null;
  organizationFrom?: OrganizationSource | null;
  client?: ApiClient;
};

export interface AttentionRunOptions extends AttentionOptions {
  /** Sessions whose streams are followed too (their news comes at once, not at the next read). */
  streamIds?: string[];
  /** The list's cadence (AGENT_SESSIONS_REFRESH_MS). */
  refreshMs?: number;
  config?: AttentionConfig;
}

/** `agent-sessions attention` as the program runs it. */
export async function runAttention(
  opts: AttentionOptions,
  cmd: Command,
  streamIds: string[] = [],
): Promise<void> {
  for (const id of streamIds) {
    if (!isSessionId(id)) {
      cmd.error(`error: '${id}' is not a session id (expected ses_<id> or a UUID)`, {
        exitCode: EXIT.usage,
        code: "agent-sessions.usage",
      });
    }
  }
  let client: ApiClient | null = null;
  try {
    const ctx = await commandContext(cmd);
    client = ctx.client;
    const setting = await attentionSetting();
    if (setting.warning) err(`warning: ${setting.warning}`);
    const refreshMs = uiTuningFromEnv().refreshMs;
    process.exitCode = await attention(
      {
        ...opts,
        streamIds: [...new Set(streamIds)],
        config: setting.config,
        ...(refreshMs !== undefined ? { refreshMs } : {}),
      },
      ctx,
    );
  } catch (e) {
    fail(e);
  } finally {
    await client?.close();
  }
}

interface Named {
  item: AttentionItem;
  name: string | null;
}

function sinceText(at: number): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** One item as JSON: what a script needs to act on it. */
export function attentionJson(n: Named, event?: "arrived" | "left"): Record<string, unknown> {
  const { item } = n;
  return {
    ...(event ? { event } : {}),
    session_id: item.sessionId,
    name: n.name,
    reason: item.reason,
    message: item.message,
    detail: item.detail,
    since: sinceText(item.since),
    since_from: item.sinceFrom,
    source: item.source,
    notify: item.notify,
    approval: item.approval,
  };
}

/** One watch line: the time, + or -, the session, what, its name. Server text on one line. */
export function attentionLine(n: Named, event: "arrived" | "left", at: number): string {
  const { item } = n;
  const what =
    event === "arrived" ? oscText(item.message, 300) : `${REASON_LABEL[item.reason]} (over)`;
  const name = n.name ? `  ${oscText(n.name, 80)}` : "";
  return `${clock(at)} ${event === "arrived" ? "+" : "-"} ${displayId(item.sessionId)}  ${what}${name}`;
}

/** The queue now as rows: session, name, reason, since, detail. */
function attentionTable(rows: readonly Named[], now: number): string {
  return table(
    ["SESSION", "NAME", "REASON", "SINCE", "DETAIL"],
    rows.map(({ item, name }) => [
      displayId(item.sessionId),
      oscText(name ?? "", 40) || "—",
      REASON_LABEL[item.reason],
      `${sinceText(item.since)} (${formatAge(now - item.since)})`,
      oscText(item.detail, 200),
    ]),
  );
}

export async function attention(o: AttentionRunOptions, ctx: AttentionContext): Promise<number> {
  const json = o.json === true;
  const org = ctx.organizationId ?? undefined;
  const config = {
    baseUrl: ctx.baseUrl,
    apiKey: ctx.apiKey,
    ...(org ? { organizationId: org } : {}),
  };
  const client =
    ctx.client ?? createClient({ ...config, ...orgOptions(ctx) }, { tuning: ctx.tuning });
  const { redact } = keyRedactor(ctx.apiKey);
  // The list's first failure is kept as thrown, so the command exits with its code.
  let listError: unknown = null;
  // The same chain as the UI's (src/store/sessionWatch.ts), over the same catalogue.
  const watch = createSessionWatch({
    client,
    config,
    redact,
    capacity: 50,
    // Failed and destroyed sessions are what this command is for.
    includeDestroyed: true,
    onReadError: (e) => {
      listError ??= e;
    },
    live: {
      ...(o.refreshMs !== undefined ? { baseMs: o.refreshMs } : {}),
      // Nobody presses keys here: never the idle cadence.
      idleAfterMs: Number.POSITIVE_INFINITY,
    },
    ...(o.config ? { attention: o.config } : {}),
    ...(ctx.tuning.backoffBaseMs !== undefined
      ? { streams: { subscribeOptions: { backoffBaseMs: ctx.tuning.backoffBaseMs } } }
      : {}),
  });
  const { sessions, controller, live, attention: store } = watch;
  const named = (item: AttentionItem): Named => {
    const rec = selectRecord(sessions.getState(), item.sessionId);
    return { item, name: rec ? sessionName(rec) : null };
  };
  const cleanup = async () => {
    await watch.dispose();
    // A client made here is closed here; one given is its maker's.
    if (!ctx.client) await client.close();
  };

  await sessions.getState().load();
  const loadError = sessions.getState().error;
  // A pass cut short (a paging loop, the page cap) is no failure: the queue says it is partial.
  if (loadError !== null && loadError.code !== "incomplete") {
    await cleanup();
    throw listError ?? new Error(loadError.message);
  }
  await store.idle();
  const now = Date.now();
  const first = store.getState();
  const rows = first.items.map(named);
  const partial = first.partial;
  if (partial) err(`warning: the queue is partial: ${partial}`);

  if (!o.watch) {
    if (json) out(toJsonText({ items: rows.map((r) => attentionJson(r)), partial }));
    else if (rows.length === 0) out("Nothing needs you now.");
    else out(attentionTable(rows, now));
    await cleanup();
    return partial ? EXIT.incomplete : EXIT.ok;
  }

  // --watch: what waits now, then each arrival and departure.
  for (const r of rows)
    out(json ? toJsonText(attentionJson(r, "arrived")) : attentionLine(r, "arrived", r.item.since));
  let printed = 0;
  let finish: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  const onSignal = () => finish(EXIT.ok);
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const onClosed = () => finish(EXIT.ok);
  stdoutClosed.addEventListener("abort", onClosed);
  let seen = first.changeVersion;
  const off = store.subscribe((s) => {
    if (s.changeVersion === seen) return;
    seen = s.changeVersion;
    const at = Date.now();
    const changes: [AttentionItem, "arrived" | "left"][] = [
      ...s.lastChanges.left.map((i): [AttentionItem, "left"] => [i, "left"]),
      ...s.lastChanges.arrived.map((i): [AttentionItem, "arrived"] => [i, "arrived"]),
    ];
    for (const [item, event] of changes) {
      if (o.maxEvents !== undefined && printed >= o.maxEvents) break;
      const n = named(item);
      out(json ? toJsonText(attentionJson(n, event)) : attentionLine(n, event, at));
      printed++;
    }
    if (o.maxEvents !== undefined && printed >= o.maxEvents) finish(EXIT.ok);
  });
  const total = Object.keys(sessions.getState().byId).length;
  const streamed = o.streamIds ?? [];
  err(
    `watching ${total} session${total === 1 ? "" : "s"} for attention${streamed.length > 0 ? ` (streaming ${streamed.join(", ")})` : ""}; Ctrl-C to stop`,
  );
  // Live only: what needs the user comes from what happens from now on (a transition seen),
  // and the past would cost each streamed id a history read from the budget.
  for (const id of streamed) controller.openStream(id, { past: false });
  live.start();
  // The list's timers do not hold the process (they never should in the UI): this does.
  const keepAlive = setInterval(() => {}, 1 << 30);
  const code = await finished;
  clearInterval(keepAlive);
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  stdoutClosed.removeEventListener("abort", onClosed);
  off();
  await cleanup();
  return code;
}
