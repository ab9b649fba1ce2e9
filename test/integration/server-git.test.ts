import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PATHS } from "../../src/protocol/index.js";
import { type ReferenceServer, type ServerOptions, startServer } from "../../src/server/index.js";
import { advanceUntil } from "../helpers/simulatedClock.js";
import { api, openSse, type SseClient, waitFor } from "./serverTestUtils.js";

let server: ReferenceServer | null = null;
const clients: SseClient[] = [];
async function start(opts: ServerOptions = {}): Promise<ReferenceServer> {
  server = await startServer({ paceMs: 0, seed: 3, ...opts });
  return server;
}
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server?.close();
  server = null;
});

function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
  });
}

async function post(s: ReferenceServer, path: string, body: unknown, key = s.key("owner")) {
  return api(s.url, path, { key, method: "POST", body });
}

/** The documented answer of a git operation: {operation, success, result}. */
interface OperationBody {
  operation: string;
  success: boolean;
  result: {
    branch: string | null;
    sha: string | null;
    output: string;
    pr_number?: number;
    pr_url?: string;
    title?: string;
    base?: string;
    head?: string;
  };
}

describe("reference service: git", () => {
  it("has git on PATH", () => {
    expect(execFileSync("git", ["--version"], { encoding: "utf8" })).toMatch(/^git version/);
  });

  it("clones, branches, pushes and opens a pull request with real git, mirrored on the stream", async () => {
    const s = await start();
    const id = s.sessionIds()[0] as string;
    const stream = await openSse(`${s.url}${PATHS.events(id)}`, s.key("owner"));
    clients.push(stream);
    await waitFor(() => s.connections() === 1);

    const clone = await post(s, PATHS.gitClone(id), {
      repo_url: "https://github.com/demo/app.git",
    });
    expect(clone.status).toBe(200);
    // The documented clone answer: {session_id, repo_url, branch, path} (sha and output extra).
    const c = clone.body as Record<string, string>;
    expect(c).toMatchObject({
      session_id: id,
      repo_url: "https://github.com/demo/app.git",
      branch: "main",
      path: `workspaces/${id}`,
    });
    expect(c.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(c.output).toContain("$ git clone demo/app");
    const ws = join(s.dataDir, "workspaces", id);
    expect(existsSync(join(ws, "README.md"))).toBe(true);
    await waitFor(() =>
      stream.events().some((e) => e.event === "file_changed" && e.data.includes('"README.md"')),
    );
    const gitLines = stream
      .events()
      .filter((e) => e.event === "process_output")
      .map((e) => JSON.parse(e.data));
    expect(gitLines[0]).toMatchObject({ stream: "git", text: "$ git clone demo/app\n" });
    expect(gitLines.some((l) => /Cloning into/.test(l.text))).toBe(true);
    const rec = await api(s.url, `/api/sessions/${id}`, { key: s.key("owner") });
    expect(rec.body).toMatchObject({ repo: "demo/app", branch: "main", cloned: true });

    const branch = await post(s, PATHS.gitOperation(id), {
      operation: "branch",
      args: { name: "feature/x" },
    });
    expect(branch.status).toBe(200);
    expect(branch.body).toMatchObject({
      operation: "branch",
      success: true,
      result: { branch: "feature/x" },
    });

    const early = await post(s, PATHS.gitOperation(id), {
      operation: "create-pr",
      args: { title: "Add x" },
    });
    expect(early.status).toBe(409);
    expect((early.body as { detail: string }).detail).toMatch(/push the branch first/);

    writeFileSync(join(ws, "NOTES.md"), "agent notes\n");
    // The documented route serves the same operations as the interface's.
    const push = await post(s, PATHS.gitOperationDocumented(id), { operation: "push" });
    expect(push.status).toBe(200);
    const p = push.body as OperationBody;
    expect(p).toMatchObject({ operation: "push", success: true, result: { branch: "feature/x" } });
    const bare = join(s.dataDir, "repos", "demo", "app.git");
    expect(gitIn(bare, "rev-parse", "refs/heads/feature/x").trim()).toBe(p.result.sha);
    expect(gitIn(bare, "log", "-1", "--format=%s", "feature/x").trim()).toBe("agent changes");
    expect(gitIn(bare, "show", "feature/x:NOTES.md")).toBe("agent notes\n");
    expect(p.result.output).toMatch(/\$ git push -u origin HEAD:refs\/heads\/feature\/x/);

    const pr = await post(s, PATHS.gitOperation(id), {
      operation: "create-pr",
      args: { title: "Add x" },
    });
    expect(pr.status).toBe(200);
    const r = pr.body as OperationBody;
    expect(r.result).toMatchObject({
      pr_number: 1,
      title: "Add x",
      base: "main",
      head: "feature/x",
    });
    expect(s.pullRequests()).toHaveLength(1);
    await waitFor(() => stream.events().some((e) => e.data.includes("Created pull request #1")));
    const dup = await post(s, PATHS.gitOperation(id), {
      operation: "create-pr",
      args: { title: "again" },
    });
    expect(dup.status).toBe(409);
  });

  it("clones a named branch and accepts the short forms of a repository", async () => {
    const s = await start();
    const [a, b] = s.sessionIds() as [string, string];
    const dev = await post(s, PATHS.gitClone(a), { repo_url: "demo/app", branch: "develop" });
    expect(dev.body).toMatchObject({ branch: "develop" });
    // The documented clone route as well as the interface's.
    const docs = await post(s, PATHS.gitCloneDocumented(b), {
      repo_url: "git@example.com:demo/docs.git",
    });
    expect(docs.status).toBe(200);
    expect(existsSync(join(s.dataDir, "workspaces", b, "docs", "guide.md"))).toBe(true);
  });

  it("answers bad input with a clear 4xx", async () => {
    const s = await start();
    const id = s.sessionIds()[0] as string;
    const noClone = await post(s, PATHS.gitOperation(id), { operation: "push" });
    expect(noClone.status).toBe(409);
    expect((noClone.body as { detail: string }).detail).toMatch(/clone a repository first/);

    const unknown = await post(s, PATHS.gitClone(id), { repo_url: "https://github.com/evil/repo" });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      detail: 'Unknown repository "https://github.com/evil/repo". Known: demo/app, demo/docs',
    });
    const badBranch = await post(s, PATHS.gitClone(id), {
      repo_url: "demo/app",
      branch: "bad name",
    });
    expect(badBranch.status).toBe(422);
    expect(badBranch.body).toEqual({ detail: 'Invalid branch name "bad name"' });
    const missingBranch = await post(s, PATHS.gitClone(id), {
      repo_url: "demo/app",
      branch: "nope",
    });
    expect(missingBranch.status).toBe(404);
    expect(missingBranch.body).toEqual({ detail: "Branch nope not found in demo/app" });

    const noBody = await post(s, PATHS.gitClone(id), {});
    expect(noBody.status).toBe(400);
    // The documented structured error: {detail: {error, message, field}}.
    expect(noBody.body).toMatchObject({
      detail: { error: "validation_error", field: "repo_url" },
    });
    const badOp = await post(s, PATHS.gitOperation(id), { operation: "fly" });
    expect(badOp.status).toBe(422);
    expect(badOp.body).toMatchObject({ detail: { field: "operation" } });
    const noArgs = await post(s, PATHS.gitOperation(id), { operation: "branch" });
    expect(noArgs.status).toBe(400);
    const notJson = await api(s.url, PATHS.gitClone(id), {
      key: s.key("owner"),
      method: "POST",
      headers: { "content-type": "application/json" },
      body: undefined,
    });
    expect(notJson.status).toBe(400);

    expect((await post(s, PATHS.gitClone(id), { repo_url: "demo/app" })).status).toBe(200);
    for (const name of ["a..b", "-x", "HEAD", "with space"]) {
      const r = await post(s, PATHS.gitOperation(id), { operation: "branch", args: { name } });
      expect(r.status, name).toBe(422);
    }
    const dup = await post(s, PATHS.gitOperation(id), {
      operation: "branch",
      args: { name: "main" },
    });
    expect(dup.status).toBe(409);
    const from = await post(s, PATHS.gitOperation(id), {
      operation: "branch",
      args: { name: "y", from: "no-such-ref" },
    });
    expect(from.status).toBe(422);
    const base = await post(s, PATHS.gitOperation(id), {
      operation: "create-pr",
      args: { title: "t", head: "develop", base: "gone" },
    });
    expect(base.status).toBe(422);
    const missing = await post(s, PATHS.gitClone("ses_none"), { repo_url: "demo/app" });
    expect(missing.status).toBe(404);
  });

  it("writes the simulated file changes of a cloned session into its workspace", async () => {
    const s = await start({ paceMs: 2, sessionCount: 1, clock: "manual" });
    const id = s.sessionIds()[0] as string;
    s.setState(id, "active");
    expect((await post(s, PATHS.gitClone(id), { repo_url: "demo/app" })).status).toBe(200);
    const stream = await openSse(`${s.url}${PATHS.events(id)}`, s.key("owner"));
    clients.push(stream);
    const ws = join(s.dataDir, "workspaces", id);
    const created = () =>
      stream
        .events()
        .filter((e) => e.event === "file_changed")
        .map((e) => JSON.parse(e.data) as { path: string; action: string })
        .find((d) => d.action === "created" && d.path.startsWith("src/agent/"));
    await advanceUntil(s, () => created() !== undefined, "a simulated file creation", {
      stepMs: 2,
    });
    expect(created()?.path).toMatch(/^src\/agent\/change-\d+\.ts$/);
    // An edit of a file the repository already had can never be undone by the simulator.
    const edited = () =>
      stream
        .events()
        .filter((e) => e.event === "file_changed")
        .map((e) => JSON.parse(e.data) as { path: string; action: string })
        // A change planned while the workspace was busy (the clone finishing) names a file of
        // the simulated script, not of the workspace: only real edits count here.
        .find(
          (d) =>
            d.action === "modified" &&
            !d.path.startsWith("src/agent/") &&
            existsSync(join(ws, d.path)),
        );
    await advanceUntil(s, () => edited() !== undefined, "a simulated edit of a tracked file", {
      stepMs: 2,
    });
    s.setState(id, "paused");
    const path = edited()?.path as string;
    expect(readFileSync(join(ws, path), "utf8")).toMatch(/edited by the agent/i);
    const push = await post(s, PATHS.gitOperation(id), {
      operation: "push",
      args: { branch: "agent-work" },
    });
    expect(push.status).toBe(200);
    expect((push.body as OperationBody).result.output).toContain("agent changes");
    const bare = join(s.dataDir, "repos", "demo", "app.git");
    expect(gitIn(bare, "show", `agent-work:${path}`)).toMatch(/edited by the agent/i);
  });
});
