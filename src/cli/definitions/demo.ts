import type { Command } from "commander";
import type { DemoOptions } from "../commands/demo.js";
import { clockOption, intArg, parsePositiveInt } from "./argParsers.js";
import { DEMO_PACE_MS } from "./demoPace.js";

export function registerDemoCommand(program: Command): void {
  program
    .command("demo")
    .description("run the reference service in-process and follow its simulated sessions")
    .option(
      "--headless",
      "print events as lines instead of opening the terminal UI (the default without a terminal)",
    )
    .option(
      "--pace-ms <ms>",
      "mean milliseconds between one session's simulated events (calm enough to try pause and resume; lower is livelier)",
      (v) => Number(v),
      DEMO_PACE_MS,
    )
    .option("--seed <n>", "make keys, ids and simulated content reproducible (tests)", intArg(0))
    .addOption(clockOption())
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
