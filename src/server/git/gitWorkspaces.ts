import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import type { CloneRequest, GitOperationRequest } from "../../protocol/index.js";
import { HttpError } from "../http/httpError.js";
import type { Random } from "../random.js";
import type { NewEvent, SessionTable } from "../sessionTable.js";
import type { FileAction } from "../simulatedContent.js";
import { resolveRepoName } from "./demoRepos.js";
import { type GitRun, type GitRunner, outputLines } from "./gitRunner.js";

interface Workspace {
  repo: string;
  dir: string;
  /** Text files the simulator may append to. */
  editable: string[];
  /** Files the simulator created (the only ones it deletes). */
  created: string[];
  counter: number;
  /** The commit the clone checked out: what the session changed is measured from it. */
  base: string | null;
}

/** What a review of a workspace may read: its folder, its base, and the git to run there. */
export interface WorkspaceView {
  dir: string;
  repo: string;
  base: string | null;
  git: GitRunner;
}

/**
 * The files the current prompt changed, as they were before it (null: the file did not
 * exist), so a rewind can put them back. `prompt` names the prompt they belong to; a new
 * prompt starts a new list.
 */
interface PromptChanges {
  prompt: string;
  before: Map<string, Buffer | null>;
}

export interface PullRequest {
  number: number;
  title: string;
  base: string;
  head: string;
  body: string | null;
  repo: string;
  session_id: string;
  created_at: string;
}

/** Per-step lines sent to the stream; a huge git output must not flood it. */
const MAX_LINES_PER_STEP = 200;
const MAX_FILE_EVENTS = 200;

/** What one operation printed, collected for the response and mirrored on the stream. */
class Transcript {
  readonly lines: string[] = [];

  constructor(
    private readonly emit: (events: NewEvent[]) => void,
    private readonly dataDir: string,
  ) {}

  /** Paths under the data dir are shown relative to it: shorter, and the same on every machine. */
  private tidy(line: string): string {
    return line.split(this.dataDir + sep).join("");
  }

  add(stream: string, lines: readonly string[]): void {
    const shown = lines.slice(0, MAX_LINES_PER_STEP).map((l) => this.tidy(l));
    if (lines.length > MAX_LINES_PER_STEP) {
      shown.push(`… ${lines.length - MAX_LINES_PER_STEP} more lines`);
    }
    if (shown.length === 0) return;
    this.lines.push(...shown);
    const ts = Date.now();
    this.emit(
      shown.map((text) => ({
        event: "process_output",
        data: JSON.stringify({ stream, text: `${text}\n`, ts }),
      })),
    );
  }

  files(changes: readonly { path: string; action: FileAction }[]): void {
    const ts = Date.now();
    const events = changes.slice(0, MAX_FILE_EVENTS).map((c) => ({
      event: "file_changed",
      data: JSON.stringify({ path: c.path, action: c.action, ts }),
    }));
    if (events.length > 0) this.emit(events);
    if (changes.length > MAX_FILE_EVENTS) {
      this.add("git", [`… ${changes.length - MAX_FILE_EVENTS} more files`]);
    }
  }

  text(): string {
    return this.lines.join("\n");
  }
}

function cut(s: string, n = 200): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

function lastLine(r: GitRun): string {
  const lines = outputLines(r);
  return lines[lines.length - 1] ?? `exit code ${r.code}`;
}

const STATUS_ACTIONS: Record<string, FileAction> = { A: "created", D: "deleted" };

/** The documented answer of a clone ({session_id, repo_url, branch, path}), plus sha and output. */
export interface CloneAnswer {
  session_id: string;
  repo_url: string;
  branch: string | null;
  /** The workspace, relative to the data dir. */
  path: string;
  sha: string | null;
  output: string;
}

/** The documented answer of a git operation: {operation, success, result}. */
export interface OperationAnswer {
  operation: "push" | "branch" | "create-pr";
  success: true;
  result: {
    branch: string | null;
    sha: string | null;
    output: string;
    repository: string;
    pr_number?: number;
    pr_url?: string;
    title?: string;
    base?: string;
    head?: string;
  };
}

/** Pull requests live in memory only; this reserved domain says so in their URL. */
const PR_URL_BASE = "https://git.invalid";

/**
 * Session workspaces: real clones of the local bare repositories, with git operations run in
 * them and everything they print or touch mirrored on the session's event stream.
 */
