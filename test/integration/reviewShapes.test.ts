import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { diffFilePath, indexUnifiedDiff } from "../../src/protocol/unifiedDiff.js";
import {
  ANNOUNCED_LIMITS,
  json,
  raw,
  type ScriptedServer,
  startScriptedServer,
} from "../helpers/scriptedHttpServer.js";

/**
 * The review calls against servers that make other spec-legal choices: the git `result` is
 * "operation-specific" (a patch under diff, output, stdout, a bare string, per-file patches),
 * status as lists or porcelain text, files sent as base64, and answers that hold nothing
 * usable, said as such. The learned git path and the `v2` family's mount are used as for
 * every other call.
 */

const KEY = "sk_test_0123456789abcdef0123456789";
const PATCH = [
  "diff --git a/a.txt b/a.txt",
  "--- a/a.txt",
  "+++ b/a.txt",
  "@@ -1 +1 @@",
  "-old",
  "+new",
  "",
].join("\n");

let server: ScriptedServer | null = null;
let client: ApiClient | null = null;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = null;
  server = null;
});

async function against(...answers: Parameters<ScriptedServer["reply"]>): Promise<ApiClient> {
  server = await startScriptedServer();
  server.reply(...answers);
  client = new ApiClient({ baseUrl: server.url, apiKey: KEY, maxAttempts: 1 });
  return client;
}

describe("git diff: wherever the patch is", () => {
  const shapes: [string, unknown][] = [
    ["result.diff", { operation: "diff", success: true, result: { diff: PATCH } }],
    ["result.output", { operation: "diff", success: true, result: { output: PATCH } }],
    ["result.stdout", { success: true, result: { stdout: PATCH, exit_code: 0 } }],
    ["result", { operation: "diff", success: true, result: PATCH }],
    ["diff", { success: true, diff: PATCH }],
  ];
  for (const [from, body] of shapes) {
    it(`reads it from ${from}`, async () => {
      const c = await against(json(200, body, ANNOUNCED_LIMITS));
      const { answer, reading } = await c.gitDiff("ses_a1");
      expect(answer.ok).toBe(true);
      expect(reading).toEqual({ kind: "patch", patch: PATCH, from });
    });
  }

  it("reads a bare text answer and a list of files with their own hunks", async () => {
    const c = await against(
      raw(200, PATCH, { "content-type": "text/plain", ...ANNOUNCED_LIMITS }),
      json(
        200,
        {
          success: true,
          result: {
            files: [
              { filename: "src/x.ts", status: "modified", patch: "@@ -1 +1 @@\n-a\n+b" },
              { path: "new.md", status: "added", patch: "@@ -0,0 +1,2 @@\n+one\n+two\n" },
            ],
          },
        },
        ANNOUNCED_LIMITS,
      ),
    );
    expect((await c.gitDiff("ses_a1")).reading).toEqual({
      kind: "patch",
      patch: PATCH,
      from: "body",
    });
    const files = (await c.gitDiff("ses_a1")).reading;
    if (files.kind !== "patch") throw new Error(`not a patch: ${files.kind}`);
    expect(files.from).toBe("result.files[].patch");
    const d = indexUnifiedDiff(files.patch);
    expect(d.files.map((f) => [diffFilePath(f), f.status, f.added, f.removed])).toEqual([
      ["src/x.ts", "modified", 1, 1],
      ["new.md", "added", 2, 0],
    ]);
  });

  it("says when the answer holds nothing usable, and when it is an empty diff", async () => {
    const c = await against(
      json(
        200,
        { operation: "diff", success: true, result: { sha: "abc", files_changed: 3 } },
        ANNOUNCED_LIMITS,
      ),
      json(200, { operation: "diff", success: true, result: { diff: "" } }, ANNOUNCED_LIMITS),
    );
    expect((await c.gitDiff("ses_a1")).reading).toEqual({
      kind: "unusable",
      reason:
        "the answer held no patch (fields operation, success, result; result: sha, files_changed)",
    });
    expect((await c.gitDiff("ses_a1")).reading).toEqual({ kind: "empty", from: "result.diff" });
  });

  it("sends the documented {operation, args} body, to /git once /git/operation is missing", async () => {
    const c = await against(
      json(404, { detail: "Not Found" }, ANNOUNCED_LIMITS),
      json(200, { success: true, result: { diff: PATCH } }, ANNOUNCED_LIMITS),
      json(200, { success: true, result: { files: [] } }, ANNOUNCED_LIMITS),
    );
    await c.gitDiff("ses_a1");
    await c.gitStatus("ses_a1");
    const seen = server?.seen ?? [];
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      "POST /api/sessions/ses_a1/git/operation",
      "POST /api/sessions/ses_a1/git",
      // Learned: the next review operation goes straight to the path that answered.
      "POST /api/sessions/ses_a1/git",
    ]);
    expect(JSON.parse(seen[1]?.body ?? "")).toEqual({ operation: "diff", args: {} });
    expect(JSON.parse(seen[2]?.body ?? "")).toEqual({ operation: "status", args: {} });
  });
});

