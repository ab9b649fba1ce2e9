import type { Command } from "commander";
import {
  LAUNCH_AGENTS,
  LAUNCH_MODELS,
  LAUNCH_TEMPLATES,
  ON_COMPLETE,
  PROMPT_TIMEOUT_MINUTES,
  TTL_MINUTES,
} from "../../protocol/launchValues.js";
import type { NewOptions } from "../commands/launch.js";
import { sessionArg, sessionsArg } from "./argParsers.js";

/** Starting and ending work: new (launch), rename, destroy. */
export function registerLaunchCommands(program: Command): void {
  program
    .command("new")
    .description("launch a session with its first prompt and print its id (--follow: stream it)")
    .argument("[prompt]", "the first prompt; - or none: read from stdin")
    .option("--repo <owner/repo>", "the repository the session works on")
    .option(
      "--agent <agent>",
      `coding agent: ${LAUNCH_AGENTS.join(", ")} (service default claude-code)`,
    )
    .option("--model <model>", `model: ${LAUNCH_MODELS.join(", ")}`)
    .option("--template <template>", `project template: ${LAUNCH_TEMPLATES.join(", ")}`)
    .option("--plan", "plan mode: read-only analysis without making changes")
    .option("--mode <mode>", "autopilot or interactive (service default autopilot)")
    .option(
      "--on-complete <action>",
      `when the prompt completes: ${ON_COMPLETE.join(", ")} (service default pause)`,
    )
    .option(
      "--ttl <minutes>",
      `most minutes the session lives, ${TTL_MINUTES.min}–${TTL_MINUTES.max} (service default ${TTL_MINUTES.default})`,
    )
    .option(
      "--prompt-timeout <minutes>",
      `most minutes the prompt runs, ${PROMPT_TIMEOUT_MINUTES.min}–${PROMPT_TIMEOUT_MINUTES.max} (service default ${PROMPT_TIMEOUT_MINUTES.default})`,
    )
    .option("--name <name>", "name the session (sent as a rename once it is launched)")
    .option("--follow", "stream the session as watch does until its first prompt ends")
    .option("--json", "print the launch's answer as JSON (with --follow: then its events)")
    .action(async (prompt: string | undefined, opts: NewOptions, cmd: Command) => {
      const { runNew } = await import("../commands/launch.js");
      await runNew(cmd, prompt, opts);
    });

  program
    .command("rename")
    .description("give a session a new name")
    .argument("<session_id>", "session (ses_… or a UUID)", sessionArg)
    .argument("<name>", "the new name")
    .option("--json", "print the updated session as JSON")
    .action(async (id: string, name: string, opts: { json?: boolean }, cmd: Command) => {
      const { runRename } = await import("../commands/launch.js");
      await runRename(cmd, id, name, opts.json === true);
    });

  program
    .command("destroy")
    .description("destroy sessions and their sandboxes, irreversibly (asks first on a terminal)")
    .argument("<session_id...>", "sessions (ses_… or a UUID), acted on in turn", sessionsArg)
    .option("--yes", "destroy without asking (required when not on a terminal)")
    .option("--json", "print per-session results as JSON")
    .action(async (ids: string[], opts: { yes?: boolean; json?: boolean }, cmd: Command) => {
      const { runDestroy } = await import("../commands/act.js");
      await runDestroy(cmd, ids, { yes: opts.yes === true, json: opts.json === true });
    });
}
