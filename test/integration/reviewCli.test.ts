import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { CLI, runCli, tempConfigHome } from "../helpers/cli.js";
import { json, type ScriptedServer, startScriptedServer } from "../helpers/scriptedHttpServer.js";
import { advanceUntil } from "../helpers/simulatedClock.js";

/**
 * The review commands as a user runs them, against the reference service in its seeded
 * manual-clock mode (the documented limits: 100 a minute, burst 20) and a hostile scripted
 * server: `diff` prints a patch `git apply` takes, `--stat` and `--json` count per file,
 * `apply` goes through its preflight on a real checkout (applied, applied already, a named
 * conflict that changes nothing), `checkout` takes the branch the session pushed, `files`,
 * `cat`, `rewind`, `browse` and `ports`; a read-only key and a paused session are told what to
 * do; a diff carrying escape sequences and the key never shows the key.
 */

const cfg = tempConfigHome();
const dirs: string[] = [];
let ref: ReferenceServer;
let owner: ApiClient;
let id: string;
let ws: string;
let bare: string;

const GIT_ENV_FOR_CHILD = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "T",
  GIT_AUTHOR_EMAIL: "t@example.test",
  GIT_COMMITTER_NAME: "T",
  GIT_COMMITTER_EMAIL: "t@example.test",
};
const GIT_ENV = { ...process.env, ...GIT_ENV_FOR_CHILD };
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", env: GIT_ENV });
/** Only git on PATH: no browser opener is found, none is started. */
const PATH = dirname(execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim());

const env = (key = ref.key("owner"), url = ref.url) => ({
  XDG_CONFIG_HOME: cfg.dir,
  AGENT_SESSIONS_BASE_URL: url,
  AGENT_SESSIONS_API_KEY: key,
  PATH,
  ...GIT_ENV_FOR_CHILD,
});

function localClone(): string {
  const d = mkdtempSync(join(tmpdir(), "as-review-cli-"));
  dirs.push(d);
  git(d, "clone", "-q", bare, "app");
  return join(d, "app");
}

beforeAll(async () => {
  ref = await startServer({
    seed: 32,
    clock: "manual",
    sessionCount: 3,
    rateLimit: { limit: 100, windowMs: 60_000, burst: 20 },
  });
  owner = new ApiClient({ baseUrl: ref.url, apiKey: ref.key("owner"), maxAttempts: 3 });
  const active = ref.sessions().find((r) => r.state === "active" && r.preview_url !== null);
  if (!active) throw new Error("no active web session in the seed");
  id = active.id;
  await owner.git(id, { kind: "clone", repoUrl: "demo/app" });
  ws = join(ref.dataDir, "workspaces", id);
  bare = join(ref.dataDir, "repos", "demo", "app.git");
  // What the agent changed: an edit, a new file and an image.
  writeFileSync(
    join(ws, "README.md"),
    `${readFileSync(join(ws, "README.md"), "utf8")}\nReviewed.\n`,
  );
  writeFileSync(join(ws, "src", "review.ts"), "export const reviewed = true;\n");
  writeFileSync(join(ws, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 7]));
});

afterAll(async () => {
  await owner?.close();
  await ref?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  cfg.cleanup();
});