describe("a 50,000-line diff through the client", () => {
  it("is read and indexed whole, with its counts, in bounded time", async () => {
    const parts: string[] = [];
    for (let f = 0; f < 850; f++) {
      parts.push(`diff --git a/f${f}.ts b/f${f}.ts`, `--- a/f${f}.ts`, `+++ b/f${f}.ts`);
      for (let h = 0; h < 4; h++) {
        parts.push(`@@ -${h * 40 + 1},11 +${h * 40 + 1},12 @@`);
        for (let i = 0; i < 10; i++) parts.push(` line ${i} of hunk ${h}`);
        parts.push(`-old ${h}`, `+new ${h}`, `+more ${h}`);
      }
    }
    const patch = `${parts.join("\n")}\n`;
    const c = await against(
      json(200, { operation: "diff", success: true, result: { diff: patch } }, ANNOUNCED_LIMITS),
    );
    const t0 = performance.now();
    const { reading } = await c.gitDiff("ses_big");
    if (reading.kind !== "patch") throw new Error(reading.kind);
    const index = indexUnifiedDiff(reading.patch);
    const ms = performance.now() - t0;
    expect(reading.patch).toBe(patch);
    expect(index.lineCount).toBeGreaterThanOrEqual(50_000);
    expect(index.files).toHaveLength(850);
    expect(index.files.every((f) => f.added === 8 && f.removed === 4)).toBe(true);
    // About 2 MB over loopback and one pass: well under a second on an idle machine.
    expect(ms).toBeLessThan(5_000);
  });
});

describe("git status and log in their shapes", () => {
  it("reads lists of objects, staged/unstaged groups and porcelain text", async () => {
    const c = await against(
      json(
        200,
        {
          success: true,
          result: {
            branch: "agent/x",
            files: [
              { path: "a.ts", status: "M" },
              { file: "b.ts", change_type: "added" },
            ],
          },
        },
        ANNOUNCED_LIMITS,
      ),
      json(
        200,
        {
          success: true,
          result: { staged: ["s.ts"], unstaged: [{ path: "u.ts" }], untracked: ["n.ts"] },
        },
        ANNOUNCED_LIMITS,
      ),
      json(
        200,
        {
          success: true,
          result: { output: "## main...origin/main\n M x.ts\nR  old.ts -> new.ts\n?? tmp/\n" },
        },
        ANNOUNCED_LIMITS,
      ),
      json(200, { success: true, result: { sha: "abc" } }, ANNOUNCED_LIMITS),
    );
    const a = await c.gitStatus("ses_a1");
    expect(a.reading).toEqual({
      kind: "status",
      branch: "agent/x",
      from: "result.files",
      files: [
        { path: "a.ts", from: null, change: "modified", staged: null },
        { path: "b.ts", from: null, change: "added", staged: null },
      ],
    });
    const b = await c.gitStatus("ses_a1");
    expect(
      b.reading.kind === "status" && b.reading.files.map((f) => [f.path, f.change, f.staged]),
    ).toEqual([
      ["s.ts", "modified", true],
      ["u.ts", "modified", false],
      ["n.ts", "untracked", false],
    ]);
    const p = await c.gitStatus("ses_a1");
    expect(p.reading).toEqual({
      kind: "status",
      branch: "main",
      from: "result.output",
      files: [
        { path: "x.ts", from: null, change: "modified", staged: false },
        { path: "new.ts", from: "old.ts", change: "renamed", staged: true },
        { path: "tmp/", from: null, change: "untracked", staged: false },
      ],
    });
    expect((await c.gitStatus("ses_a1")).reading.kind).toBe("unusable");
  });

  it("reads commits as objects or as git log text", async () => {
    const c = await against(
      json(
        200,
        {
          success: true,
          result: {
            commits: [
              {
                sha: "a1b2c3d",
                message: "feat: x\n\nbody",
                author: { name: "Ada" },
                date: "2026-01-01",
              },
            ],
          },
        },
        ANNOUNCED_LIMITS,
      ),
      json(
        200,
        { success: true, result: { output: "a1b2c3d feat: x\nb2c3d4e fix: y\n" } },
        ANNOUNCED_LIMITS,
      ),
    );
    expect((await c.gitLog("ses_a1")).reading).toEqual({
      kind: "log",
      from: "result.commits",
      commits: [{ sha: "a1b2c3d", subject: "feat: x", author: "Ada", date: "2026-01-01" }],
    });
    const t = await c.gitLog("ses_a1");
    expect(t.reading.kind === "log" && t.reading.commits.map((x) => x.subject)).toEqual([
      "feat: x",
      "fix: y",
    ]);
  });

  it("a success: false answer is not ok, with the service's words", async () => {
    const c = await against(
      json(
        200,
        { operation: "diff", success: false, error: "not a git repository" },
        ANNOUNCED_LIMITS,
      ),
    );
    const r = await c.gitDiff("ses_a1");
    expect(r.answer.ok).toBe(false);
    expect(r.answer.error).toBe("not a git repository");
  });
});

