import type { Command } from "commander";
import type { WhoamiOptions } from "../commands/whoami.js";

export function registerWhoamiCommand(program: Command): void {
  program
    .command("whoami")
    .description("show the key's metadata, the caller identity and the effective scopes")
    .option("--json", "print one JSON object")
    .option("--verbose", "also name the routes in use (where session routes and streams live)")
    .action(async (opts: WhoamiOptions, cmd: Command) => {
      const { runWhoami } = await import("../commands/whoami.js");
      await runWhoami(opts, cmd);
    });
}
