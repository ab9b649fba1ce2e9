import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import { updateConfig } from "../../credentials/profiles.js";
import { formatBytes } from "../../text/format.js";
import { journalRoot, sessionFileBase } from "../journal/journalPaths.js";
import { journalSwitchedOff } from "../journal/journalSetup.js";
import { fail, out, printJson } from "../output.js";

/** `agent-sessions journal path|on|off|prune`: where the journal is, and managing it. */

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseAge(value: string): number {
  const m = /^(\d{1,6})([smhd])$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError("expected an age such as 30m, 12h or 7d");
  return Number(m[1]) * (UNITS[m[2] as string] as number);
}

interface PruneOptions {
  olderThan?: number;
  session?: string;
}

async function journalFiles(root: string): Promise<{ path: string; name: string }[]> {
  const out: { path: string; name: string }[] = [];
  let dirs: string[];
  try {
    dirs = (await readdir(root, { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return out;
    throw e;
  }
  for (const dir of dirs) {
    for (const name of await readdir(join(root, dir))) {
      if (name.endsWith(".ndjson")) out.push({ path: join(root, dir, name), name });
    }
  }
  return out;
}

async function prune(opts: PruneOptions): Promise<void> {
  const root = journalRoot();
  const cutoff = opts.olderThan !== undefined ? Date.now() - opts.olderThan : null;
  const base = opts.session !== undefined ? sessionFileBase(opts.session) : null;
  let files = 0;
  let bytes = 0;
  for (const f of await journalFiles(root)) {
    if (base !== null && f.name !== `${base}.ndjson` && f.name !== `${base}.1.ndjson`) continue;
    const st = await stat(f.path);
    if (cutoff !== null && st.mtimeMs >= cutoff) continue;
    await rm(f.path, { force: true });
    files++;
    bytes += st.size;
  }
  out(
    `journal: removed ${files} file${files === 1 ? "" : "s"} (${formatBytes(bytes)}) from ${root}`,
  );
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
      try {
        const path = journalRoot();
        const on = !(await journalSwitchedOff());
        if (opts.json) printJson({ path, on });
        else out(path);
      } catch (e) {
        fail(e);
      }
    });
  journal
    .command("off")
    .description("stop keeping a journal (what is there stays; prune removes it)")
    .action(async () => {
      try {
        await updateConfig((c) => {
          c.journal = false;
        });
        out(
          "journal: off. Nothing new is written; `agent-sessions journal prune` removes what is there.",
        );
      } catch (e) {
        fail(e);
      }
    });
  journal
    .command("on")
    .description("keep a journal again (the default)")
    .action(async () => {
      try {
        await updateConfig((c) => {
          delete c.journal;
        });
        out(`journal: on, in ${journalRoot()}`);
      } catch (e) {
        fail(e);
      }
    });
  journal
    .command("prune")
    .description("delete journal files: all, one session's, or those not written for a while")
    .option("--older-than <age>", "only files not written for this long (30m, 12h, 7d)", parseAge)
    .option("--session <session_id>", "only this session's files")
    .action(async (opts: PruneOptions) => {
      try {
        await prune(opts);
      } catch (e) {
        fail(e);
      }
    });
}
