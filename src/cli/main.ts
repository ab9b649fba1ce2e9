#!/usr/bin/env node
import module from "node:module";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

// Before anything else loads: Node 22.1+ keeps compiled code of this program on disk, so a
// second start skips most of the parsing (Node 20 has no compile cache; nothing to do there).
// It lives with the user's other caches, not in the temporary folder (Node's default), unless
// NODE_COMPILE_CACHE names a folder; a cache that cannot be written only costs speed.
const enableCompileCache = (module as { enableCompileCache?: (dir?: string) => unknown })
  .enableCompileCache;
if (enableCompileCache) {
  try {
    const xdg = process.env.XDG_CACHE_HOME;
    const cacheHome = xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".cache");
    enableCompileCache(
      process.env.NODE_COMPILE_CACHE
        ? undefined
        : join(cacheHome, "agent-sessions", "compile-cache"),
    );
  } catch {
    // No home folder or no cache: start without it.
  }
}
// The published binary is one minified bundle; with AGENT_SESSIONS_DEBUG its source map
// makes stack traces (the key still redacted) name src/ files and lines. Only then: on
// Node 20 loading the maps costs about a third of the start-up time.
if (process.env.AGENT_SESSIONS_DEBUG) process.setSourceMapsEnabled(true);
// React (loaded lazily with the UI) must run its production build: the development build
// costs about a quarter of the frame rate (see docs/performance.md). The
// bundle has this fixed at build time; the unbundled tree reads it here (through an alias,
// which the bundler's constant leaves alone).
const env = process.env;
env.NODE_ENV ??= "production";

// Loaded after the cache is on, so the whole program benefits from it.
const { exitCodeSet, handleClosedOutput, reportError, stdoutClosed } = await import("./output.js");

// `agent-sessions … | head`: a reader that goes away ends the command quietly, exit 0.
handleClosedOutput();

process.on("unhandledRejection", (reason) => {
  process.exitCode = reportError(reason);
});

/**
 * `agent-sessions` with nothing after it is the program's root action with no words: the UI.
 * It starts straight away, without building the command line first (commander and every
 * command's definition: about 17 ms of the start). Anything else goes through the program.
 */
async function run(argv: string[]): Promise<number> {
  if (argv.length > 2) return (await import("./program.js")).main(argv);
  try {
    const { startUi } = await import("./commands/ui.js");
    await startUi({}, []);
    return exitCodeSet();
  } catch (e) {
    return reportError(e);
  }
}

const code = await run(process.argv);
process.exitCode = stdoutClosed.aborted ? 0 : code;
