/**
 * B8-ink's measured process: what Ink and React cost to start and draw the app's first full
 * frame. Started as the built binary is (bundled the same way, through the same pty), it
 * turns on Node's compile cache by src/cli/main.ts's rules (the user's cache folder, or
 * NODE_COMPILE_CACHE), in a folder of its own, then loads Ink and React and draws the frame
 * recorded from the app's own start (argv[2], one line per row with its SGR styles) as one
 * `<Text>` per line. It stays until the bench stops it, as the app does.
 *
 * With `undici` (B8-floor): undici's package entry is loaded first, as the app must before its
 * first requests (the design's one transport): Ink, React and undici together are the floor
 * under the app's first full frame.
 *
 *   node inkStartChild.js FRAME_FILE CACHE_FOLDER_NAME [undici]
 */
import { readFileSync } from "node:fs";
import module from "node:module";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

const [frameFile = "", folderName = "agent-sessions-ink-floor", client = ""] =
  process.argv.slice(2);
const enableCompileCache = (module as { enableCompileCache?: (dir?: string) => unknown })
  .enableCompileCache;
if (enableCompileCache) {
  try {
    const xdg = process.env.XDG_CACHE_HOME;
    const cache = join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".cache"), folderName);
    enableCompileCache(process.env.NODE_COMPILE_CACHE ? undefined : join(cache, "compile-cache"));
  } catch {
    // No cache: start without it, as the app does.
  }
}

// Loaded after the cache is on, as the app loads its client and its UI (chunks of their own).
if (client === "undici") await import("undici");
const { drawFrame } = await import("./inkLines.js");
drawFrame(readFileSync(frameFile, "utf8").split("\n"));
// Until the bench stops it.
setInterval(() => {}, 60_000);
