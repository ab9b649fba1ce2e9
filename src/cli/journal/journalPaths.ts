import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { stateDir } from "../../credentials/paths.js";

/**
 * Where the journal keeps its files: one folder per service (the same session id on two
 * services is two sessions), one file per session plus its older half.
 *
 *   $XDG_STATE_HOME/agent-sessions/journal/<host>-<hash of the base URL>/<session>.ndjson
 *                                                                       /<session>.1.ndjson
 */

export function journalRoot(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), "journal");
}

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 12);
}

/** The folder of one service: readable host and port, and a hash that tells paths apart. */
export function serviceDirName(baseUrl: string): string {
  let host = "service";
  try {
    host = new URL(baseUrl).host;
  } catch {
    // A base URL that does not parse still gets its own folder, by hash.
  }
  const readable = host.replace(/[^A-Za-z0-9.-]/g, "_").slice(0, 60) || "service";
  return `${readable}-${shortHash(baseUrl)}`;
}

export function serviceJournalDir(baseUrl: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(journalRoot(env), serviceDirName(baseUrl));
}

const SAFE_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** A session id as a file name: as is when it is safe, else by hash (ids are untrusted). */
export function sessionFileBase(sessionId: string): string {
  return SAFE_ID.test(sessionId) ? sessionId : `id-${shortHash(sessionId)}`;
}

/** The current file and the older half of a session's journal. */
export function sessionFiles(dir: string, sessionId: string): { current: string; older: string } {
  const base = sessionFileBase(sessionId);
  return { current: join(dir, `${base}.ndjson`), older: join(dir, `${base}.1.ndjson`) };
}

/**
 * A running client that writes a service's journal holds it: a file `.held-by-<pid>` in the
 * service's folder, made when the journal opens and removed when it closes, so `journal prune`
 * leaves that folder alone while the process lives.
 */
export function holderFile(dir: string, pid = process.pid): string {
  return join(dir, `.held-by-${pid}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, under another user.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The processes holding a service's journal now; holder files of processes that are gone (a
 * client that crashed) are returned as `stale`, for the caller to remove.
 */
export async function journalHolders(dir: string): Promise<{ live: number[]; stale: string[] }> {
  const live: number[] = [];
  const stale: string[] = [];
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return { live, stale };
  }
  for (const name of names) {
    const m = /^\.held-by-(\d{1,10})$/.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    // The file's content is the same pid: a name alone could be left by anything.
    const text = await readFile(join(dir, name), "utf8").catch(() => "");
    if (text.trim() === String(pid) && alive(pid)) live.push(pid);
    else stale.push(join(dir, name));
  }
  return { live, stale };
}
