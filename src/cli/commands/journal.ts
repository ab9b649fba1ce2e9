import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { updateConfig } from "../../credentials/profiles.js";
import { formatBytes } from "../../text/format.js";
import { journalRoot, sessionFileBase } from "../journal/journalPaths.js";
import { journalSwitchedOff } from "../journal/journalSetup.js";
import { fail, out, printJson } from "../output.js";

/** `agent-sessions journal path|on|off|prune`: where the journal is, and managing it. */

export interface PruneOptions {
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
