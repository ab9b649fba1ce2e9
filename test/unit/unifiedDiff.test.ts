import { describe, expect, it } from "vitest";
import {
  diffFilePath,
  diffTotals,
  fileText,
  hunkHeader,
  hunkLines,
  indexUnifiedDiff,
  selectFiles,
} from "../../src/protocol/unifiedDiff.js";

const GIT_DIFF = [
  "diff --git a/src/app.ts b/src/app.ts",
  "index 1111111..2222222 100644",
  "--- a/src/app.ts",
  "+++ b/src/app.ts",
  "@@ -1,3 +1,4 @@ export function main() {",
  " const a = 1;",
  "-const b = 2;",
  "+const b = 3;",
  "+--- not a header",
  " const c = 4;",
  "@@ -10 +11 @@",
  "-x",
  "+y",
  "\\ No newline at end of file",
  "diff --git a/old name.md b/new name.md",
  "similarity index 90%",
  "rename from old name.md",
  "rename to new name.md",
  "diff --git a/script.sh b/script.sh",
  "old mode 100644",
  "new mode 100755",
  "diff --git a/img.png b/img.png",
  "new file mode 100644",
  "index 0000000..3333333",
  "Binary files /dev/null and b/img.png differ",
  "diff --git a/gone.txt b/gone.txt",
  "deleted file mode 100644",
  "index 4444444..0000000",
  "--- a/gone.txt",
  "+++ /dev/null",
  "@@ -1,2 +0,0 @@",
  "-one",
  "-two",
  "diff --git a/logo.bin b/logo.bin",
  "new file mode 100644",
  "index 0000000..5555555",
  "GIT binary patch",
  "literal 4",
  "LcmZQzWMTjS00aO4",
  "",
  "literal 0",
  "HcmV?d00001",
  "",
  "",
].join("\n");

