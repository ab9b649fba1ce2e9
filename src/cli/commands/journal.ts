import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { UsageError } from "../../client/errors.js";
import { updateConfig } from "../../credentials/profiles.js";
import { formatBytes } from "../../text/format.js";
import { readHiddenLine } from "../hiddenInput.js";
import { journalHolders, journalRoot, sessionFileBase } from "../journal/journalPaths.js";
import { journalSwitchedOff } from "../journal/journalSetup.js";
import { err, fail, out, printJson } from "../output.js";
import { inputIsTerminal } from "../terminalCheck.js";

/** `agent-sessions journal path|on|off|prune`: where the journal is, and managing it. */

export interface PruneOptions {
  olderThan?: number;
  session?: string;
  /** Remove without asking (what a script must say). */
  yes?: boolean;
}

interface JournalFile {
  path: string;
  name: string;
  /** The service folder it is in. */
  dir: string;
}

async function journalFiles(root: string): Promise<JournalFile[]> {
  const out: JournalFile[] = [];
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
      if (name.endsWith(".ndjson"))
        out.push({ path: join(root, dir, name), name, dir: join(root, dir) });
    }
  }
  return out;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * Removes what the options select, except the journals a running client holds (see
 * journalHolders); asks first on a terminal, and wants --yes anywhere else.
 */
async function prune(opts: PruneOptions): Promise<void> {
  const root = journalRoot();
  const cutoff = opts.olderThan !== undefined ? Date.now() - opts.olderThan : null;
  const base = opts.session !== undefined ? sessionFileBase(opts.session) : null;
  const chosen: { path: string; size: number }[] = [];
  const held = new Map<string, number[]>();
  let heldFiles = 0;
  for (const f of await journalFiles(root)) {
    if (base !== null && f.name !== `${base}.ndjson` && f.name !== `${base}.1.ndjson`) continue;
    const st = await stat(f.path);
    if (cutoff !== null && st.mtimeMs >= cutoff) continue;
    if (!held.has(f.dir)) {
      const holders = await journalHolders(f.dir);
      for (const s of holders.stale) await rm(s, { force: true });
      held.set(f.dir, holders.live);
    }
    if ((held.get(f.dir) ?? []).length > 0) {
      heldFiles++;
      continue;
    }
    chosen.push({ path: f.path, size: st.size });
  }
  const pids = [...new Set([...held.values()].flat())];
  const keptNote =
    heldFiles > 0
      ? `kept ${plural(heldFiles, "file")} of a journal in use by a running client (pid ${pids.join(", ")}); quit it first to prune those`
      : null;
  const bytes = chosen.reduce((n, f) => n + f.size, 0);
  const what = `${plural(chosen.length, "file")} (${formatBytes(bytes)}) from ${root}`;
  if (chosen.length > 0 && !opts.yes) {
    if (!inputIsTerminal(process.stdin)) {
      throw new UsageError(
        `journal prune would remove ${what} and asks first, but there is no terminal to ask on; nothing was removed`,
        "Add --yes to prune without asking (agent-sessions journal prune --yes).",
      );
    }
    if (keptNote) err(keptNote);
    const answer = await readHiddenLine(
      `Remove ${what}? Type y and Enter to remove, anything else keeps them: `,
      process.stdin,
      process.stderr,
    );
    if (answer.trim().toLowerCase() !== "y") {
      out("journal: nothing removed");
      return;
    }
  } else if (keptNote) err(keptNote);
  for (const f of chosen) await rm(f.path, { force: true });
  out(`journal: removed ${what}`);
}

/** `journal path`: where the journal is, and whether it is kept. */
export async function runJournalPath(opts: { json?: boolean }): Promise<void> {
  try {
    const path = journalRoot();
    const on = !(await journalSwitchedOff());
    if (opts.json) printJson({ path, on });
    else out(path);
  } catch (e) {
    fail(e);
  }
}

/** `journal off`: keep no journal from now on. */
export async function runJournalOff(): Promise<void> {
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
}

/** `journal on`: keep a journal again. */
export async function runJournalOn(): Promise<void> {
  try {
    await updateConfig((c) => {
      delete c.journal;
    });
    out(`journal: on, in ${journalRoot()}`);
  } catch (e) {
    fail(e);
  }
}

/** `journal prune`: delete journal files. */
export async function runJournalPrune(opts: PruneOptions): Promise<void> {
  try {
    await prune(opts);
  } catch (e) {
    fail(e);
  }
}
