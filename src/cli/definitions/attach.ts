import type { Command } from "commander";
import type { AttachOptions } from "../commands/attach.js";

export function registerAttachCommand(program: Command): void {
  program
    .command("attach")
    .description(
      "open the session's shell full screen, like ssh (detach with Ctrl-]); needs sessions:terminal",
    )
    .argument("<session>", "session id")
    .option(
      "--raw",
      "pass the shell's output to the terminal as it comes (clipboard, title and other OSC/DCS strings still dropped) instead of drawing it through the emulator",
    )
    .action(async (session: string, opts: AttachOptions, cmd: Command) => {
      const { runAttach } = await import("../commands/attach.js");
      await runAttach(cmd, session, opts);
    });
}
