import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { browsableUrl } from "../protocol/review.js";

/**
 * Opening a URL in the user's browser: `open` on macOS, `xdg-open` elsewhere, found on PATH
 * and run with the URL as one argument (never through a shell). Only http(s) URLs are opened
 * (protocol/review.ts browsableUrl): a server's `file:` or `javascript:` URL is refused. Where
 * no opener exists the caller prints the URL instead.
 */

export type OpenOutcome =
  | { kind: "opened"; via: string; url: string }
  | { kind: "no-opener"; url: string }
  | { kind: "refused"; reason: string };

/** The opener command of this platform, found on PATH (null: none). */
export function findOpener(
  platform: NodeJS.Platform = process.platform,
  path: string = process.env.PATH ?? "",
): string | null {
  const name = platform === "darwin" ? "open" : platform === "win32" ? null : "xdg-open";
  if (name === null) return null;
  for (const dir of path.split(delimiter)) {
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

/** Opens the URL with the platform's opener, detached (the browser outlives the command). */
export function openUrl(raw: string, opener: string | null = findOpener()): Promise<OpenOutcome> {
  const url = browsableUrl(raw);
  if (url === null) {
    return Promise.resolve({ kind: "refused", reason: "it is not an http(s) URL" });
  }
  if (opener === null) return Promise.resolve({ kind: "no-opener", url });
  return new Promise((resolve) => {
    const child = spawn(opener, [url], { detached: true, stdio: "ignore", windowsHide: true });
    child.once("error", () => resolve({ kind: "no-opener", url }));
    child.once("spawn", () => {
      child.unref();
      resolve({ kind: "opened", via: opener, url });
    });
  });
}
