import type { Command } from "commander";
import type { ApiClient } from "../../client/apiClient.js";
import { EXIT } from "../../client/errors.js";
import {
  type StreamNotice,
  type StreamStatus,
  type Subscription,
  subscribeToSession,
} from "../../client/eventStream.js";
import type { OrganizationSource } from "../../client/routes.js";
import { isSessionId } from "../../protocol/ids.js";
import { sanitizeRecord } from "../../store/sanitizeRecord.js";
import { formatSeconds } from "../../text/format.js";
import { toJsonText } from "../../text/json.js";
import type { StreamRedaction } from "../../text/redact.js";
import { createClient } from "../clientFactory.js";
import { type CommandContext, commandContext, orgOptions } from "../context.js";
import { eventToJson, gapText, redactStreamed } from "../eventFormat.js";
import { err, fail, out, outputRoom, reportError, secrets, stdoutClosed } from "../output.js";
import { colorFor, outputIsTerminal } from "../terminalCheck.js";
import { WatchPrinter } from "../watchPrinter.js";

export interface WatchOptions {
  json?: boolean;
  maxEvents?: number;
  heartbeats?: boolean;
  attention?: boolean;
}

/** `agent-sessions watch`: the sessions' events as lines (or JSON), or --attention. */
export async function runWatch(ids: string[], opts: WatchOptions, cmd: Command): Promise<void> {
  if (ids.length === 0 && !opts.attention) {
    cmd.error("error: name at least one session to watch (or use --attention for all)", {
      exitCode: 2,
      code: "agent-sessions.usage",
    });
  }
  for (const id of ids) {
    if (!isSessionId(id)) {
      cmd.error(`error: '${id}' is not a session id (expected ses_<id> or a UUID)`, {
        exitCode: 2,
        code: "agent-sessions.usage",
      });
    }
  }
  if (opts.attention) {
    // An alias of `attention --watch`, the ids given streamed too.
    const { runAttention } = await import("./attention.js");
    await runAttention(
      {
        watch: true,
        ...(opts.json ? { json: true } : {}),
        ...(opts.maxEvents !== undefined ? { maxEvents: opts.maxEvents } : {}),
      },
      cmd,
      ids,
    );
    return;
  }
  let client: ApiClient | null = null;
  try {
    const ctx = await commandContext(cmd);
    client = ctx.client;
    process.exitCode = await watchSessions([...new Set(ids)], opts, ctx);
  } catch (e) {
    fail(e);
  } finally {
    await client?.close();
  }
}

function statusLine(sessionId: string, s: StreamStatus, json: boolean): string {
  if (json) {
    const base = { session_id: sessionId, status: s.state };
    switch (s.state) {
      case "connecting":
        return toJsonText({ ...base, attempt: s.attempt });
      case "live":
        return toJsonText(base);
      case "reconnecting":
        return toJsonText({
          ...base,
          attempt: s.attempt,
          delay_ms: s.delayMs,
          reason: s.reason,
        });
      case "stopped":
        return toJsonText({ ...base, reason: s.reason, error: s.error?.code ?? null });
    }
  }
  switch (s.state) {
    case "connecting":
      return `${sessionId}: connecting${s.attempt > 1 ? ` (attempt ${s.attempt})` : ""}`;
    case "live":
      return `${sessionId}: live`;
    case "reconnecting":
      return `${sessionId}: reconnecting in ${formatSeconds(s.delayMs)} (attempt ${s.attempt}): ${s.reason}`;
    case "stopped":
      return `${sessionId}: stopped: ${s.reason}`;
  }
}

/**
 * What watch writes about a notice: stdout for gaps (they are about the events), stderr else.
 * A plain gap line goes through the printer (null here), so it keeps the lines' own prefix.
 */
function noticeLine(
  sessionId: string,
  n: StreamNotice,
  json: boolean,
): { stream: "out" | "err"; line: string } | null {
  if (n.kind === "gap") {
    if (!json) return null;
    return {
      stream: "out",
      line: toJsonText({
        session_id: sessionId,
        gap: true,
        from: new Date(n.from).toISOString(),
        to: new Date(n.to).toISOString(),
      }),
    };
  }
  return json
    ? {
        stream: "err",
        line: toJsonText({ session_id: sessionId, duplicates_dropped: n.count }),
      }
    : {
        stream: "err",
        line: `${sessionId}: dropped ${n.count} replayed event${n.count === 1 ? "" : "s"} already shown`,
      };
}

export type WatchContext = Pick<CommandContext, "baseUrl" | "apiKey" | "tuning"> & {
  organizationId?: string | null;
  organizationFrom?: OrganizationSource | null;
  /**
   * Reads a session's record again after a gap, and its transport opens the streams (so
   * their waits are announced with the command's); one is made when not given.
   */
  client?: Pick<ApiClient, "getSession" | "transport">;
};

/**
 * Follows the sessions until max events, every stream stopped, SIGINT, or `end` (a caller's
 * own end: `new --follow`'s first prompt ending) resolves with the exit code; returns it.
 */
