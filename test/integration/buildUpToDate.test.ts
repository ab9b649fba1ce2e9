import { execFile } from "node:child_process";
import { statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * `npm run demo` (and `npm test`) start with `npm run build`, which must not recompile nor
 * re-bundle when dist/ is current: `tsc -b` compares the sources with the outputs, and the
 * bundle step (esbuild.config.mjs) the inputs esbuild read last time with the bundle it
 * wrote. Checked with `--dry`, so the test never rebuilds anything itself.
 */

const ROOT = join(import.meta.dirname, "..", "..");

function dryBuild(): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "npm",
      ["run", "build", "--", "--dry", "--verbose"],
      { cwd: ROOT, encoding: "utf8", timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`npm run build --dry failed: ${stderr || error.message}`));
        else resolve(`${stdout}${stderr}`);
      },
    );
  });
}

describe("npm run build", () => {
  it("does nothing when dist/ is newer than every source, and rebuilds after a source changes", async () => {
    // npm test builds first; a run of this file alone needs `npm run build` before.
    const current = await dryBuild();
    expect(current).toMatch(/Project '.*tsconfig\.build\.json' is up to date/);
    expect(current).toMatch(/Bundle 'dist\/cli\/main\.js' is up to date/);

    const source = join(ROOT, "src", "version.ts");
    const before = statSync(source);
    const later = new Date(Date.now() + 3_600_000);
    utimesSync(source, later, later);
    try {
      const stale = await dryBuild();
      expect(stale).toMatch(/A non-dry build would build project '.*tsconfig\.build\.json'/);
      expect(stale).toMatch(/A non-dry build would bundle 'dist\/cli\/main\.js'/);
    } finally {
      utimesSync(source, before.atime, before.mtime);
    }
    const again = await dryBuild();
    expect(again).toMatch(/Project '.*tsconfig\.build\.json' is up to date/);
    expect(again).toMatch(/Bundle 'dist\/cli\/main\.js' is up to date/);
  });
});
