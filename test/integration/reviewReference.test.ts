import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { HttpError, MissingScopeError } from "../../src/client/errors.js";
import { diffFilePath, indexUnifiedDiff } from "../../src/protocol/unifiedDiff.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { advanceUntil } from "../helpers/simulatedClock.js";

/**
 * The reference service's review routes in its seeded manual-clock mode: git status, diff
 * and log from the session's real workspace (binary files included), its files, a file, a
 * search, the workspace state, a rewind that really reverts the last prompt's files, and the
 * v2 connect; a read-only key reads files but gets the scope error for git; a paused session
 * is refused with the documented words. The documented limits: 100 a minute, burst 20.
 */

let ref: ReferenceServer;
let owner: ApiClient;
let id: string;
let ws: string;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
  });

const client = (key: string) => new ApiClient({ baseUrl: ref.url, apiKey: key, maxAttempts: 3 });

beforeAll(async () => {
  ref = await startServer({
    seed: 32,
    clock: "manual",
    sessionCount: 3,
    rateLimit: { limit: 100, windowMs: 60_000, burst: 20 },
  });
  owner = client(ref.key("owner"));
  const active = ref.sessions().find((r) => r.state === "active");
  if (!active) throw new Error("no active session in the seed");
  id = active.id;
  await owner.git(id, { kind: "clone", repoUrl: "https://github.com/demo/app.git" });
  ws = join(ref.dataDir, "workspaces", id);
  // The simulated agent works until it has changed files of its workspace.
  let n = 0;
  await advanceUntil(
    ref,
    () => ++n % 10 === 0 && git(ws, "status", "--porcelain") !== "",
    "the agent changed a file",
    { stepMs: 100, maxSteps: 5_000 },
  );
  if (ref.sessions().find((r) => r.id === id)?.state === "paused") await owner.resume(id);
});

afterAll(async () => {
  await owner?.close();
  await ref?.close();
});

describe("reference service: review", () => {
  it("answers status, diff and log from the real workspace, binary files included", async () => {
    // The agent also leaves an image: a binary file is named and its patch applies.
    writeFileSync(join(ws, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2, 3]));
    const st = await owner.gitStatus(id);
    expect(st.answer.ok).toBe(true);
    if (st.reading.kind !== "status") throw new Error(st.reading.kind);
    const changed = git(ws, "status", "--porcelain", "--untracked-files=all")
      .split("\n")
      .filter(Boolean)
      .map((l) => l.slice(3));
    expect(st.reading.files.map((f) => f.path).sort()).toEqual(changed.sort());
    expect(st.reading.files.find((f) => f.path === "logo.png")?.change).toBe("untracked");

    const d = await owner.gitDiff(id);
    if (d.reading.kind !== "patch") throw new Error(d.reading.kind);
    const index = indexUnifiedDiff(d.reading.patch);
    expect(index.files.map(diffFilePath).sort()).toEqual(changed.sort());
    const png = index.files.find((f) => diffFilePath(f) === "logo.png");
    expect(png).toMatchObject({ binary: true, binaryPatch: true, status: "added" });
    const text = index.files.filter((f) => !f.binary);
    expect(text.every((f) => f.added > 0)).toBe(true);

    const log = await owner.gitLog(id);
    if (log.reading.kind !== "log") throw new Error(log.reading.kind);
    expect(log.reading.commits[0]?.sha).toBe(git(ws, "rev-parse", "HEAD").trim());
  });

  it("lists, reads and searches the workspace's files", async () => {
    const top = await owner.listFiles(id);
    expect(top.map((f) => f.path)).toContain("/README.md");
    expect(top.find((f) => f.path === "/src")?.type).toBe("directory");
    expect(top.some((f) => f.path.startsWith("/.git"))).toBe(false);
    const all = await owner.listFiles(id, { path: "/src", recursive: true });
    expect(all.every((f) => f.path.startsWith("/src/"))).toBe(true);
    expect(all.some((f) => f.path.split("/").length > 3)).toBe(true);

    const readme = await owner.readFile(id, "/README.md");
    expect(new TextDecoder().decode(readme.bytes)).toBe(
      readFileSync(join(ws, "README.md"), "utf8"),
    );
    const png = await owner.readFile(id, "logo.png");
    expect(png.binary).toBe(true);
    expect([...png.bytes]).toEqual([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2, 3]);
    await expect(owner.readFile(id, "/../../etc/passwd")).rejects.toThrow(/outside the workspace/);

    const word = readFileSync(join(ws, "README.md"), "utf8")
      .split(/\s+/)
      .find((w) => w.length > 4);
    const found = await owner.searchFiles(id, word as string);
    const hit = found.find((r) => r.path === "/README.md");
    expect(hit?.matches.length).toBeGreaterThan(0);
    expect(hit?.matches[0]?.content.toLowerCase()).toContain((word as string).toLowerCase());
  });

  it("reports detected ports and connects to one of them", async () => {
    const state = await owner.workspaceState(id);
    const record = ref.sessions().find((r) => r.id === id);
    // A session of a web template serves a preview: its dev server is detected on 3000.
    expect(record?.preview_url).toMatch(/^https:/);
    expect(state.ports.map((p) => p.port)).toContain(3000);
    expect(state.processes.map((p) => p.command)).toContain("npm run dev");
    const c = await owner.connectPort(id, 3000);
    expect(c).toEqual({ previewUrl: expect.stringMatching(/^https:\/\/3000-/), port: 3000 });
    const err = await owner.connectPort(id, 4321).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(502);
  });

  it("rewinds the last prompt: its files go back as they were, and are named", async () => {
    const snapshot = () => {
      const files = git(ws, "ls-files", "--cached", "--others", "--exclude-standard").split("\n");
      return new Map(files.filter(Boolean).map((f) => [f, readFileSync(join(ws, f), "utf8")]));
    };
    const before = snapshot();
    const r = await owner.rewindPrompt(id);
    expect(r.sessionId).toBe(id);
    expect(r.rewound).toBe(true);
    expect(r.revertedFiles.length).toBeGreaterThan(0);
    const after = snapshot();
    const reverted = new Set(r.revertedFiles.map((f) => f.replace(/^\//, "")));
    for (const [path, text] of before) {
      // A file the prompt created is gone, one it edited holds less; the others are as they were.
      if (reverted.has(path)) expect(after.get(path)).not.toBe(text);
      else expect(after.get(path)).toBe(text);
    }
    // Rewinding again: nothing left of that prompt.
    expect(await owner.rewindPrompt(id)).toEqual({
      sessionId: id,
      rewound: false,
      revertedFiles: [],
    });
  });

  it("a read-only key reads files but not git, and is told the scope", async () => {
    const ro = client(ref.key("readonly"));
    try {
      expect((await ro.listFiles(id)).length).toBeGreaterThan(0);
      const e = await ro.gitDiff(id).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(MissingScopeError);
      expect((e as Error).message).toContain("sessions:write");
      await expect(ro.rewindPrompt(id)).rejects.toBeInstanceOf(MissingScopeError);
    } finally {
      await ro.close();
    }
  });

  it("a paused session is refused with the documented words and a hint to resume", async () => {
    const other = ref.sessions().find((r) => r.id !== id);
    if (!other) throw new Error("one session only");
    ref.setState(other.id, "paused");
    const e = await owner.gitDiff(other.id).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HttpError);
    expect((e as HttpError).message).toContain("Session is not running (state: paused)");
    expect((e as HttpError).hint).toMatch(/resume it first/);
  });
});