describe("diff", () => {
  it("prints a patch that git apply takes, binary file included", async () => {
    const r = await runCli(["diff", id], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^diff --git a\/README.md b\/README.md$/m);
    expect(r.stdout).toContain("GIT binary patch");
    const local = localClone();
    writeFileSync(join(local, "..", "p.patch"), r.stdout);
    git(local, "apply", "--check", join(local, "..", "p.patch"));
  });

  it("--stat counts each file, PATH narrows, --json carries counts and the patch", async () => {
    const stat = await runCli(["diff", id, "--stat"], { env: env() });
    expect(stat.code).toBe(0);
    const lines = stat.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^file\s+added\s+removed/);
    expect(lines.find((l) => l.startsWith("README.md"))).toMatch(/^README\.md\s+\+2\s+-0$/);
    expect(lines.find((l) => l.startsWith("logo.png"))).toMatch(/^logo\.png\s+binary\s+added$/);
    expect(lines.at(-1)).toBe("3 files changed, 3 insertions(+), 0 deletions(-)");

    const one = await runCli(["diff", id, "src"], { env: env() });
    expect(one.stdout.match(/^diff --git /gm)).toHaveLength(1);
    expect(one.stdout).toContain("b/src/review.ts");

    const j = await runCli(["diff", id, "--json"], { env: env() });
    const body = JSON.parse(j.stdout) as {
      files: { path: string; added: number }[];
      patch: string;
    };
    expect(body.files.map((f) => [f.path, f.added])).toEqual([
      ["README.md", 2],
      ["logo.png", 0],
      ["src/review.ts", 1],
    ]);
    expect(body.patch).toBe((await runCli(["diff", id], { env: env() })).stdout);
  });
});

describe("apply and checkout on a real checkout", () => {
  it("checks, applies, then says it is applied already", async () => {
    const local = localClone();
    const check = await runCli(["apply", id, "--check"], { env: env(), cwd: local });
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(
      /changes apply to .*app \(main\): README\.md, logo\.png, src\/review\.ts \(nothing changed: --check\)/,
    );
    expect(git(local, "status", "--porcelain")).toBe("");
    const done = await runCli(["apply", id], { env: env(), cwd: local });
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^applied .* changes to /);
    expect(readFileSync(join(local, "src", "review.ts"), "utf8")).toBe(
      "export const reviewed = true;\n",
    );
    const again = await runCli(["apply", id], { env: env(), cwd: local });
    expect(again.stdout).toMatch(/^already applied: /);
  });

  it("names the conflicting file, changes nothing and exits 11", async () => {
    const local = localClone();
    const readme = readFileSync(join(local, "README.md"), "utf8");
    writeFileSync(join(local, "README.md"), `${readme}\nMine.\n`);
    git(local, "commit", "-qam", "mine");
    const r = await runCli(["apply", id], { env: env(), cwd: local });
    expect(r.code).toBe(11);
    const err = r.stderr.trimEnd().split("\n");
    expect(err).toEqual([
      "conflict: README.md: patch does not apply",
      expect.stringMatching(
        /^error: .* changes do not apply to .*: 1 file conflicts; nothing was changed$/,
      ),
      `hint: Try a three-way merge (agent-sessions apply ${id} --3way), or take the session's branch (agent-sessions checkout ${id}).`,
    ]);
    expect(git(local, "status", "--porcelain")).toBe("");
  });

  it("checkout says what to do before the push, and takes the branch after it", async () => {
    await owner.git(id, { kind: "branch", name: "agent/cli-review" });
    const local = localClone();
    const before = await runCli(["checkout", id], { env: env(), cwd: local });
    expect(before.code).toBe(1);
    expect(before.stderr).toBe(
      "error: origin has no branch agent/cli-review: the session has not pushed it yet\nhint: Push it from the session first (agent-sessions git push SESSION), then run checkout again.\n",
    );
    const pushed = await owner.git(id, { kind: "push" });
    const after = await runCli(["checkout", id], { env: env(), cwd: local });
    expect(after.code).toBe(0);
    expect(after.stdout).toBe(
      `created local branch agent/cli-review from origin (${pushed.sha?.slice(0, 12)}), checked out\n`,
    );
    expect(readFileSync(join(local, "src", "review.ts"), "utf8")).toBe(
      "export const reviewed = true;\n",
    );
  });
});

