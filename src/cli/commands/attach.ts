import type { Command } from "commander";
import { EXIT, type ExitCode } from "../../client/errors.js";
import type { TerminalEnd } from "../../client/terminalConnection.js";
import { commandContext } from "../context.js";
import { err, fail } from "../output.js";
import { attachTerminal } from "../terminalAttach.js";

export interface AttachOptions {
  raw?: boolean;
}

/** The exit code and the line that say how an attach ended. */
function ending(end: TerminalEnd, sessionId: string): { code: ExitCode; line: string | null } {
  switch (end.kind) {
    case "detached":
      return { code: EXIT.ok, line: `detached from ${sessionId}` };
    case "closed":
      return { code: EXIT.ok, line: end.message };
    case "taken":
      return { code: EXIT.terminalTaken, line: `error: ${end.message}` };
    case "idle":
      return { code: EXIT.terminalIdle, line: `error: ${end.message}` };
    case "sandbox_expired":
      return { code: EXIT.sandboxExpired, line: `error: ${end.message}` };
    case "lost":
      return { code: EXIT.network, line: `error: ${end.message}` };
    case "refused":
      return { code: EXIT.error, line: null };
  }
}

/**
 * `agent-sessions attach SESSION [--raw]`: the session's shell takes the whole terminal, like
 * ssh (cli/terminalAttach.ts, which the UI's `@` uses too). A signal or a crash restores the
 * terminal and exits; how the attach ended is said on stderr with its exit code.
 */
export async function runAttach(
  cmd: Command,
  sessionId: string,
  opts: AttachOptions,
): Promise<void> {
  const ctx = await commandContext(cmd).catch((e: unknown) => {
    fail(e);
    return null;
  });
  if (!ctx) return;
  const { end, droppedBytes, lines } = await attachTerminal(ctx.client, sessionId, {
    raw: opts.raw === true,
    say: err,
    onSignal: (signal, code) => {
      err(`${signal}: detached from ${sessionId}`);
      process.exit(code);
    },
    onCrash: (e) => {
      fail(e);
      process.exit(EXIT.error);
    },
  });
  if (lines && lines.length > 0 && !process.stdout.destroyed) {
    process.stdout.write(`${lines.join("\n")}\n`);
  }
  if (droppedBytes > 0) {
    err(
      `warning: ${droppedBytes} bytes of output came faster than they could be drawn and were dropped`,
    );
  }
  await ctx.client.close();
  if (end.kind === "refused") {
    fail(end.error ?? new Error(end.message), refusalHint(end.message, sessionId));
    return;
  }
  const { code, line } = ending(end, sessionId);
  if (line) err(line);
  if (code !== EXIT.ok) process.exitCode = code;
}

/** A refused terminal's hint: a paused session is resumed first. */
function refusalHint(message: string, sessionId: string): string | null {
  if (/not active/i.test(message)) {
    return `A paused session has no running sandbox: resume it first (agent-sessions resume ${sessionId}).`;
  }
  return null;
}
