import type { Command } from "commander";
import type { LifecycleAction } from "../../protocol/prompt.js";
import { ABSOLUTE_TIME_OPTION } from "../timeStyle.js";
import { pathIdArg, sessionArg, sessionsArg } from "./argParsers.js";

/**
 * Acting on a session: reply to its agent, cancel, decide approvals, pause/resume/start.
 * Each implementation loads only when its command runs.
 */
export function registerActCommands(program: Command): void {
  program
    .command("prompt")
    .description("send a prompt to the session's agent and stream its answer")
    .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
    .argument("[text]", "the prompt (default: read from stdin)")
    .option("--json", "one JSON object per answer item ({type, content}) on stdout")
    .option("--no-wait", "return once the service accepted the prompt")
    .action(
      async (
        id: string,
        text: string | undefined,
        opts: { json?: boolean; wait: boolean },
        cmd,
      ) => {
        const { runPrompt } = await import("../commands/prompt.js");
        await runPrompt(cmd, id, text, { json: opts.json === true, wait: opts.wait });
      },
    );

  program
    .command("cancel")
    .description("cancel the prompt running in the session")
    .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
    .option("--json", "print the service's answer as JSON")
    .action(async (id: string, opts: { json?: boolean }, cmd) => {
      const { runCancel } = await import("../commands/act.js");
      await runCancel(cmd, id, opts.json === true);
    });

  program
    .command("approvals")
    .description("pending approvals of the sessions named, or of every session")
    .argument("[session_id...]", "sessions (default: every listed session)", sessionsArg)
    .option("--all", "also list approvals already resolved")
    .option("--json", "a JSON array of the approvals as the service sent them")
    .option(...ABSOLUTE_TIME_OPTION)
    .action(
      async (
        ids: string[] | undefined,
        opts: { json?: boolean; all?: boolean; absoluteTime?: boolean },
        cmd,
      ) => {
        const { runApprovals } = await import("../commands/act.js");
        await runApprovals(cmd, ids ?? [], {
          json: opts.json === true,
          all: opts.all === true,
          absoluteTime: opts.absoluteTime === true,
        });
      },
    );

  for (const action of ["approve", "reject"] as const) {
    program
      .command(action)
      .description(`${action} a pending approval of the session`)
      .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
      .argument("<approval_id>", "approval (see agent-sessions approvals)", pathIdArg)
      .option("--note <text>", "a note recorded with the decision (at most 512 characters)")
      .option("--json", "print the resolved approval as JSON")
      .action(
        async (id: string, approvalId: string, opts: { note?: string; json?: boolean }, cmd) => {
          const { runResolve } = await import("../commands/act.js");
          await runResolve(cmd, id, approvalId, action, opts.note, opts.json === true);
        },
      );
  }

  const LIFECYCLE: Record<LifecycleAction, string> = {
    pause: "pause a running session (its state is kept; no compute while paused)",
    resume: "resume a paused session",
    start: "start a session whatever its state (creating, paused or running)",
  };
  for (const action of ["pause", "resume", "start"] as const) {
    program
      .command(action)
      .description(LIFECYCLE[action])
      .argument(
        "<session_id...>",
        "sessions (ses_… or a UUID); several are acted on in turn, a failure not stopping the rest",
        sessionsArg,
      )
      .option(
        "--json",
        "print the service's answer as JSON (several sessions: an array of per-session results)",
      )
      .action(async (ids: string[], opts: { json?: boolean }, cmd) => {
        const { runLifecycle } = await import("../commands/act.js");
        await runLifecycle(cmd, ids, action, opts.json === true);
      });
  }
}
