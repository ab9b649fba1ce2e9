import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/cli.js";

/**
 * What `npm install -g` gives a user: the packed tarball installed into a throwaway prefix
 * (dependencies from the npm cache when it has them), then the installed binary run from
 * there with a clean environment: --version, and a bounded headless demo.
 */

const ROOT = join(import.meta.dirname, "..", "..");
let dir: string;

function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      {
        cwd: opts.cwd ?? ROOT,
        env: opts.env ?? process.env,
        timeout: opts.timeoutMs,
        encoding: "utf8",
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  dir = mkdtempSync(join(tmpdir(), "as-pack-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the npm package", () => {
  it("installs globally from npm pack and runs the demo from there", {
    timeout: 240_000,
  }, async () => {
    const pack = await run("npm", ["pack", "--pack-destination", dir], { timeoutMs: 60_000 });
    expect(pack.code, pack.stderr).toBe(0);
    const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"));
    expect(tarball).toBeDefined();

    const prefix = join(dir, "prefix");
    const install = await run(
      "npm",
      [
        "install",
        "--global",
        "--prefix",
        prefix,
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        join(dir, tarball as string),
      ],
      { timeoutMs: 180_000 },
    );
    expect(install.code, install.stderr).toBe(0);
    const bin = join(prefix, "bin", "agent-sessions");
    expect(existsSync(bin)).toBe(true);

    // Only the installed copy is on PATH; HOME is empty, so no profile or keychain is used.
    const env = {
      PATH: `${join(prefix, "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, "config"),
    };
    const version = await run("agent-sessions", ["--version"], {
      cwd: dir,
      env,
      timeoutMs: 20_000,
    });
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);

    // The bare command loads the UI's own bundle (dist/cli/uiMain.js and its chunks): packed,
    // it gets as far as asking for a terminal, which this one has not.
    const bare = await run("agent-sessions", [], { cwd: dir, env, timeoutMs: 20_000 });
    expect(bare.stderr).toContain("error: the terminal UI needs a terminal");
    expect(bare.code).toBe(2);

    const demo = await run(
      "agent-sessions",
      ["demo", "--headless", "--max-events", "5", "--pace-ms", "20"],
      { cwd: dir, env, timeoutMs: 60_000 },
    );
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stderr).toMatch(
      /^demo: reference service on http:\/\/127\.0\.0\.1:\d+; following ses_/m,
    );
    const lines = demo.stdout.split("\n").filter((l) => l !== "");
    expect(lines.length).toBeGreaterThanOrEqual(1);
    for (const l of lines) expect(l).toMatch(/^\d\d:\d\d:\d\d ses_\S+ (prompt|file|output|state) /);
    expect(existsSync(join(dir, "config"))).toBe(false);
  });
});
