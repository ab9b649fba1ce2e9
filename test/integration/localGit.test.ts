import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { createLocalHome } from "../../src/local/home.js";
import { applyPatch, checkoutBranch, LocalGitError } from "../../src/local/localGit.js";
import { findOpener } from "../../src/local/openUrl.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";

/**
 * Taking a session's work home, on real repositories: a patch applied whole after its
 * preflight, a conflict named with the tree left exactly as it was, a patch already applied
 * said so, a three-way merge where the context moved; and the branch a session pushed to the
 * reference service's real remote fetched into a local branch of the same name, never over
 * local work, with what to do when the session has not pushed.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "T",
  GIT_AUTHOR_EMAIL: "t@example.test",
  GIT_COMMITTER_NAME: "T",
  GIT_COMMITTER_EMAIL: "t@example.test",
};
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "init.defaultBranch=main", ...args], {
    cwd,
    encoding: "utf8",
    env: ENV,
  });

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "as-localgit-"));
  dirs.push(d);
  return d;
}

const LINES = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);

/** A repository with two files, and a patch (from a second copy) changing both. */
function repoAndPatch(): { repo: string; patch: string } {
  const repo = tempDir();
  git(repo, "init", "-q");
  writeFileSync(join(repo, "a.txt"), `${LINES.join("\n")}\n`);
  writeFileSync(join(repo, "b.txt"), "one\ntwo\nthree\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "base");
  writeFileSync(join(repo, "a.txt"), `${LINES.join("\n").replace("line 20", "line twenty")}\n`);
  writeFileSync(join(repo, "b.txt"), "one\nTWO\nthree\n");
  writeFileSync(join(repo, "new.bin"), Buffer.from([0, 1, 2, 255]));
  git(repo, "add", "-A");
  const patch = git(repo, "diff", "--cached", "--binary");
  git(repo, "reset", "-q", "--hard");
  git(repo, "clean", "-qfd");
  return { repo, patch };
}

describe("applyPatch", () => {
  it("checks first, then applies the whole patch, binary file included", async () => {
    const { repo, patch } = repoAndPatch();
    const check = await applyPatch(patch, { cwd: repo, check: true });
    expect(check).toMatchObject({ kind: "would-apply", files: ["a.txt", "b.txt", "new.bin"] });
    expect(git(repo, "status", "--porcelain")).toBe("");
    const done = await applyPatch(patch, { cwd: join(repo) });
    expect(done).toMatchObject({ kind: "applied", threeWay: false });
    expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("one\nTWO\nthree\n");
    expect([...readFileSync(join(repo, "new.bin"))]).toEqual([0, 1, 2, 255]);
    // Again: the changes are there already, and it says so.
    expect(await applyPatch(patch, { cwd: repo })).toMatchObject({ kind: "already-applied" });
  });

  it("names the file that conflicts and leaves every file as it was", async () => {
    const { repo, patch } = repoAndPatch();
    writeFileSync(join(repo, "b.txt"), "one\nmy own two\nthree\n");
    const before = git(repo, "status", "--porcelain");
    const r = await applyPatch(patch, { cwd: repo });
    expect(r.kind).toBe("conflict");
    if (r.kind !== "conflict") return;
    expect(r.conflicts.map((c) => c.path)).toEqual(["b.txt"]);
    expect(r.conflicts[0]?.reason).toBe("patch does not apply");
    expect(git(repo, "status", "--porcelain")).toBe(before);
    expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe(`${LINES.join("\n")}\n`);
    expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("one\nmy own two\nthree\n");
  });

  it("with --3way merges where the context moved, and refuses (naming it) where it conflicts", async () => {
    const { repo, patch } = repoAndPatch();
    // Local work near the patched line: the plain patch no longer applies, a merge does.
    writeFileSync(join(repo, "a.txt"), `${LINES.join("\n").replace("line 18", "line eighteen")}\n`);
    git(repo, "commit", "-qam", "local");
    expect((await applyPatch(patch, { cwd: repo })).kind).toBe("conflict");
    const merged = await applyPatch(patch, { cwd: repo, threeWay: true });
    expect(merged).toMatchObject({ kind: "applied", threeWay: true });
    const text = readFileSync(join(repo, "a.txt"), "utf8");
    expect(text).toContain("line eighteen");
    expect(text).toContain("line twenty");

    const other = repoAndPatch();
    writeFileSync(join(other.repo, "b.txt"), "one\nmine\nthree\n");
    git(other.repo, "commit", "-qam", "local");
    const r = await applyPatch(other.patch, { cwd: other.repo, threeWay: true });
    expect(r.kind).toBe("conflict");
    if (r.kind === "conflict") expect(r.conflicts.map((c) => c.path)).toContain("b.txt");
    expect(git(other.repo, "status", "--porcelain")).toBe("");
    expect(readFileSync(join(other.repo, "b.txt"), "utf8")).toBe("one\nmine\nthree\n");
  });

  it("says when it runs outside a repository", async () => {
    const e = await applyPatch("x", { cwd: tempDir() }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LocalGitError);
    expect((e as LocalGitError).message).toMatch(/not inside a git repository/);
  });
});

describe("createLocalHome: the UI's way home, said as the CLI says it", () => {
  it("names the checkout, applies, and names a conflict in lines", async () => {
    const { repo, patch } = repoAndPatch();
    const home = createLocalHome(join(repo));
    const where = await home.where();
    expect(where).toEqual({ root: expect.stringMatching(/as-localgit-/), branch: "main" });
    writeFileSync(join(repo, "b.txt"), "one\nmine\nthree\n");
    const refused = await home.apply(patch, "ses_x1");
    expect(refused.ok).toBe(false);
    expect(refused.lines.slice(1)).toEqual(["conflict: b.txt: patch does not apply"]);
    expect(refused.hint).toMatch(/--3way/);
    git(repo, "checkout", "--", "b.txt");
    const applied = await home.apply(patch, "ses_x1");
    expect(applied).toEqual({
      ok: true,
      lines: [
        expect.stringMatching(
          /^applied ses_x1's changes to .* \(main\): a\.txt, b\.txt, new\.bin$/,
        ),
      ],
    });
    expect(await home.checkout("ses_x1", null)).toMatchObject({
      ok: false,
      lines: ["ses_x1 names no branch it pushed"],
    });
    expect(await createLocalHome(tempDir()).where()).toEqual({
      error: expect.stringMatching(/not inside a git repository/),
    });
  });

  it("finds no opener on a PATH without one", () => {
    expect(findOpener("linux", tempDir())).toBeNull();
    expect(findOpener("win32", process.env.PATH)).toBeNull();
  });
});

describe("checkoutBranch from the reference service's real remote", () => {
  let ref: ReferenceServer;
  let owner: ApiClient;
  let id: string;
  let local: string;
  beforeAll(async () => {
    ref = await startServer({ seed: 32, clock: "manual", sessionCount: 2 });
    owner = new ApiClient({ baseUrl: ref.url, apiKey: ref.key("owner"), maxAttempts: 3 });
    id = ref.sessionIds()[0] as string;
    await owner.git(id, { kind: "clone", repoUrl: "demo/app" });
    local = join(tempDir(), "app");
    git(tempDir(), "clone", "-q", join(ref.dataDir, "repos", "demo", "app.git"), local);
  });
  afterAll(async () => {
    await owner.close();
    await ref.close();
  });

  it("says what to do when the session has not pushed its branch", async () => {
    const e = await checkoutBranch({ cwd: local, branch: "agent/review", repo: "demo/app" }).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(LocalGitError);
    expect((e as LocalGitError).message).toBe(
      "origin has no branch agent/review: the session has not pushed it yet",
    );
    expect((e as LocalGitError).hint).toMatch(/agent-sessions git push SESSION/);
  });

  it("fetches the pushed branch into a local one of the same name, and switches to it", async () => {
    await owner.git(id, { kind: "branch", name: "agent/review" });
    writeFileSync(join(ref.dataDir, "workspaces", id, "REVIEW.md"), "from the session\n");
    const pushed = await owner.git(id, { kind: "push" });
    const r = await checkoutBranch({ cwd: local, branch: "agent/review", repo: "demo/app" });
    expect(r).toMatchObject({
      kind: "created",
      branch: "agent/review",
      remote: "origin",
      switched: true,
      commit: pushed.sha,
    });
    expect(git(local, "branch", "--show-current").trim()).toBe("agent/review");
    expect(readFileSync(join(local, "REVIEW.md"), "utf8")).toBe("from the session\n");
    expect(
      (await checkoutBranch({ cwd: local, branch: "agent/review", repo: "demo/app" })).kind,
    ).toBe("up-to-date");
  });

  it("never overwrites local commits on that branch", async () => {
    writeFileSync(join(local, "MINE.md"), "local work\n");
    git(local, "add", "MINE.md");
    git(local, "commit", "-qm", "mine");
    const mine = git(local, "rev-parse", "HEAD").trim();
    writeFileSync(join(ref.dataDir, "workspaces", id, "MORE.md"), "more\n");
    await owner.git(id, { kind: "push" });
    const e = await checkoutBranch({ cwd: local, branch: "agent/review", repo: "demo/app" }).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(LocalGitError);
    expect((e as LocalGitError).message).toMatch(
      /has commits the session's does not: it was left as it is/,
    );
    expect(git(local, "rev-parse", "HEAD").trim()).toBe(mine);
  });

  it("refuses a checkout with no remote pointing at the session's repository", async () => {
    const e = await checkoutBranch({
      cwd: local,
      branch: "agent/review",
      repo: "acme/other",
    }).catch((x: unknown) => x);
    expect((e as LocalGitError).message).toBe(
      "no remote of this checkout points at acme/other, the session's repository",
    );
  });
});
