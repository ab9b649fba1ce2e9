import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Owner-only: the files we write may name hosts, or (opted in) hold a key. */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** A folder of ours, created owner-only; a wider mode left by someone else is narrowed. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (process.platform === "win32") return;
  const st = await stat(dir);
  if ((st.mode & 0o077) !== 0) await chmod(dir, PRIVATE_DIR_MODE);
}

/**
 * Replaces `path` with `data` so a reader sees the old file or the new one, never half of
 * either: write a 0600 temp file beside it, flush it, rename over. Renaming also replaces a
 * symlink at `path` instead of writing through it.
 */
export async function writePrivateFileAtomic(path: string, data: string): Promise<void> {
  const dir = dirname(path);
  await ensurePrivateDir(dir);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  let renamed = false;
  try {
    const fh = await open(tmp, "wx", PRIVATE_FILE_MODE);
    try {
      await fh.writeFile(data, "utf8");
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
    renamed = true;
  } finally {
    if (!renamed) await unlink(tmp).catch(() => {});
  }
}

/** Permission bits of a file, or null when it does not exist. */
export async function fileMode(path: string): Promise<number | null> {
  try {
    return (await stat(path)).mode & 0o777;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

export function formatMode(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, "0")}`;
}
