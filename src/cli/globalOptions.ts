import type { Command } from "commander";

/**
 * The root program's options. A module of its own, apart from the client that context.ts
 * builds, so a command that only reads them (logout) starts without loading HTTP code.
 */

/** Options every networked command accepts (set on the root program). */
export interface GlobalOptions {
  baseUrl?: string;
  profile?: string;
  org?: string;
  /** false with --no-journal. */
  journal?: boolean;
}

/** The root program's options, whichever subcommand is running. */
export function globalOptions(cmd: Command): GlobalOptions {
  let root: Command = cmd;
  while (root.parent) root = root.parent;
  return root.opts<GlobalOptions>();
}
