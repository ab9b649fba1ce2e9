import { mkdir, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import type { TimelineEntry } from "../../store/streams/entry.js";
import { toNdjson } from "../../store/streams/ndjson.js";
import type { Redactor } from "../../text/redact.js";

/**
 * Saving a pane's entries as an NDJSON file (see store/streams/ndjson.ts for the lines). The
 * file goes in our state directory, never the working directory (where a repository's
 * `git status` would show it): AGENT_SESSIONS_EXPORT_DIR when set, else
 * `$XDG_STATE_HOME/agent-sessions/exports`, else `~/.local/state/agent-sessions/exports`;
 * the temp directory when that cannot be created. An existing file is never overwritten.
 */

export interface SaveOptions {
  /** Directory to write in; default exportDir(). */
  dir?: string;
  now?: () => number;
  env?: NodeJS.ProcessEnv;
  /** The key's redactor: the file is redacted over each session's entries (see toNdjson). */
  secrets?: Pick<Redactor, "redact" | "stream"> | undefined;
}

/** Where exports go (XDG says a relative XDG_STATE_HOME is invalid and must be ignored). */
export function exportDir(env: NodeJS.ProcessEnv = process.env): string {
  const own = env.AGENT_SESSIONS_EXPORT_DIR;
  if (own && isAbsolute(own)) return own;
  const xdg = env.XDG_STATE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), ".local", "state");
  return join(base, "agent-sessions", "exports");
}

async function usableDir(env: NodeJS.ProcessEnv): Promise<string> {
  const dir = exportDir(env);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return dir;
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
  const dir = opts.dir ?? (await usableDir(opts.env ?? process.env));
  const safeId = sessionId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "session";
  const base = `agent-sessions-${safeId}-${stamp((opts.now ?? Date.now)())}`;
  const body = toNdjson(entries, opts.secrets);
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
