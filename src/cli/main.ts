#!/usr/bin/env node
import module from "node:module";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** The user's cache folder for this program, or null when there is no home to put it in. */
function cacheFolder(): string | null {
  try {
    const xdg = process.env.XDG_CACHE_HOME;
    return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".cache"), "agent-sessions");
  } catch {
    return null;
  }
}

// Before anything else loads: Node 22.1+ keeps compiled code of this program on disk, so a
// second start skips most of the parsing (Node 20 has no compile cache: every start there
// compiles everything). It lives with the user's other caches, not in the temporary folder
// (Node's default), unless NODE_COMPILE_CACHE names a folder; NODE_DISABLE_COMPILE_CACHE=1
// turns it off; a cache that cannot be written only costs speed.
const enableCompileCache = (module as { enableCompileCache?: (dir?: string) => unknown })
  .enableCompileCache;
const cache = cacheFolder();
if (enableCompileCache && cache !== null) {
  try {
    enableCompileCache(process.env.NODE_COMPILE_CACHE ? undefined : join(cache, "compile-cache"));
  } catch {
    // No cache: start without it.
  }
}
// The published binary is one minified bundle; with AGENT_SESSIONS_DEBUG its source map
// makes stack traces (the key still redacted) name src/ files and lines. Only then: on
// Node 20 loading the maps costs about a third of the start-up time.
const debug = Boolean(process.env.AGENT_SESSIONS_DEBUG);
if (debug) process.setSourceMapsEnabled(true);
// React (loaded lazily with the UI) must run its production build: the development build
// costs about a quarter of the frame rate (see docs/performance.md). The
// bundle has this fixed at build time; the unbundled tree reads it here (through an alias,
// which the bundler's constant leaves alone).
const env = process.env;
env.NODE_ENV ??= "production";

/** Anything on the command line: the program (commander) parses it. */
async function runProgram(argv: string[]): Promise<number> {
  const { runCommand } = await import("./output.js");
  return runCommand(async () => (await import("./program.js")).main(argv));
}

/**
 * `agent-sessions` with nothing after it is the program's root action with no words: the UI.
 * It starts straight away, without building the command line (commander and every command's
 * definition): the bundle loads the UI's chunks only.
 */
async function runUi(): Promise<number> {
  return (await import("./uiMain.js")).runBareUi();
}

try {
  process.exitCode = process.argv.length > 2 ? await runProgram(process.argv) : await runUi();
} catch (e) {
  // Only a failure to load the program itself ends up here.
  process.exitCode = (await import("./output.js")).reportError(e);
}
