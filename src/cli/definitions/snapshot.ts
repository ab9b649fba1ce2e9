import type { Command } from "commander";
import type { SnapshotOptions } from "../commands/snapshot.js";
import { parsePositiveInt } from "./argParsers.js";

function collect(value: string, prev: string[] = []): string[] {
  return [...prev, value];
}

export function registerSnapshotCommand(program: Command): void {
  program
    .command("snapshot")
    .description("render the terminal UI headlessly and print the final frame as text")
    .option("--width <cols>", "terminal columns", parsePositiveInt, 120)
    .option("--height <rows>", "terminal rows", parsePositiveInt, 36)
    .option(
      "--after <ms>",
      "how long to let it run before taking the frame (then it also waits, bounded, for the first reads and the streams)",
      parsePositiveInt,
      1500,
    )
    .option("--open <session_id>", "open this session in a pane (repeatable)", collect)
    .option(
      "--demo",
      "render against an in-process reference service with an owner key (seeded, standing still: the same frame every run)",
    )
    .option("--ansi", "keep colours and styles in the output")
    .option(
      "--replay <file>",
      "render a recording instead of a service: no network, no key (repeatable)",
      collect,
    )
    .option(
      "--at <time>",
      "with --replay: the moment to render (10:12:30, +5m, -30s, 50%, start, end; default end)",
    )
    .option("--session <session_id>", "with --replay: the session of lines that do not name theirs")
    .option("--fleet", "render the fleet view (every session in one table)")
    .action(async (opts: SnapshotOptions, cmd: Command) => {
      const { runSnapshot } = await import("../commands/snapshot.js");
      await runSnapshot(opts, cmd);
    });
}
