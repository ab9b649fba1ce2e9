import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import type { OpenUrl } from "../../ui/model/services.js";

/**
 * Opens a URL in the user's browser: `open` on macOS, else `xdg-open`, run without a shell
 * with the URL as its one argument (the caller gives a validated http(s) URL). Where neither
 * is on PATH nothing runs, and the UI shows the URL instead.
 */

function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const full = join(dir, name);
    try {
      accessSync(full, constants.X_OK);
      return full;
    } catch {
      // not here
    }
  }
  return null;
}

export function browserOpener(
  opts: { platform?: NodeJS.Platform; env?: NodeJS.ProcessEnv } = {},
): OpenUrl {
  const platform = opts.platform ?? process.platform;
  const env = opts.env ?? process.env;
  return (url) => {
    const name = platform === "darwin" ? "open" : "xdg-open";
    const bin = onPath(name, env);
    if (!bin) return Promise.resolve({ opened: false, error: `No ${name} here to open it` });
    return new Promise((resolve) => {
      const child = spawn(bin, [url], { stdio: "ignore", detached: true, env });
      child.once("error", (e) => resolve({ opened: false, error: `${name} failed: ${e.message}` }));
      child.once("spawn", () => {
        child.unref();
        resolve({ opened: true });
      });
    });
  };
}
