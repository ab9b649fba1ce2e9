import { constants } from "node:fs";
import { access, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TimelineEntry } from "../../store/streams/entry.js";
import { toNdjson } from "../../store/streams/ndjson.js";

/**
 * Saving a pane's entries as an NDJSON file (see store/streams/ndjson.ts for the lines). The
 * file goes in the working directory when it is writable, else in the temp directory; an
 * existing file is never overwritten.
 */

export interface SaveOptions {
  /** Directory to write in; default the cwd if writable, else the temp directory. */
  dir?: string;
  now?: () => number;
}

async function writableDir(): Promise<string> {
  const cwd = process.cwd();
  try {
    await access(cwd, constants.W_OK);
    return cwd;
  } catch {
    return tmpdir();
  }
}

function stamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[:.]/g, "-")
    .replace(/-\d{3}Z$/, "Z");
}

/** Write the file; resolves to its path. */
export async function savePaneNdjson(
  sessionId: string,
  entries: readonly TimelineEntry[],
  opts: SaveOptions = {},
): Promise<string> {
  const dir = opts.dir ?? (await writableDir());
  const safeId = sessionId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "session";
  const base = `agent-sessions-${safeId}-${stamp((opts.now ?? Date.now)())}`;
  const body = toNdjson(entries);
  for (let n = 0; n < 100; n++) {
    const path = join(dir, `${base}${n === 0 ? "" : `-${n}`}.ndjson`);
    try {
      await writeFile(path, body, { flag: "wx", mode: 0o600 });
      return path;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
  throw new Error(`could not find a free file name for ${base}.ndjson in ${dir}`);
}