export async function watchSessions(
  ids: string[],
  opts: WatchOptions,
  ctx: WatchContext,
  end?: Promise<number>,
): Promise<number> {
  const json = opts.json === true;
  const color = !json && colorFor(process.stdout);
  // One stream redaction a session: a key split over its events is found across them.
  const redactions = new Map<string, StreamRedaction>();
  const redactionOf = (sessionId: string) => {
    let r = redactions.get(sessionId);
    if (r === undefined) {
      r = secrets.stream();
      redactions.set(sessionId, r);
    }
    return r;
  };
  let finish: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  // Without --json an event is a line: prompt text comes a few words an event and is joined
  // into lines, so --max-events counts the event lines printed, each whole, not the pieces
  // (a gap marker or a state read again is not an event and is not counted).
  let lines = 0;
  const printer = new WatchPrinter({
    sessionIds: ids,
    color,
    redaction: redactionOf,
    width: outputIsTerminal() ? process.stdout.columns || 80 : 120,
    write: (line, kind) => {
      if (opts.maxEvents !== undefined && lines >= opts.maxEvents) return;
      out(line);
      if (kind === "note") return;
      lines++;
      if (opts.maxEvents !== undefined && lines >= opts.maxEvents) finish(EXIT.ok);
    },
  });
  const subs: Subscription[] = [];
  let delivered = 0;
  const org = ctx.organizationId ?? undefined;
  const client =
    ctx.client ??
    createClient(
      { baseUrl: ctx.baseUrl, apiKey: ctx.apiKey, ...orgOptions(ctx) },
      { tuning: { maxAttempts: 2 } },
    );
  const stop = new AbortController();

  void end?.then(finish);
  const onSigint = () => finish(EXIT.ok);
  process.once("SIGINT", onSigint);
  process.once("SIGTERM", onSigint);
  // `watch … | head -1`: the reader has gone, so there is nobody left to watch for.
  stdoutClosed.addEventListener("abort", onSigint, { once: true });
  if (stdoutClosed.aborted) finish(EXIT.ok);

  /** After a gap the state shown may be stale: the record is read again and printed. */
  const refresh = async (sessionId: string) => {
    try {
      const record = sanitizeRecord(await client.getSession(sessionId, stop.signal));
      if (stop.signal.aborted) return;
      if (json)
        out(toJsonText({ session_id: sessionId, event: "session", id: null, data: record }));
      else {
        const state = typeof record.state === "string" ? record.state : "unknown";
        printer.note(sessionId, "state", `now ${state} (read again after the gap)`, Date.now());
      }
    } catch (e) {
      if (!stop.signal.aborted) {
        err(
          `${sessionId}: could not read the session again after the gap: ${(e as Error).message}`,
        );
      }
    }
  };

  for (const sessionId of ids) {
    const sub = subscribeToSession({
      config: {
        baseUrl: ctx.baseUrl,
        apiKey: ctx.apiKey,
        ...(org ? { organizationId: org } : {}),
      },
      transport: client.transport,
      sessionId,
      pace: outputRoom,
      // Like tail -f on a live log: from now on.
      ...(ctx.tuning.backoffBaseMs !== undefined
        ? { backoffBaseMs: ctx.tuning.backoffBaseMs }
        : {}),
      onEvent: (ev) => {
        if (!json) {
          if (ev.kind !== "heartbeat" || opts.heartbeats) printer.event(sessionId, ev, Date.now());
          return;
        }
        if (opts.maxEvents !== undefined && delivered >= opts.maxEvents) return;
        out(
          toJsonText(
            eventToJson(sessionId, redactStreamed(ev, redactionOf(sessionId)), Date.now()),
          ),
        );
        delivered++;
        if (opts.maxEvents !== undefined && delivered >= opts.maxEvents) finish(EXIT.ok);
      },
      onStatus: (s) => err(statusLine(sessionId, s, json)),
      onNotice: (n) => {
        const notice = noticeLine(sessionId, n, json);
        if (notice === null) {
          if (n.kind === "gap") printer.note(sessionId, "gap", gapText(n.from, n.to), n.to);
        } else if (notice.stream === "out") out(notice.line);
        else err(notice.line);
        if (n.kind === "gap") void refresh(sessionId);
      },
    });
    subs.push(sub);
  }

  void Promise.all(subs.map((s) => s.done)).then((finals) => {
    const failed = finals.find((f) => f.state === "stopped" && f.error !== null);
    // Every stream stopped, one on an error: the exit is that error's, said as every
    // command says one (an `error:` line and its hint), after the streams' own lines.
    finish(
      failed && failed.state === "stopped" && failed.error ? reportError(failed.error) : EXIT.ok,
    );
  });

  const code = await finished;
  // Lines still being gathered are printed as they are, unless --max-events ended the run:
  // those lines come after the last one asked for.
  if (opts.maxEvents === undefined || lines < opts.maxEvents) printer.flushAll();
  process.off("SIGINT", onSigint);
  process.off("SIGTERM", onSigint);
  stop.abort();
  stdoutClosed.removeEventListener("abort", onSigint);
  for (const s of subs) s.close();
  await Promise.allSettled(subs.map((s) => s.done));
  // A client made here is closed here; one given is its maker's.
  if (!ctx.client) await client.transport.close();
  return code;
}
