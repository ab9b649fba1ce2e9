import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import vm from "node:vm";

/**
 * Runs a script bundle with V8's code cache, kept on disk between starts.
 *
 * Node 20 keeps no compiled code between runs, and the compile cache of Node 22+ keeps only
 * what was compiled before a module ran. A `vm.Script` can hand V8 the code of an earlier run
 * (`cachedData`) and, after running, give back everything compiled so far, the functions the
 * start-up called included (`createCachedData`). For the UI that is most of the parsing and
 * compiling of Ink, React, yoga, undici, zod and our own code: about a third of a start.
 *
 * The script is an esbuild bundle with no import or export statements (Node's built-ins come
 * through `require`); it may use top-level await (Ink and yoga do), so it runs as the body of
 * an async function. A cache entry is named by a key that must change whenever the script
 * does (its content hash, Node's version, the CPU architecture): V8 checks its own version and
 * flags, but only the length of the source. An entry V8 rejects is written again; one that
 * cannot be read or written only costs the time it would have saved.
 */

export interface ScriptOptions {
  /** The script's file. */
  path: string;
  /** Where compiled code is kept; null: none is read or written. */
  cacheDir: string | null;
  /** The cache entry's name (see above). */
  key: string;
}

/** What the script hands out through the object the loader passes to it. */
export interface ScriptExports {
  run?: () => Promise<number>;
}

export interface LoadedScript {
  exports: ScriptExports;
  /** How the cache served this start. */
  cache: "used" | "missing" | "rejected" | "off";
  /**
   * Keeps the code compiled so far for the next start, unless the cache already held it when
   * this start began. A later call keeps what was compiled since as well. Never throws.
   */
  saveCache(): void;
}

/** Cache entries kept in the folder (a few versions side by side); older ones are removed. */
export const KEPT_ENTRIES = 4;

const PARAMS = "require, __agentSessionsImportMetaUrl, __agentSessionsScript";

export async function loadScript(opts: ScriptOptions): Promise<LoadedScript> {
  const source = readFileSync(opts.path, "utf8");
  const dir = opts.cacheDir;
  const entry = dir === null ? null : join(dir, `${opts.key}.v8`);
  let cachedData: Buffer | undefined;
  if (entry !== null) {
    try {
      cachedData = readFileSync(entry);
    } catch {
      cachedData = undefined;
    }
  }
  // The wrapper's first line is line 0, so the script's lines keep their numbers.
  const script = new vm.Script(`(async function (${PARAMS}) {\n${source}\n})`, {
    filename: opts.path,
    lineOffset: -1,
    ...(cachedData ? { cachedData } : {}),
  });
  const cache: LoadedScript["cache"] =
    entry === null
      ? "off"
      : cachedData === undefined
        ? "missing"
        : script.cachedDataRejected
          ? "rejected"
          : "used";
  const exports: ScriptExports = {};
  const body = script.runInThisContext() as (
    require: NodeJS.Require,
    importMetaUrl: string,
    exports: ScriptExports,
  ) => Promise<void>;
  await body(createRequire(opts.path), pathToFileURL(opts.path).href, exports);
  const keep = cache === "missing" || cache === "rejected";
  return {
    exports,
    cache,
    saveCache() {
      if (!keep || dir === null || entry === null) return;
      try {
        writeEntry(dir, entry, script.createCachedData());
      } catch {
        // No cache this time: the next start compiles again.
      }
    },
  };
}

/** Written whole or not at all (another start may be reading it), private to the user. */
function writeEntry(dir: string, entry: string, data: Buffer): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${entry}.${process.pid}.tmp`;
  const fd = openSync(tmp, "w", 0o600);
  try {
    writeSync(fd, data);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, entry);
  prune(dir);
}

function prune(dir: string): void {
  const entries = readdirSync(dir)
    .filter((f) => f.endsWith(".v8"))
    .map((f) => {
      const path = join(dir, f);
      return { path, mtime: statSync(path).mtimeMs };
    })
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of entries.slice(KEPT_ENTRIES)) rmSync(old.path, { force: true });
}