describe("files, workspace state, rewind and connect", () => {
  it("reads lenient file lists, base64 files, search results and ports", async () => {
    const c = await against(
      json(
        200,
        {
          entries: [
            { path: "/src/a.ts", type: "f", size: "12" },
            { name: "lib", is_dir: true },
          ],
        },
        ANNOUNCED_LIMITS,
      ),
      json(
        200,
        {
          path: "/logo.png",
          content: Buffer.from([0x89, 0x50, 0, 1]).toString("base64"),
          encoding: "base64",
        },
        ANNOUNCED_LIMITS,
      ),
      raw(200, "plain text file\n", { "content-type": "text/plain", ...ANNOUNCED_LIMITS }),
      json(
        200,
        { results: [{ path: "/a.ts", matches: [{ line: "3", content: "TODO" }] }, "/b.ts"] },
        ANNOUNCED_LIMITS,
      ),
      json(
        200,
        {
          detected_ports: [{ port: 3000, process: "node" }, { port: 99999 }, 5432],
          running_processes: ["npm run dev", { pid: 7, command: "pg" }],
        },
        ANNOUNCED_LIMITS,
      ),
    );
    expect(await c.listFiles("ses_a1", { path: "/src", recursive: true })).toEqual([
      { name: "a.ts", path: "/src/a.ts", type: "file", size: 12 },
      { name: "lib", path: "lib", type: "directory", size: null },
    ]);
    expect(server?.seen[0]?.url).toBe("/api/sessions/ses_a1/files?path=%2Fsrc&recursive=true");
    const png = await c.readFile("ses_a1", "/logo.png");
    expect([...png.bytes]).toEqual([0x89, 0x50, 0, 1]);
    expect(png.binary).toBe(true);
    const txt = await c.readFile("ses_a1", "/notes.txt");
    expect(new TextDecoder().decode(txt.bytes)).toBe("plain text file\n");
    expect(txt.path).toBe("/notes.txt");
    expect(await c.searchFiles("ses_a1", "TODO")).toEqual([
      { path: "/a.ts", matches: [{ line: 3, content: "TODO" }] },
      { path: "/b.ts", matches: [] },
    ]);
    const ws = await c.workspaceState("ses_a1");
    expect(ws.ports).toEqual([
      { port: 3000, process: "node" },
      { port: 5432, process: null },
    ]);
    expect(ws.processes).toEqual([
      { pid: null, command: "npm run dev" },
      { pid: 7, command: "pg" },
    ]);
  });

  it("rewinds, and connects through the v2 family's mount, learned like any other", async () => {
    const c = await against(
      json(
        200,
        { session_id: "ses_a1", rewound: true, reverted_files: ["/src/a.ts", 3] },
        ANNOUNCED_LIMITS,
      ),
      // The v2 family is served under /api/cloud only here.
      json(404, { detail: "Not Found" }, ANNOUNCED_LIMITS),
      json(200, { preview_url: "https://3000-sb.example.test", port: 3000 }, ANNOUNCED_LIMITS),
    );
    expect(await c.rewindPrompt("ses_a1")).toEqual({
      sessionId: "ses_a1",
      rewound: true,
      revertedFiles: ["/src/a.ts"],
    });
    expect(await c.connectPort("ses_a1", 3000)).toEqual({
      previewUrl: "https://3000-sb.example.test",
      port: 3000,
    });
    expect(server?.seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      "POST /api/sessions/ses_a1/prompt/rewind",
      "POST /api/v2/sessions/ses_a1/connect?port=3000",
      "POST /api/cloud/v2/sessions/ses_a1/connect?port=3000",
    ]);
    await expect(c.connectPort("ses_a1", 70000)).rejects.toThrow(/not a port number/);
  });

  it("an answer that cannot be read is a malformed answer naming the field", async () => {
    const c = await against(
      json(200, { files: "nope" }, ANNOUNCED_LIMITS),
      json(200, { rewound: true }, ANNOUNCED_LIMITS),
    );
    await expect(c.listFiles("ses_a1")).rejects.toThrow(/files: expected a list of files/);
    expect(await c.rewindPrompt("ses_a1")).toEqual({
      sessionId: null,
      rewound: true,
      revertedFiles: [],
    });
  });
});
