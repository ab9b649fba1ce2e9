import type { Command } from "commander";

export function registerLogoutCommand(program: Command): void {
  program
    .command("logout")
    .description(
      "remove the profile's stored key (OS keychain and/or plain-text file); the profile's base URL is kept",
    )
    // --profile and --base-url are the root program's; show them here too.
    .configureHelp({ showGlobalOptions: true })
    .action(async (_opts: Record<string, never>, cmd: Command) => {
      const { runLogout } = await import("../commands/logout.js");
      await runLogout(cmd);
    });
}
