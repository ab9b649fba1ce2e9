import type { Command } from "commander";
import type { DemoOptions } from "../commands/demo.js";
import { parsePositiveInt } from "./argParsers.js";

export function registerDemoCommand(program: Command): void {
  program
    .command("demo")
    .description("run the reference service in-process and follow its simulated sessions")
    .option(
      "--headless",
      "print events as lines instead of opening the terminal UI (the default without a terminal)",
    )
    .option("--pace-ms <ms>", "mean milliseconds between simulated events", (v) => Number(v), 250)
    .option(
      "--max-events <n>",
      "headless: exit 0 after this many lines, each whole (a bounded run, e.g. to check an install)",
      parsePositiveInt,
    )
    .action(async (opts: DemoOptions) => {
      const { runDemo } = await import("../commands/demo.js");
      await runDemo(opts);
    });
}
