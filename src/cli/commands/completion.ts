import type { Command } from "commander";
import { type CompletionShell, completionScript } from "../completion.js";

/** `agent-sessions completion SHELL`: the script, generated from the whole program. */
export function runCompletion(shell: CompletionShell, cmd: Command): void {
  let root: Command = cmd;
  while (root.parent) root = root.parent;
  process.stdout.write(completionScript(root, shell));
}
