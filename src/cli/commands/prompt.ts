import type { Command } from "commander";
import type { PromptOutcome } from "../../client/apiClient.js";
import { EXIT, UsageError } from "../../client/errors.js";
import { MAX_PROMPT_CHARS, type PromptItem, promptProblem } from "../../protocol/prompt.js";
import { promptEndIsCancel, toolLine } from "../../store/act/promptView.js";
import { cutText, sanitizeLine } from "../../text/sanitize.js";
import { commandContext } from "../context.js";
import {
  endText,
  err,
  fail,
  out,
  outputRoom,
  outText,
  printJson,
  secrets,
  stdoutClosed,
} from "../output.js";
import { inputIsTerminal } from "../terminalCheck.js";

export interface PromptOptions {
  json: boolean;
  /** false: return once the service accepted the prompt (--no-wait). */
  wait: boolean;
}

/** Reads the prompt from stdin, bounded: a text far past the limit is not read whole. */
export async function readStdin(): Promise<string> {
  if (inputIsTerminal()) {
    throw new UsageError(
      "No prompt: give it as an argument or on stdin",
      "agent-sessions prompt ses_… 'Add input validation', or: echo '…' | agent-sessions prompt ses_…",
    );
  }
  const limit = MAX_PROMPT_CHARS * 4 + 4;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    chunks.push(chunk);
    if (size > limit) break;
  }
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

/**
 * Sends a prompt and streams the answer: its text to stdout as it arrives, tool use and
 * results one line each on stderr (--json: every item as one JSON line on stdout). Exit 0 on
 * done; the documented codes otherwise: 8 the answer ended in an error, 9 cancelled (Ctrl-C
 * cancels the prompt on the service), 10 a prompt already runs, 7 the answer was cut.
 */
export async function runPrompt(
  cmd: Command,
  sessionId: string,
  text: string | undefined,
  opts: PromptOptions,
): Promise<void> {
  const stop = new AbortController();
  let interrupted = false;
  let client: import("../../client/apiClient.js").ApiClient | null = null;
  const onSigint = () => {
    interrupted = true;
    stop.abort();
  };
  try {
    const prompt = text ?? (await readStdin());
    const bad = promptProblem(prompt);
    if (bad !== null) throw new UsageError(`Cannot send the prompt: ${bad}.`);
    const ctx = await commandContext(cmd);
    client = ctx.client;
    process.once("SIGINT", onSigint);
    let endsInNewline = true;
    const answerText = secrets.stream();
    const onItem = (item: PromptItem) => {
      if (!opts.wait) return;
      if (opts.json) {
        // Each item is a line of its own: its text passes the answer's stream redaction, so
        // a key sent a few characters an item is found across items here too.
        printJson(
          item.type === "text" ? { ...item, content: answerText.push(item.content) } : item,
        );
        return;
      }
      if (item.type === "text") {
        outText(item.content);
        if (item.content !== "") endsInNewline = item.content.endsWith("\n");
      } else if (item.type !== "done" && item.type !== "error") {
        err(toolLine(item));
      }
    };
    const outcome = await ctx.client.sendPrompt(sessionId, prompt, {
      onItem,
      signal: stop.signal,
      pace: outputRoom,
      ...(opts.wait ? {} : { acceptOnly: true }),
    });
    if (!opts.json && !endsInNewline) outText("\n");
    endText();
    // The reader went away (`| head -c 20`): it had what it wanted; the prompt goes on in the
    // session, and the command ends quietly, as every command does on a closed stdout.
    if (stdoutClosed.aborted) return;
    if (interrupted) {
      process.exitCode = await cancelAfterInterrupt(ctx.client, sessionId, opts.json);
      return;
    }
    process.exitCode = report(sessionId, outcome, opts.json);
  } catch (e) {
    // Ctrl-C before the answer began: the prompt may have reached the service all the same.
    if (interrupted && client)
      process.exitCode = await cancelAfterInterrupt(client, sessionId, opts.json);
    else fail(e);
  } finally {
    process.off("SIGINT", onSigint);
    await client?.close();
  }
}

/** Ctrl-C while the answer streamed: the prompt is cancelled on the service too. */
async function cancelAfterInterrupt(
  client: import("../../client/apiClient.js").ApiClient,
  sessionId: string,
  json: boolean,
): Promise<number> {
  try {
    const answer = await client.cancelPrompt(sessionId);
    if (json) printJson({ session_id: sessionId, cancelled: answer.cancelled, by: "interrupt" });
    err(
      answer.cancelled
        ? `cancelled: the prompt in ${sessionId} was cancelled`
        : `cancelled: stopped reading; the service says nothing was running in ${sessionId} any more`,
    );
  } catch (e) {
    // One error (why the cancel failed) and one hint (what that leaves), never two errors.
    fail(
      e,
      `Stopped reading, but the prompt could not be cancelled on the service and may still run: agent-sessions cancel ${sessionId}`,
    );
  }
  return EXIT.promptCancelled;
}

function report(sessionId: string, outcome: PromptOutcome, json: boolean): number {
  switch (outcome.kind) {
    case "done":
      return EXIT.ok;
    case "accepted":
      if (json) printJson({ session_id: sessionId, accepted: true, status: outcome.status });
      else
        out(
          `prompt accepted by ${sessionId}; its answer follows on the session's stream (agent-sessions watch ${sessionId})`,
        );
      return EXIT.ok;
    case "already_running":
      if (json) printJson({ session_id: sessionId, status: "already_running" });
      err(`error: a prompt is already running in ${sessionId}; this one was not sent to the agent`);
      err(`hint: Wait for it to finish, or cancel it first: agent-sessions cancel ${sessionId}`);
      return EXIT.promptBusy;
    case "error": {
      const why = cutText(sanitizeLine(outcome.message), 2000) || "no reason given";
      if (promptEndIsCancel(outcome)) {
        err(`cancelled: the prompt in ${sessionId} was cancelled (${why})`);
        return EXIT.promptCancelled;
      }
      err(`error: the agent's answer ended in an error: ${why}`);
      err("hint: Read the answer above; send another prompt to carry on.");
      return EXIT.promptError;
    }
    case "cut":
      if (json) printJson({ incomplete: true, reason: outcome.reason, items: outcome.items });
      err(
        `error: the answer was cut before it ended: ${outcome.reason} (${outcome.items} items received)`,
      );
      err(
        `hint: The agent may still be working: follow it with agent-sessions watch ${sessionId}, or read its history.`,
      );
      return EXIT.incomplete;
    case "stopped":
      return EXIT.promptCancelled;
  }
}
