import { chmod, readFile, unlink } from "node:fs/promises";
import { KeyFileError } from "./errors.js";
import { insecureKeyDir, insecureKeyPath } from "./paths.js";
import {
  ensurePrivateDir,
  fileMode,
  formatMode,
  PRIVATE_FILE_MODE,
  writePrivateFileAtomic,
} from "./privateFile.js";

/**
 * The plain-text opt-in (`login --insecure-storage`): one file per profile,
 * `<config dir>/credentials/<profile>.key`, mode 0600 in a 0700 folder. Only used when the
 * user asked for it. The warning is said where the choice is made (login, the sign-in screen)
 * and by `whoami`, not on every run: reading the file warns only when it repairs its mode.
 */

export function plainTextWarning(path: string): string {
  return `the API key is stored in plain text at ${path} (opted in with --insecure-storage or on the sign-in screen); prefer the OS keychain or AGENT_SESSIONS_API_KEY`;
}

function repairWarning(path: string, from: number): string {
  return `${path} was readable by others (mode ${formatMode(from)}); its mode is now 0600`;
}

function wider(mode: number | null): mode is number {
  return mode !== null && process.platform !== "win32" && (mode & 0o077) !== 0;
}

export interface KeyFileResult {
  path: string;
  /** Writing: the plain-text warning, plus one when wider permissions were repaired; reading: only the latter. */
  warnings: string[];
}

export async function writeInsecureKey(
  profile: string,
  apiKey: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<KeyFileResult> {
  const path = insecureKeyPath(profile, env);
  const warnings: string[] = [];
  try {
    await ensurePrivateDir(insecureKeyDir(env));
    const before = await fileMode(path);
    // Narrow first, so not even the moment before the rename leaves the old key exposed.
    if (wider(before)) {
      await chmod(path, PRIVATE_FILE_MODE);
      warnings.push(repairWarning(path, before));
    }
    await writePrivateFileAtomic(path, `${apiKey}\n`);
  } catch (e) {
    throw new KeyFileError(`cannot write ${path}: ${(e as Error).message}`, path);
  }
  warnings.unshift(plainTextWarning(path));
  return { path, warnings };
}

/** The stored key, or null when the profile has no key file. Repairs wider permissions. */
export async function readInsecureKey(
  profile: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<(KeyFileResult & { apiKey: string }) | null> {
  const path = insecureKeyPath(profile, env);
  const warnings: string[] = [];
  let text: string;
  try {
    const mode = await fileMode(path);
    if (mode === null) return null;
    if (wider(mode)) {
      await chmod(path, PRIVATE_FILE_MODE);
      warnings.push(repairWarning(path, mode));
    }
    text = await readFile(path, "utf8");
  } catch (e) {
    throw new KeyFileError(`cannot read ${path}: ${(e as Error).message}`, path);
  }
  const apiKey = text.trim();
  if (apiKey === "") return null;
  return { path, apiKey, warnings };
}

/** True when a key file was removed. */
export async function deleteInsecureKey(
  profile: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  const path = insecureKeyPath(profile, env);
  try {
    await unlink(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw new KeyFileError(`cannot remove ${path}: ${(e as Error).message}`, path);
  }
}

export async function insecureKeyExists(
  profile: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  return (await fileMode(insecureKeyPath(profile, env))) !== null;
}
