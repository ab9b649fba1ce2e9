import { type Command, InvalidArgumentError } from "commander";
import type { PruneOptions } from "../commands/journal.js";

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function parseAge(value: string): number {
  const m = /^(\d{1,6})([smhd])$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError("expected an age such as 30m, 12h or 7d");
  return Number(m[1]) * (UNITS[m[2] as string] as number);
}

export function registerJournalCommand(program: Command): void {
  const journal = program
    .command("journal")
    .description(
      "the local journal of events seen in the UI: where it is, turn it off or on, prune it",
    );
  journal
    .command("path")
    .description("print the journal's folder")
    .option("--json", "print one JSON object (path, on)")
    .action(async (opts: { json?: boolean }) => {
      const { runJournalPath } = await import("../commands/journal.js");
      await runJournalPath(opts);
    });
  journal
    .command("off")
    .description("stop keeping a journal (what is there stays; prune removes it)")
    .action(async () => {
      const { runJournalOff } = await import("../commands/journal.js");
      await runJournalOff();
    });
  journal
    .command("on")
    .description("keep a journal again (the default)")
    .action(async () => {
      const { runJournalOn } = await import("../commands/journal.js");
      await runJournalOn();
    });
  journal
    .command("prune")
    .description(
      "delete journal files: all, one session's, or those not written for a while (asks first; never a journal a running client holds)",
    )
    .option("--older-than <age>", "only files not written for this long (30m, 12h, 7d)", parseAge)
    .option("--session <session_id>", "only this session's files")
    .option("--yes", "remove without asking (needed when not on a terminal)")
    .action(async (opts: PruneOptions) => {
      const { runJournalPrune } = await import("../commands/journal.js");
      await runJournalPrune(opts);
    });
}
