import type { Command } from "commander";
import { EXIT } from "../../client/errors.js";
import {
  type StreamStatus,
  type Subscription,
  subscribeToSession,
} from "../../client/eventStream.js";
import { closeDefaultAgent } from "../../client/transport.js";
import { isSessionId } from "../../protocol/resources.js";
import { type CommandContext, commandContext } from "../context.js";
import { describeEvent, eventToJson } from "../eventFormat.js";
import { err, fail, out } from "../output.js";
import { parsePositiveInt } from "./sessions.js";

export interface WatchOptions {
  json?: boolean;
  maxEvents?: number;
  heartbeats?: boolean;
}

export function registerWatchCommand(program: Command): void {
  program
    .command("watch")
    .description("stream the events of one or more sessions, like tail -f")
    .argument("<session_id...>", "sessions to watch (ses_…)")
    .option("--json", "one JSON object per event on stdout (heartbeats included)")
    .option("--max-events <n>", "exit 0 after this many events", parsePositiveInt)
    .option("--heartbeats", "also print heartbeats in the human form")
    .action(async (ids: string[], opts: WatchOptions, cmd: Command) => {
      for (const id of ids) {
        if (!isSessionId(id)) {
          cmd.error(`error: '${id}' is not a session id (expected ses_<id>)`, {
            exitCode: 2,
            code: "agent-sessions.usage",
          });
        }
      }
      try {
        const ctx = await commandContext(cmd);
        process.exitCode = await watchSessions([...new Set(ids)], opts, ctx);
      } catch (e) {
        fail(e);
      } finally {
        await closeDefaultAgent();
      }
    });
}

function statusLine(sessionId: string, s: StreamStatus, json: boolean): string {
  if (json) {
    const base = { session_id: sessionId, status: s.state };
    switch (s.state) {
      case "connecting":
        return JSON.stringify({ ...base, attempt: s.attempt });
      case "live":
        return JSON.stringify(base);
      case "reconnecting":
        return JSON.stringify({
          ...base,
          attempt: s.attempt,
          delay_ms: s.delayMs,
          reason: s.reason,
        });
      case "stopped":
        return JSON.stringify({ ...base, reason: s.reason, error: s.error?.code ?? null });
    }
  }
  switch (s.state) {
    case "connecting":
      return `${sessionId}: connecting${s.attempt > 1 ? ` (attempt ${s.attempt})` : ""}`;
    case "live":
      return `${sessionId}: live`;
    case "reconnecting":
      return `${sessionId}: reconnecting in ${(s.delayMs / 1000).toFixed(1)} s (attempt ${s.attempt}): ${s.reason}`;
    case "stopped":
      return `${sessionId}: stopped: ${s.reason}`;
  }
}

/** Follows the sessions until max events, every stream stopped, or SIGINT; returns the exit code. */
export async function watchSessions(
  ids: string[],
  opts: WatchOptions,
  ctx: Pick<CommandContext, "baseUrl" | "apiKey" | "tuning">,
): Promise<number> {
  const json = opts.json === true;
  const color = !json && process.stdout.isTTY === true && !process.env.NO_COLOR;
  const subs: Subscription[] = [];
  let delivered = 0;
  let finish: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });

  const onSigint = () => finish(EXIT.ok);
  process.once("SIGINT", onSigint);
  process.once("SIGTERM", onSigint);

  for (const sessionId of ids) {
    const sub = subscribeToSession({
      config: { baseUrl: ctx.baseUrl, apiKey: ctx.apiKey },
      sessionId,
      // Like tail -f on a live log: from now on (a server keeping history sends none).
      history: 0,
      ...(ctx.tuning.backoffBaseMs !== undefined
        ? { backoffBaseMs: ctx.tuning.backoffBaseMs }
        : {}),
      onEvent: (ev) => {
        if (opts.maxEvents !== undefined && delivered >= opts.maxEvents) return;
        if (json) {
          out(JSON.stringify(eventToJson(sessionId, ev, Date.now())));
        } else {
          if (ev.kind === "heartbeat" && !opts.heartbeats) return;
          out(describeEvent(sessionId, ev, Date.now(), color));
        }
        delivered++;
        if (opts.maxEvents !== undefined && delivered >= opts.maxEvents) finish(EXIT.ok);
      },
      onStatus: (s) => err(statusLine(sessionId, s, json)),
    });
    subs.push(sub);
  }

  void Promise.all(subs.map((s) => s.done)).then((finals) => {
    const failed = finals.find((f) => f.state === "stopped" && f.error !== null);
    const code =
      failed && failed.state === "stopped" && failed.error ? failed.error.exitCode : EXIT.ok;
    finish(code);
  });

  const code = await finished;
  process.off("SIGINT", onSigint);
  process.off("SIGTERM", onSigint);
  for (const s of subs) s.close();
  await Promise.allSettled(subs.map((s) => s.done));
  return code;
}
