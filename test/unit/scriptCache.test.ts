import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KEPT_ENTRIES, loadScript } from "../../src/cli/scriptCache.js";

/**
 * The UI's start-up script runs through V8's code cache (src/cli/scriptCache.ts): real files in
 * a temporary folder, compiled and run by V8 for real.
 */

const SCRIPT = [
  "const sep = await Promise.resolve(require('node:path').sep);",
  "function answer() { return sep === '/' ? 42 : 41; }",
  "__agentSessionsScript.run = async () => answer();",
  "__agentSessionsScript.url = __agentSessionsImportMetaUrl;",
].join("\n");

let dir: string;
let path: string;
let cacheDir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "as-script-cache-"));
  path = join(dir, "ui-test.js");
  cacheDir = join(dir, "cache", "code-cache");
  writeFileSync(path, SCRIPT);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const entry = () => join(cacheDir, "k.v8");

describe("a script run with V8's code cache", () => {
  it("runs without a cache, then keeps its compiled code privately for the next start", async () => {
    const first = await loadScript({ path, cacheDir, key: "k" });
    expect(first.cache).toBe("missing");
    expect(await first.exports.run?.()).toBe(process.platform === "win32" ? 41 : 42);
    expect((first.exports as { url?: string }).url).toBe(`file://${path}`);
    first.saveCache();
    expect(statSync(entry()).size).toBeGreaterThan(0);
    // Later in the same start: what ran since is kept as well.
    first.saveCache();
    expect(statSync(entry()).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);

    const second = await loadScript({ path, cacheDir, key: "k" });
    expect(second.cache).toBe("used");
    expect(await second.exports.run?.()).toBe(42);
    const before = readFileSync(entry());
    second.saveCache();
    expect(readFileSync(entry()).equals(before)).toBe(true);
  });

  it("writes a rejected entry again, and runs all the same", async () => {
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(entry(), Buffer.alloc(4096, 7));
    const loaded = await loadScript({ path, cacheDir, key: "k" });
    expect(loaded.cache).toBe("rejected");
    expect(await loaded.exports.run?.()).toBe(42);
    loaded.saveCache();
    const again = await loadScript({ path, cacheDir, key: "k" });
    expect(again.cache).toBe("used");
  });

  it("reads and writes nothing when the cache is off", async () => {
    const loaded = await loadScript({ path, cacheDir: null, key: "k" });
    expect(loaded.cache).toBe("off");
    loaded.saveCache();
    expect(readdirSync(dir)).toEqual(["ui-test.js"]);
  });

  it("starts when the cache cannot be written, and says nothing about it", async () => {
    const blocked = join(dir, "a-file");
    writeFileSync(blocked, "");
    const loaded = await loadScript({ path, cacheDir: join(blocked, "code-cache"), key: "k" });
    expect(await loaded.exports.run?.()).toBe(42);
    expect(() => loaded.saveCache()).not.toThrow();
  });

  it("keeps the script's line numbers in stack traces", async () => {
    writeFileSync(path, "const a = 1;\nthrow new Error('boom ' + a);\n");
    const failed = await loadScript({ path, cacheDir, key: "k" }).catch((e: Error) => e);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).stack).toContain(`${path}:2:`);
  });

  it(`keeps the ${KEPT_ENTRIES} newest entries, the one just written among them`, async () => {
    mkdirSync(cacheDir, { recursive: true });
    for (let i = 0; i < KEPT_ENTRIES + 2; i++) {
      const old = join(cacheDir, `old-${i}.v8`);
      writeFileSync(old, "x");
      const t = new Date(Date.now() - (i + 1) * 60_000);
      utimesSync(old, t, t);
    }
    const loaded = await loadScript({ path, cacheDir, key: "k" });
    loaded.saveCache();
    const left = readdirSync(cacheDir).sort();
    expect(left).toHaveLength(KEPT_ENTRIES);
    expect(left).toContain("k.v8");
    expect(left).toContain("old-0.v8");
    expect(left).not.toContain(`old-${KEPT_ENTRIES + 1}.v8`);
  });
});
