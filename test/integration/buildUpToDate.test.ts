import { execFile } from "node:child_process";
import { statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * `npm run demo` (and `npm test`) start with `npm run build`, which must not recompile when
 * dist/ is current: it is `tsc -b`, which compares the sources with the outputs. Checked
 * with `--dry`, so the test never rebuilds anything itself.
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
    expect(await dryBuild()).toMatch(/Project '.*tsconfig\.build\.json' is up to date/);

    const source = join(ROOT, "src", "version.ts");
    const before = statSync(source);
    const later = new Date(Date.now() + 3_600_000);
    utimesSync(source, later, later);
    try {
      expect(await dryBuild()).toMatch(
        /A non-dry build would build project '.*tsconfig\.build\.json'/,
      );
    } finally {
      utimesSync(source, before.atime, before.mtime);
    }
    expect(await dryBuild()).toMatch(/is up to date/);
  });
});