describe("files, cat, browse, ports", () => {
  it("lists and prints files", async () => {
    const top = await runCli(["files", id], { env: env() });
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/^dir\s+\/src$/m);
    expect(top.stdout).toMatch(/^file\s+\S+ ?B?\S*\s+\/README\.md$/m);
    const all = await runCli(["files", id, "/src", "--recursive", "--json"], { env: env() });
    const entries = JSON.parse(all.stdout) as { path: string; type: string }[];
    expect(entries.some((e) => e.path === "/src/review.ts" && e.type === "file")).toBe(true);
    const cat = await runCli(["cat", id, "src/review.ts"], { env: env() });
    expect(cat).toEqual({ code: 0, stdout: "export const reviewed = true;\n", stderr: "" });
    // A binary file to a pipe: its bytes exactly (read as bytes: the service runs in this process).
    const png = await new Promise<{ code: number | null; bytes: Buffer }>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, "cat", id, "/logo.png"], {
        env: { ...env(), HOME: process.env.HOME ?? "/tmp" },
        stdio: ["ignore", "pipe", "ignore"],
      });
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      child.stdout.on("data", (b: Buffer) => chunks.push(b));
      child.on("error", reject);
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ code, bytes: Buffer.concat(chunks) });
      });
    });
    expect(png.code).toBe(0);
    expect([...png.bytes]).toEqual([0x89, 0x50, 0x4e, 0x47, 0, 0, 7]);
    const missing = await runCli(["cat", id, "/nope.txt"], { env: env() });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: .*nope\.txt/);
  });

  it("browse prints where no opener exists and names what is missing", async () => {
    const record = ref.sessions().find((r) => r.id === id);
    const open = await runCli(["browse", id], { env: env() });
    expect(open.code).toBe(0);
    expect(open.stdout).toBe(`${new URL(record?.preview_url ?? "").href}\n`);
    expect(open.stderr).toContain(
      "no browser opener (xdg-open or open) here: the URL is printed instead",
    );
    const sandbox = await runCli(["browse", id, "sandbox", "--print"], { env: env() });
    expect(sandbox.stdout.trim()).toBe(new URL(record?.sandbox_url ?? "").href);
    const pr = await runCli(["browse", id, "pr"], { env: env() });
    expect(pr.code).toBe(1);
    expect(pr.stderr).toBe(
      `error: ${id} has no pull request URL\nhint: Open one first: agent-sessions git pr ${id} --title "…"\n`,
    );
    expect((await runCli(["browse", id, "id"], { env: env() })).stdout).toBe(`${id}\n`);
  });

  it("ports lists what listens, and --connect resolves a port's preview", async () => {
    const ports = await runCli(["ports", id], { env: env() });
    expect(ports.stdout).toMatch(/^3000\s+node$/m);
    const c = await runCli(["ports", id, "--connect", "3000", "--print"], { env: env() });
    expect(c.stdout).toMatch(/^https:\/\/3000-.*\.preview\.invalid\/\n$/);
    const none = await runCli(["ports", id, "--connect", "4999"], { env: env() });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/nothing listens on port 4999/);
  });
});

describe("rewind, scopes and states", () => {
  it("asks first: without a terminal it needs --yes; with it, the files are named", async () => {
    const no = await runCli(["rewind", id], { env: env() });
    expect(no.code).toBe(2);
    expect(no.stderr).toMatch(
      /^error: rewind reverts the files of .* no terminal to ask on\nhint: Pass --yes/,
    );
    // The agent works until its newest prompt has changed files.
    let n = 0;
    const start = git(ws, "status", "--porcelain", "--untracked-files=all");
    await advanceUntil(
      ref,
      () => ++n % 10 === 0 && git(ws, "status", "--porcelain", "--untracked-files=all") !== start,
      "the agent changed a file",
      { stepMs: 100, maxSteps: 5_000 },
    );
    if (ref.sessions().find((r) => r.id === id)?.state === "paused") await owner.resume(id);
    const yes = await runCli(["rewind", id, "--yes"], { env: env() });
    expect(yes.code).toBe(0);
    const [head, ...files] = yes.stdout.trimEnd().split("\n");
    expect(head).toMatch(new RegExp(`^rewound the last prompt of ${id}: \\d+ files? reverted$`));
    expect(files.length).toBeGreaterThan(0);
    expect(files.every((f) => /^ {2}\/\S+$/.test(f))).toBe(true);
  });

  it("a read-only key reads files, and git diff names the scope it lacks", async () => {
    const ro = ref.key("readonly");
    expect((await runCli(["files", id], { env: env(ro) })).code).toBe(0);
    const d = await runCli(["diff", id], { env: env(ro) });
    expect(d.code).toBe(4);
    expect(d.stderr).toMatch(/^error: .*sessions:write/);
  });

  it("a paused session: said, with the command that resumes it", async () => {
    const other = ref.sessions().find((r) => r.id !== id) as { id: string };
    ref.setState(other.id, "paused");
    const r = await runCli(["diff", other.id], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Session is not running \(state: paused\)/);
    expect(r.stderr).toContain(
      `hint: The session is paused: resume it (agent-sessions resume ${other.id}), then run this again.`,
    );
  });
});

