import type { Command } from "commander";
import type { WatchOptions } from "../commands/watch.js";
import { parsePositiveInt } from "./argParsers.js";

export function registerWatchCommand(program: Command): void {
  program
    .command("watch")
    .description("stream the events of one or more sessions, like tail -f")
    .argument("[session_id...]", "sessions to watch (ses_…); with --attention, optional")
    .option("--json", "one JSON object per event on stdout (heartbeats included)")
    .option(
      "--max-events <n>",
      "exit 0 after this many events (lines, each whole, without --json)",
      parsePositiveInt,
    )
    .option("--heartbeats", "also print heartbeats in the human form")
    .option(
      "--attention",
      "the same as `attention --watch` (what needs you, then each arrival and departure), the ids given streamed too",
    )
    .action(async (ids: string[], opts: WatchOptions, cmd: Command) => {
      const { runWatch } = await import("../commands/watch.js");
      await runWatch(ids, opts, cmd);
    });
}
