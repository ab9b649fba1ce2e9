import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./proc.js";

/** A Node binary to start the built app with, or why there is none. */
export type NodeBinary = { path: string; version: string } | { reason: string };

/** Where the bench installs Node 24 when BENCH_NODE24 names none (npm's `node` package). */
const PREFIX = join(REPO_ROOT, ".tmp", "node24");
const INSTALLED = join(PREFIX, "node_modules", ".bin", "node");

function versionOf(path: string): string {
  return execFileSync(path, ["--version"], { encoding: "utf8", timeout: 15_000 }).trim();
}

/**
 * The Node 24 that B8 also starts the built app with (the design's target runtime, whose
 * compile cache the app turns on):
 *
 *   BENCH_NODE24=/path/to/node   that binary (it must be Node 24);
 *   BENCH_NODE24=off             none: B8 runs on the harness's Node only;
 *   unset                        .tmp/node24/node_modules/.bin/node, installed there with
 *                                `npm install --prefix .tmp/node24 --no-save node@24` the
 *                                first time (a download of about 30 MB).
 */
export function findNode24(log: (s: string) => void): NodeBinary {
  const asked = process.env.BENCH_NODE24;
  if (asked === "off") return { reason: "BENCH_NODE24=off" };
  try {
    let path = asked;
    if (path === undefined || path === "") {
      path = INSTALLED;
      if (!existsSync(path)) {
        log("B8: installing Node 24 into .tmp/node24 (set BENCH_NODE24 to use another)");
        execFileSync(
          "npm",
          ["install", "--prefix", PREFIX, "--no-save", "--no-audit", "--no-fund", "node@24"],
          { stdio: ["ignore", "ignore", "pipe"], timeout: 300_000 },
        );
      }
    }
    const version = versionOf(path);
    if (!version.startsWith("v24.")) return { reason: `${path} is Node ${version}, not 24` };
    return { path, version };
  } catch (e) {
    const why = e instanceof Error ? e.message.split("\n")[0] : String(e);
    return { reason: `no Node 24 (${why}); set BENCH_NODE24 to a Node 24 binary` };
  }
}
