import type { Command } from "commander";
import { COMPLETION_SHELLS, type CompletionShell } from "../completion.js";

export function registerCompletionCommand(program: Command): void {
  program
    .command("completion")
    .description("print a shell completion script (bash, zsh or fish) for this program")
    .addArgument(
      program.createArgument("<shell>", "the shell to complete in").choices([...COMPLETION_SHELLS]),
    )
    .addHelpText(
      "after",
      `
Load it:
  bash  ~/.bashrc:  source <(${program.name()} completion bash)
  zsh   ~/.zshrc:   source <(${program.name()} completion zsh)   (after compinit)
  fish  ${program.name()} completion fish > ~/.config/fish/completions/${program.name()}.fish`,
    )
    .action(async (shell: CompletionShell, _opts: unknown, cmd: Command) => {
      const { runCompletion } = await import("../commands/completion.js");
      runCompletion(shell, cmd);
    });
}