describe("indexUnifiedDiff", () => {
  it("reads git's headers: renames, modes, new, deleted and binary files, counts per file", () => {
    const d = indexUnifiedDiff(GIT_DIFF);
    expect(
      d.files.map((f) => [diffFilePath(f), f.status, f.added, f.removed, f.binary, f.hunks.length]),
    ).toEqual([
      ["src/app.ts", "modified", 3, 2, false, 2],
      ["new name.md", "renamed", 0, 0, false, 0],
      ["script.sh", "modified", 0, 0, false, 0],
      ["img.png", "added", 0, 0, true, 0],
      ["gone.txt", "deleted", 0, 2, false, 1],
      ["logo.bin", "added", 0, 0, true, 0],
    ]);
    const [app, renamed, mode, , gone, bin] = d.files;
    expect(renamed?.oldPath).toBe("old name.md");
    expect(renamed?.similarity).toBe(90);
    expect([mode?.oldMode, mode?.newMode]).toEqual(["100644", "100755"]);
    expect(gone?.newPath).toBeNull();
    expect(bin?.binaryPatch).toBe(true);
    expect(diffTotals(d.files)).toEqual({ files: 6, added: 3, removed: 4 });
    // A file's text is its patch byte for byte: the sections put together are the diff.
    expect(d.files.map((f) => fileText(d, f)).join("")).toBe(GIT_DIFF);
    expect(fileText(d, app as NonNullable<typeof app>)).toContain("+--- not a header\n");
  });

  it("decodes a hunk's lines on demand with both line numbers, a cleaner applied to each", () => {
    const d = indexUnifiedDiff(GIT_DIFF);
    const app = d.files[0];
    if (!app) throw new Error("no file");
    const [h1, h2] = app.hunks;
    if (!h1 || !h2) throw new Error("no hunks");
    expect(hunkHeader(d, h1)).toBe("@@ -1,3 +1,4 @@ export function main() {");
    expect(h1.section).toBe("export function main() {");
    expect(hunkLines(d, h1, (t) => t.toUpperCase())).toEqual([
      { kind: "context", text: "CONST A = 1;", oldNo: 1, newNo: 1 },
      { kind: "removed", text: "CONST B = 2;", oldNo: 2, newNo: null },
      { kind: "added", text: "CONST B = 3;", oldNo: null, newNo: 2 },
      { kind: "added", text: "--- NOT A HEADER", oldNo: null, newNo: 3 },
      { kind: "context", text: "CONST C = 4;", oldNo: 3, newNo: 4 },
    ]);
    expect(hunkLines(d, h2).map((l) => l.kind)).toEqual(["removed", "added", "no-newline"]);
  });

  it("reads a plain unified diff (no diff --git), CRLF lines, quoted paths and a preamble", () => {
    const text = [
      "From: someone",
      "Subject: change",
      "",
      "--- a/one.txt\t2024-01-01 00:00:00",
      "+++ b/one.txt\t2024-01-02 00:00:00",
      "@@ -1 +1 @@",
      "-- removed line that looks like a header",
      "++ added line that looks like a header",
      "--- two.txt",
      "+++ two.txt",
      "@@ -0,0 +1 @@",
      "+new",
      'diff --git "a/caf\\303\\251.txt" "b/caf\\303\\251.txt"',
      '--- "a/caf\\303\\251.txt"\r',
      '+++ "b/caf\\303\\251.txt"\r',
      "@@ -1 +1 @@\r",
      "-a\r",
      "+b\r",
    ].join("\n");
    const d = indexUnifiedDiff(text);
    expect(d.preamble).toEqual({ start: 0, end: text.indexOf("--- a/one.txt") });
    expect(d.files.map((f) => [diffFilePath(f), f.added, f.removed])).toEqual([
      ["one.txt", 1, 1],
      ["two.txt", 1, 0],
      ["café.txt", 1, 1],
    ]);
    const last = d.files[2]?.hunks[0];
    if (!last) throw new Error("no hunk");
    expect(hunkLines(d, last).map((l) => l.text)).toEqual(["a", "b"]);
    expect(selectFiles(d, ["two.txt"]).map(diffFilePath)).toEqual(["two.txt"]);
  });

  it("indexes a 50,000-line diff quickly, holding numbers per hunk, not strings per line", () => {
    const parts: string[] = [];
    for (let f = 0; f < 850; f++) {
      parts.push(`diff --git a/f${f}.ts b/f${f}.ts`, `--- a/f${f}.ts`, `+++ b/f${f}.ts`);
      for (let h = 0; h < 4; h++) {
        parts.push(`@@ -${h * 40 + 1},11 +${h * 40 + 1},12 @@`);
        for (let i = 0; i < 10; i++) parts.push(` line ${i} of hunk ${h}`);
        parts.push(`-old ${h}`, `+new ${h}`, `+more ${h}`);
      }
    }
    const text = parts.join("\n");
    expect(text.split("\n").length).toBeGreaterThanOrEqual(50_000);
    const before = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    const d = indexUnifiedDiff(text);
    const ms = performance.now() - t0;
    const grown = process.memoryUsage().heapUsed - before;
    expect(d.files).toHaveLength(850);
    expect(diffTotals(d.files)).toEqual({ files: 850, added: 6800, removed: 3400 });
    expect(d.lineCount).toBe(text.split("\n").length);
    // Generous for a loaded machine: the pass is a few ms on an idle one.
    expect(ms).toBeLessThan(1500);
    // 3,400 hunks and 850 files: well under the text's own size again.
    expect(grown).toBeLessThan(8 * 1024 * 1024);
  });

  it("never throws on garbage and keeps what it could not read", () => {
    const junk = "@@ nonsense\n\u0000\u001b[31mred\n+++ only\n--- a\n";
    const d = indexUnifiedDiff(junk);
    expect(d.files).toEqual([]);
    expect(d.preamble).toEqual({ start: 0, end: junk.length });
  });
});
