import type { Command } from "commander";
import type { AttentionOptions } from "../commands/attention.js";
import { parsePositiveInt } from "./argParsers.js";

export function registerAttentionCommand(program: Command): void {
  program
    .command("attention")
    .description(
      "what needs you now, over every session: approvals, failures, finished prompts, stopped streams (paused and destroyed shown too)",
    )
    .option(
      "--json",
      "one JSON document ({items, partial}); with --watch, one JSON object per change",
    )
    .option(
      "--watch",
      "then print each arrival (+) and departure (-) as it happens, until interrupted",
    )
    .option("--max-events <n>", "with --watch: exit 0 after this many changes", parsePositiveInt)
    .action(async (opts: AttentionOptions, cmd: Command) => {
      const { runAttention } = await import("../commands/attention.js");
      await runAttention(opts, cmd);
    });
}