export class GitWorkspaces {
  private readonly workspaces = new Map<string, Workspace>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly busy = new Set<string>();
  private readonly promptChanges = new Map<string, PromptChanges>();
  readonly pullRequests: PullRequest[] = [];

  constructor(
    private readonly git: GitRunner,
    private readonly dataDir: string,
    private readonly repos: ReadonlyMap<string, string>,
    private readonly store: SessionTable,
    private readonly rand: Random,
  ) {}

  private workspaceDir(sessionId: string): string {
    return join(this.dataDir, "workspaces", sessionId);
  }

  /** Operations on one session run one at a time, in arrival order. */
  private serialise<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(sessionId) ?? Promise.resolve();
    const run = prev.then(async () => {
      this.busy.add(sessionId);
      try {
        return await fn();
      } finally {
        this.busy.delete(sessionId);
      }
    });
    const tail = run.catch(() => undefined);
    this.locks.set(sessionId, tail);
    void tail.then(() => {
      if (this.locks.get(sessionId) === tail) this.locks.delete(sessionId);
    });
    return run;
  }

  /** Wait for every queued operation (used by close()). */
  async idle(): Promise<void> {
    await Promise.all([...this.locks.values()]);
  }

  private transcript(sessionId: string): Transcript {
    return new Transcript((events) => this.store.append(sessionId, events), this.dataDir);
  }

  /** Run one visible git step: its command line and its output go to the stream. */
  private async step(
    t: Transcript,
    args: string[],
    cwd: string,
    shown?: string[],
  ): Promise<GitRun> {
    t.add("git", [`$ git ${(shown ?? args).join(" ")}`]);
    const r = await this.git.run(args, cwd);
    t.add("git", outputLines(r));
    return r;
  }

  private async quiet(args: string[], cwd: string): Promise<GitRun> {
    return this.git.run(args, cwd);
  }

  private async validBranch(name: string, what: string): Promise<void> {
    if (!(await this.git.isValidBranchName(name, this.dataDir))) {
      throw HttpError.detail(422, `Invalid ${what} name "${cut(name)}"`);
    }
  }

  private async remoteHas(bare: string, branch: string): Promise<boolean> {
    const r = await this.quiet(
      ["ls-remote", "--heads", bare, `refs/heads/${branch}`],
      this.dataDir,
    );
    return r.code === 0 && r.stdout.trim() !== "";
  }

  private async head(dir: string): Promise<{ branch: string | null; commit: string | null }> {
    const b = await this.quiet(["branch", "--show-current"], dir);
    const c = await this.quiet(["rev-parse", "--verify", "--quiet", "HEAD"], dir);
    const branch = b.stdout.trim();
    const commit = c.stdout.trim();
    return { branch: branch === "" ? null : branch, commit: commit === "" ? null : commit };
  }

  private needWorkspace(sessionId: string): Workspace {
    const ws = this.workspaces.get(sessionId);
    if (!ws) {
      throw HttpError.detail(
        409,
        `Session ${sessionId} has no repository: clone a repository first`,
      );
    }
    return ws;
  }

  private updateRecord(sessionId: string, repo: string, branch: string | null): void {
    const s = this.store.get(sessionId);
    if (!s) return;
    s.record.repo = repo;
    // The documented owner/repo of what the workspace holds (the demo repositories' names
    // have that form already).
    s.record.github_repo = repo;
    s.record.branch = branch;
    s.record.cloned = true;
    s.record.updated_at = new Date().toISOString();
  }

  clone(sessionId: string, req: CloneRequest): Promise<CloneAnswer> {
    const name = resolveRepoName(req.repo_url, this.repos.keys());
    if (name === null) {
      return Promise.reject(
        HttpError.detail(
          404,
          `Unknown repository "${cut(req.repo_url)}". Known: ${[...this.repos.keys()].join(", ")}`,
        ),
      );
    }
    const bare = this.repos.get(name) as string;
    return this.serialise(sessionId, async () => {
      if (req.branch !== undefined) {
        await this.validBranch(req.branch, "branch");
        if (!(await this.remoteHas(bare, req.branch))) {
          throw HttpError.detail(404, `Branch ${req.branch} not found in ${name}`);
        }
      }
      const dir = this.workspaceDir(sessionId);
      this.workspaces.delete(sessionId);
      await rm(dir, { recursive: true, force: true });
      await mkdir(dirname(dir), { recursive: true });
      const t = this.transcript(sessionId);
      const branchArgs = req.branch !== undefined ? ["--branch", req.branch] : [];
      const r = await this.step(
        t,
        ["clone", "--template=", ...branchArgs, bare, dir],
        this.dataDir,
        ["clone", ...branchArgs, name],
      );
      if (r.code !== 0) throw HttpError.detail(500, `git clone failed: ${lastLine(r)}`);
      const files = (await this.quiet(["ls-files", "-z"], dir)).stdout.split("\0").filter(Boolean);
      t.files(files.map((path) => ({ path, action: "created" as const })));
      this.workspaces.set(sessionId, {
        repo: name,
        dir,
        editable: files.filter((f) => /\.(md|ts)$/.test(f)),
        created: [],
        counter: 0,
        base: (await this.head(dir)).commit,
      });
      this.promptChanges.delete(sessionId);
      const h = await this.head(dir);
      this.updateRecord(sessionId, name, h.branch);
      return {
        session_id: sessionId,
        repo_url: req.repo_url,
        branch: h.branch,
        path: `workspaces/${sessionId}`,
        sha: h.commit,
        output: t.text(),
      };
    });
  }

  operate(sessionId: string, req: GitOperationRequest): Promise<OperationAnswer> {
    return this.serialise(sessionId, async (): Promise<OperationAnswer> => {
      const ws = this.needWorkspace(sessionId);
      switch (req.operation) {
        case "branch":
          return this.createBranch(sessionId, ws, req.args.name, req.args.from);
        case "push":
          return this.push(sessionId, ws, req.args?.branch);
        case "create-pr":
          return this.createPullRequest(sessionId, ws, req.args);
      }
    });
  }

  private async createBranch(
    sessionId: string,
    ws: Workspace,
    name: string,
    from: string | undefined,
  ): Promise<OperationAnswer> {
    await this.validBranch(name, "branch");
    const exists = await this.quiet(
      ["rev-parse", "--verify", "--quiet", `refs/heads/${name}`],
      ws.dir,
    );
    if (exists.code === 0) throw HttpError.detail(409, `Branch ${name} already exists`);
    let start: string | null = null;
    if (from !== undefined) {
      // A leading dash would be read as an option by git, so it is never a start point here.
      const r = from.startsWith("-")
        ? null
        : await this.quiet(["rev-parse", "--verify", "--quiet", `${from}^{commit}`], ws.dir);
      if (r === null || r.code !== 0) {
        throw HttpError.detail(422, `Unknown start point "${cut(from)}"`);
      }
      start = r.stdout.trim();
    }
    const before = await this.head(ws.dir);
    const t = this.transcript(sessionId);
    const args = ["switch", "-c", name, ...(start ? [start] : [])];
    const shown = ["switch", "-c", name, ...(from !== undefined ? [from] : [])];
    const r = await this.step(t, args, ws.dir, shown);
    if (r.code !== 0) throw HttpError.detail(409, `git switch failed: ${lastLine(r)}`);
    const after = await this.head(ws.dir);
    if (before.commit && after.commit && before.commit !== after.commit) {
      const diff = await this.quiet(
        ["diff", "--name-status", "-z", before.commit, after.commit],
        ws.dir,
      );
      const parts = diff.stdout.split("\0").filter(Boolean);
      const changes: { path: string; action: FileAction }[] = [];
      for (let i = 0; i + 1 < parts.length; i += 2) {
        const code = (parts[i] as string).charAt(0);
        changes.push({ path: parts[i + 1] as string, action: STATUS_ACTIONS[code] ?? "modified" });
      }
      t.files(changes);
    }
    this.updateRecord(sessionId, ws.repo, after.branch);
    return {
      operation: "branch",
      success: true,
      result: { branch: after.branch, sha: after.commit, output: t.text(), repository: ws.repo },
    };
  }

  private async push(
    sessionId: string,
    ws: Workspace,
    branch: string | undefined,
  ): Promise<OperationAnswer> {
    const current = await this.head(ws.dir);
    const target = branch ?? current.branch;
    if (target === null) {
      throw HttpError.detail(409, "HEAD is detached: name the branch to push");
    }
    await this.validBranch(target, "branch");
    const t = this.transcript(sessionId);
    const status = await this.quiet(["status", "--porcelain"], ws.dir);
    if (status.stdout.trim() !== "") {
      const add = await this.step(t, ["add", "-A"], ws.dir);
      if (add.code !== 0) throw HttpError.detail(500, `git add failed: ${lastLine(add)}`);
      const commit = await this.step(t, ["commit", "-m", "agent changes"], ws.dir, [
        "commit",
        "-m",
        '"agent changes"',
      ]);
      if (commit.code !== 0) throw HttpError.detail(500, `git commit failed: ${lastLine(commit)}`);
    }
    const upstream = current.branch !== null ? ["-u"] : [];
    const r = await this.step(
      t,
      ["push", ...upstream, "origin", `HEAD:refs/heads/${target}`],
      ws.dir,
    );
    if (r.code !== 0) {
      const rejected = /rejected|non-fast-forward|fetch first/i.test(`${r.stdout}\n${r.stderr}`);
      throw HttpError.detail(
        rejected ? 409 : 500,
        rejected
          ? `Push of ${target} to ${ws.repo} was rejected: the remote branch has commits the workspace does not`
          : `git push failed: ${lastLine(r)}`,
      );
    }
    const after = await this.head(ws.dir);
    this.updateRecord(sessionId, ws.repo, after.branch);
    return {
      operation: "push",
      success: true,
      result: { branch: target, sha: after.commit, output: t.text(), repository: ws.repo },
    };
  }

  private async createPullRequest(
    sessionId: string,
    ws: Workspace,
    req: Extract<GitOperationRequest, { operation: "create-pr" }>["args"],
  ): Promise<OperationAnswer> {
    const current = await this.head(ws.dir);
    const head = req.head ?? current.branch;
    if (head === null) throw HttpError.detail(409, "HEAD is detached: name the head branch");
    const base = req.base ?? "main";
    await this.validBranch(head, "head branch");
    await this.validBranch(base, "base branch");
    if (head === base) throw HttpError.detail(422, `head and base are the same branch (${head})`);
    const bare = this.repos.get(ws.repo) as string;
    if (!(await this.remoteHas(bare, base))) {
      throw HttpError.detail(422, `Base branch ${base} does not exist in ${ws.repo}`);
    }
    if (!(await this.remoteHas(bare, head))) {
      throw HttpError.detail(409, `Branch ${head} is not on ${ws.repo}: push the branch first`);
    }
    const open = this.pullRequests.find(
      (p) => p.repo === ws.repo && p.head === head && p.base === base,
    );
    if (open) {
      throw HttpError.detail(
        409,
        `Pull request #${open.number} is already open for ${head} → ${base}`,
      );
    }
    const tip = await this.quiet(
      ["rev-parse", "--verify", "--quiet", `refs/heads/${head}`],
      ws.dir,
    );
    const pr: PullRequest = {
      number: this.pullRequests.filter((p) => p.repo === ws.repo).length + 1,
      title: req.title,
      base,
      head,
      body: req.body ?? null,
      repo: ws.repo,
      session_id: sessionId,
      created_at: new Date().toISOString(),
    };
    this.pullRequests.push(pr);
    const record = this.store.get(sessionId)?.record;
    if (record) record.pr_url = `${PR_URL_BASE}/${ws.repo}/pull/${pr.number}`;
    const t = this.transcript(sessionId);
    t.add("git", [
      `Created pull request #${pr.number} in ${ws.repo}: ${pr.title} (${head} → ${base})`,
    ]);
    const commit = tip.stdout.trim();
    return {
      operation: "create-pr",
      success: true,
      result: {
        branch: head,
        sha: commit === "" ? null : commit,
        output: t.text(),
        repository: ws.repo,
        pr_number: pr.number,
        pr_url: `${PR_URL_BASE}/${ws.repo}/pull/${pr.number}`,
        title: pr.title,
        base,
        head,
      },
    };
  }

  /**
   * Runs a review (status, diff, log, files) in the session's workspace, in turn with its git
   * operations; 409 when the session has no repository yet.
   */
  review<T>(sessionId: string, fn: (ws: WorkspaceView) => Promise<T>): Promise<T> {
    return this.serialise(sessionId, async () => {
      const ws = this.needWorkspace(sessionId);
      return fn({ dir: ws.dir, repo: ws.repo, base: ws.base, git: this.git });
    });
  }

  /** The session's workspace folder, or null before a clone (no waiting: a quick look). */
  workspaceDirOf(sessionId: string): string | null {
    return this.workspaces.get(sessionId)?.dir ?? null;
  }

  /** The prompt a change belongs to: the record's prompt count and its start. */
  private promptOf(sessionId: string): string {
    const r = this.store.get(sessionId)?.record;
    return `${r?.prompt_count ?? 0}@${r?.last_prompt?.started_at ?? ""}`;
  }

  /** Keeps a file as it was before the current prompt first touched it (for a rewind). */
  private rememberBefore(sessionId: string, ws: Workspace, path: string): void {
    const prompt = this.promptOf(sessionId);
    let c = this.promptChanges.get(sessionId);
    if (!c || c.prompt !== prompt) {
      c = { prompt, before: new Map() };
      this.promptChanges.set(sessionId, c);
    }
    if (c.before.has(path)) return;
    const full = join(ws.dir, path);
    c.before.set(path, existsSync(full) ? readFileSync(full) : null);
  }

  /** The changes of the newest prompt (none when a newer prompt changed nothing yet). */
  private lastPromptChanges(sessionId: string): PromptChanges | null {
    const c = this.promptChanges.get(sessionId);
    return c && c.prompt === this.promptOf(sessionId) ? c : null;
  }

  /**
   * Undoes the last prompt's file changes: each file it touched is put back as it was (a file
   * it created is removed), said on the stream as file changes. The reverted paths, or an
   * empty list when the last prompt changed nothing (or was rewound already).
   */
  rewind(sessionId: string): Promise<string[]> {
    return this.serialise(sessionId, async () => {
      const ws = this.workspaces.get(sessionId);
      const c = this.lastPromptChanges(sessionId);
      this.promptChanges.delete(sessionId);
      if (!ws || !c) return [];
      const changes: { path: string; action: FileAction }[] = [];
      for (const [path, before] of c.before) {
        const full = join(ws.dir, path);
        if (before === null) {
          if (existsSync(full)) unlinkSync(full);
          ws.created = ws.created.filter((p) => p !== path);
          ws.editable = ws.editable.filter((p) => p !== path);
          changes.push({ path, action: "deleted" });
        } else {
          const existed = existsSync(full);
          mkdirSync(dirname(full), { recursive: true });
          writeFileSync(full, before);
          if (!ws.editable.includes(path) && /\.(md|ts)$/.test(path)) ws.editable.push(path);
          changes.push({ path, action: existed ? "modified" : "created" });
        }
      }
      this.transcript(sessionId).files(changes);
      return changes.map((x) => x.path);
    });
  }

  /**
   * Make a simulated edit real in a cloned session's workspace. Null when the session has no
   * workspace or a git operation is running in it (the simulator then reports a placeholder).
   */
  touchFile(sessionId: string, wanted: FileAction): { path: string; action: FileAction } | null {
    const ws = this.workspaces.get(sessionId);
    if (!ws || this.busy.has(sessionId)) return null;
    try {
      if (wanted === "deleted" && ws.created.length > 0) {
        const i = this.rand.int(ws.created.length);
        const path = ws.created.splice(i, 1)[0] as string;
        this.rememberBefore(sessionId, ws, path);
        unlinkSync(join(ws.dir, path));
        ws.editable = ws.editable.filter((p) => p !== path);
        return { path, action: "deleted" };
      }
      if (wanted === "created" || ws.editable.length === 0) {
        const n = ++ws.counter;
        const path = ws.repo === "demo/docs" ? `docs/notes-${n}.md` : `src/agent/change-${n}.ts`;
        const full = join(ws.dir, path);
        this.rememberBefore(sessionId, ws, path);
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(
          full,
          path.endsWith(".md") ? `# Notes ${n}\n` : `export const change${n} = ${n};\n`,
        );
        ws.created.push(path);
        ws.editable.push(path);
        return { path, action: "created" };
      }
      const path = this.rand.pick(ws.editable);
      const line = path.endsWith(".md")
        ? `\nEdited by the agent (${new Date().toISOString()}).\n`
        : `// edited by the agent\n`;
      this.rememberBefore(sessionId, ws, path);
      appendFileSync(join(ws.dir, path), line);
      return { path, action: "modified" };
    } catch {
      return null;
    }
  }
}