describe("a hostile diff", () => {
  const KEY = "ask_hostile0123456789abcdefghij0123456789";
  let s: ScriptedServer;
  beforeAll(async () => {
    s = await startScriptedServer();
  });
  afterAll(async () => {
    await s.close();
  });
  const RL = {
    "x-ratelimit-limit": "100",
    "x-ratelimit-remaining": "99",
    "x-ratelimit-reset": "60",
  };
  const PATCH = [
    "diff --git a/evil\x1b[2Jname.txt b/evil\x1b[2Jname.txt",
    "--- a/evil\x1b[2Jname.txt",
    "+++ b/evil\x1b[2Jname.txt",
    "@@ -1 +1 @@",
    "-old",
    `+token ${KEY} \x1b]0;pwned\x07`,
    "",
  ].join("\n");

  it("never writes the key; --stat and --json carry no escape sequence", async () => {
    s.fallback(json(200, { success: true, result: { diff: PATCH } }, RL));
    const e = { ...env(KEY, s.url), AGENT_SESSIONS_MAX_ATTEMPTS: "1" };
    const raw = await runCli(["diff", "ses_h1"], { env: e });
    expect(raw.code).toBe(0);
    expect(raw.stdout).not.toContain(KEY);
    expect(raw.stdout).toContain("+token [redacted key]");
    expect(raw.stderr).toContain(
      "warning: the diff held your API key; it was replaced by [redacted key] in the output",
    );
    const stat = await runCli(["diff", "ses_h1", "--stat"], { env: e });
    expect(stat.stdout).not.toMatch(/[\x1b\x07]/);
    expect(stat.stdout).toContain("evilname.txt");
    const j = await runCli(["diff", "ses_h1", "--json"], { env: e });
    expect(j.stdout).not.toMatch(/[\x1b\x07]/);
    expect(j.stdout).not.toContain(KEY);
  });

  it("a listing the service cut is said, exit 7, with the JSON marker", async () => {
    s.fallback(
      json(
        200,
        {
          files: [{ name: "a\x1b[31m.ts", path: "/a\x1b[31m.ts", type: "file", size: 3 }],
          truncated: true,
        },
        RL,
      ),
    );
    const e = { ...env(KEY, s.url), AGENT_SESSIONS_MAX_ATTEMPTS: "1" };
    const plain = await runCli(["files", "ses_h1"], { env: e });
    expect(plain.code).toBe(7);
    expect(plain.stdout).toBe("type  size  path\nfile  3 B   /a.ts\n");
    expect(plain.stderr).toBe(
      "warning: the list is incomplete: the service listed 1 entries and cut it there\n",
    );
    const j = await runCli(["files", "ses_h1", "--json"], { env: e });
    expect(j.code).toBe(7);
    expect(JSON.parse(j.stdout).at(-1)).toEqual({ incomplete: true, listed: 1 });
  });

  it("says when the answer holds no patch", async () => {
    s.fallback(json(200, { success: true, result: { files_changed: 2 } }, RL));
    const r = await runCli(["diff", "ses_h1"], {
      env: { ...env(KEY, s.url), AGENT_SESSIONS_MAX_ATTEMPTS: "1" },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: the service's diff answer could not be read: the answer held no patch \(fields success, result; result: files_changed\)\nhint: /,
    );
  });
});
