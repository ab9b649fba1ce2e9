import { spawn } from "node:child_process";
import {
  type DiffFile,
  diffFilePath,
  fileText,
  indexUnifiedDiff,
} from "../protocol/unifiedDiff.js";

/**
 * The user's own git checkout: taking a session's work home. Used by the headless commands
 * (`apply`, `checkout`) and by the UI (through its store), so both decide the same way.
 *
 * git runs with an argument array, never a shell, in the repository's top folder (git apply
 * run in a subfolder silently skips the paths outside it), with the user's own configuration
 * (it is their repository) but no terminal prompt and C-locale messages (they are read here).
 *
 * `applyPatch` never leaves a half-applied tree: a preflight `git apply --check` first, and
 * only a patch that passes whole is applied (git apply itself is all or nothing). With
 * `threeWay`, a patch whose context moved is merged three ways, but only when the preflight
 * says no file would conflict: a conflict is named and nothing is written. A patch that
 * applies in reverse is said to be applied already.
 */

export class LocalGitError extends Error {
  constructor(
    message: string,
    /** What to do about it, one line. */
    readonly hint: string,
  ) {
    super(message);
    this.name = "LocalGitError";
  }
}

interface GitRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Output kept per run: a listing of a huge repository is cut here (said by the caller). */
const MAX_OUTPUT = 16 * 1024 * 1024;
/** Files checked one by one to name the ones that conflict. */
const MAX_FILES_CHECKED = 500;

/** Runs git; never rejects (git missing is exit 127 with the reason on stderr). */
function runGit(args: readonly string[], cwd: string, input?: string): Promise<GitRun> {
  return new Promise((resolve) => {
    const child = spawn("git", args, {
      cwd,
      env: { ...process.env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C", LANGUAGE: "" },
      stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      windowsHide: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    const keep = (into: Buffer[]) => (b: Buffer) => {
      size += b.length;
      if (size <= MAX_OUTPUT) into.push(b);
    };
    child.stdout?.on("data", keep(out));
    child.stderr?.on("data", keep(err));
    let done = false;
    const finish = (code: number, extra = "") => {
      if (done) return;
      done = true;
      resolve({
        code,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8") + extra,
      });
    };
    child.on("error", (e) => finish(127, e.message));
    child.on("close", (code) => finish(code ?? 1));
    if (input !== undefined) {
      child.stdin?.on("error", () => undefined);
      child.stdin?.end(input);
    }
  });
}

export interface LocalRepo {
  /** The repository's top folder. */
  root: string;
  /** The checked-out branch (null: a detached HEAD). */
  branch: string | null;
}

/** The git repository `cwd` is in, or a LocalGitError saying it is in none. */
export async function localRepo(cwd: string): Promise<LocalRepo> {
  const top = await runGit(["rev-parse", "--show-toplevel"], cwd);
  if (top.code === 127) {
    throw new LocalGitError("git is not installed (or not on PATH)", "Install git and try again.");
  }
  if (top.code !== 0) {
    throw new LocalGitError(
      `${cwd} is not inside a git repository`,
      "Run this in a checkout of the session's repository (git clone it first).",
    );
  }
  const root = top.stdout.trim();
  const b = await runGit(["branch", "--show-current"], root);
  const branch = b.stdout.trim();
  return { root, branch: branch === "" ? null : branch };
}

export interface Conflict {
  path: string;
  /** git's words for why (sanitize before showing: paths come from the patch). */
  reason: string;
}

export type ApplyOutcome =
  /** Applied whole; `threeWay` when the three-way merge was needed. */
  | { kind: "applied"; repo: LocalRepo; files: string[]; threeWay: boolean }
  /** `check` only: it would apply whole; nothing was written. */
  | { kind: "would-apply"; repo: LocalRepo; files: string[]; threeWay: boolean }
  /** It applies in reverse: these changes are in the checkout already. Nothing written. */
  | { kind: "already-applied"; repo: LocalRepo; files: string[] }
  /** It does not apply: the files named conflict, nothing was written. */
  | { kind: "conflict"; repo: LocalRepo; files: string[]; conflicts: Conflict[] }
  /** The patch changes nothing. */
  | { kind: "empty"; repo: LocalRepo };

export interface ApplyOptions {
  /** Where to look for the repository (its top folder is used). */
  cwd: string;
  /** Only check: write nothing. */
  check?: boolean;
  /** Fall back on a three-way merge (needs the patch's base blobs in the repository). */
  threeWay?: boolean;
}

/** The paths a diff touches (both sides of a rename). */
function touched(files: readonly DiffFile[]): string[] {
  const out = new Set<string>();
  for (const f of files) {
    if (f.oldPath !== null) out.add(f.oldPath);
    if (f.newPath !== null) out.add(f.newPath);
  }
  return [...out];
}

const REASON =
  /^error: (?:patch failed: )?(.+?)(?::(\d+))?: (patch does not apply|already exists in working directory|does not exist in index|No such file or directory|does not match index|already exists in index|is in the way|.+)$/;

/** The files git names in its refusal, with its reasons. */
function conflictsFromGit(stderr: string): Conflict[] {
  const byPath = new Map<string, string>();
  for (const line of stderr.split("\n")) {
    const withConflicts = /^Applied patch to '(.+)' with conflicts\.$/.exec(line);
    if (withConflicts) {
      byPath.set(withConflicts[1] as string, "would conflict in a three-way merge");
      continue;
    }
    if (line.startsWith("error: patch failed: ")) continue;
    const m = REASON.exec(line);
    if (m && !byPath.has(m[1] as string)) byPath.set(m[1] as string, m[3] as string);
  }
  return [...byPath].map(([path, reason]) => ({ path, reason }));
}

/**
 * Applies a session's patch to the checkout at `cwd`: preflight, then all or nothing. The
 * patch is given to git on its standard input, exactly as the service sent it.
 */
export async function applyPatch(patch: string, opts: ApplyOptions): Promise<ApplyOutcome> {
  const repo = await localRepo(opts.cwd);
  const index = indexUnifiedDiff(patch);
  const files = touched(index.files);
  if (index.files.length === 0) return { kind: "empty", repo };
  const apply = (extra: string[], text = patch) =>
    runGit(["apply", "--whitespace=nowarn", ...extra, "-"], repo.root, text);

  const plain = await apply(["--check"]);
  let threeWay = false;
  if (plain.code !== 0) {
    if ((await apply(["--check", "--reverse"])).code === 0) {
      return { kind: "already-applied", repo, files };
    }
    if (opts.threeWay) {
      const merged = await apply(["--check", "--3way"]);
      const conflicts = conflictsFromGit(merged.stderr);
      if (merged.code === 0 && conflicts.length === 0) threeWay = true;
      else
        return { kind: "conflict", repo, files, conflicts: await nameConflicts(conflicts, plain) };
    } else {
      return { kind: "conflict", repo, files, conflicts: await nameConflicts([], plain) };
    }
  }
  if (opts.check) return { kind: "would-apply", repo, files, threeWay };
  const done = await apply(threeWay ? ["--3way"] : []);
  if (done.code !== 0) {
    // The tree changed between the check and now (another process): git apply wrote nothing.
    return { kind: "conflict", repo, files, conflicts: conflictsFromGit(done.stderr) };
  }
  return { kind: "applied", repo, files, threeWay };

  /** Every file that does not apply, each checked alone when git named only the first. */
  async function nameConflicts(known: Conflict[], failed: GitRun): Promise<Conflict[]> {
    const named = known.length > 0 ? known : conflictsFromGit(failed.stderr);
    if (index.files.length > MAX_FILES_CHECKED) return named;
    const out: Conflict[] = [];
    for (const f of index.files) {
      const path = diffFilePath(f);
      const already = named.find((c) => c.path === path || c.path === f.oldPath);
      if (already) {
        out.push(already);
        continue;
      }
      const alone = await apply(["--check"], fileText(index, f));
      if (alone.code !== 0) {
        out.push(conflictsFromGit(alone.stderr)[0] ?? { path, reason: "does not apply" });
      }
    }
    return out.length > 0 ? out : named;
  }
}

export type CheckoutOutcome = {
  kind: "created" | "updated" | "up-to-date";
  branch: string;
  remote: string;
  commit: string;
  switched: boolean;
  dirty: boolean;
};

export interface CheckoutOptions {
  cwd: string;
  /** The branch the session pushed. */
  branch: string;
  /** The session's repository, owner/repo: the remote pointing at it is used. */
  repo?: string | null;
  /** A remote name or URL to fetch from instead. */
  remote?: string | null;
}

/** The remote (name) of the checkout whose URL is the session's repository. */
async function remoteFor(root: string, repo: string | null | undefined): Promise<string> {
  const r = await runGit(["remote", "-v"], root);
  const remotes = new Map<string, string>();
  for (const line of r.stdout.split("\n")) {
    const m = /^(\S+)\t(\S+) \(fetch\)$/.exec(line);
    if (m) remotes.set(m[1] as string, m[2] as string);
  }
  if (repo) {
    const want = repo.toLowerCase().replace(/\.git$/, "");
    for (const [name, url] of remotes) {
      const u = url
        .toLowerCase()
        .replace(/\/+$/, "")
        .replace(/\.git$/, "");
      if (u.endsWith(`/${want}`) || u.endsWith(`:${want}`)) return name;
    }
  }
  if (!repo && remotes.has("origin")) return "origin";
  if (repo) {
    throw new LocalGitError(
      `no remote of this checkout points at ${repo}, the session's repository`,
      `Add one (git remote add session <url of ${repo}>) and run checkout again, or run it in a clone of ${repo}.`,
    );
  }
  throw new LocalGitError(
    "this checkout has no remote to fetch the session's branch from",
    "Add the session's repository as a remote (git remote add origin <url>) and try again.",
  );
}

/**
 * Fetches the branch the session pushed into a local branch of the same name: created when
 * new, fast-forwarded when it is behind, never overwritten when it has commits of its own
 * (or when it is checked out with uncommitted changes). It is switched to when the working
 * tree is clean.
 */
export async function checkoutBranch(opts: CheckoutOptions): Promise<CheckoutOutcome> {
  const repo = await localRepo(opts.cwd);
  const { branch } = opts;
  const valid = await runGit(["check-ref-format", "--branch", branch], repo.root);
  if (branch.startsWith("-") || valid.code !== 0) {
    throw new LocalGitError(
      `"${branch}" is not a branch name git accepts`,
      "Check the session's branch with agent-sessions git push.",
    );
  }
  const remote = opts.remote ?? (await remoteFor(repo.root, opts.repo));
  const ls = await runGit(["ls-remote", "--heads", remote, `refs/heads/${branch}`], repo.root);
  if (ls.code !== 0) {
    throw new LocalGitError(
      `could not reach ${remote}: ${lastLine(ls)}`,
      "Check your access to the repository (git fetch works?) and try again.",
    );
  }
  const tip = ls.stdout.split(/\s/)[0] ?? "";
  if (tip === "") {
    throw new LocalGitError(
      `${remote} has no branch ${branch}: the session has not pushed it yet`,
      "Push it from the session first (agent-sessions git push SESSION), then run checkout again.",
    );
  }
  const fetch = await runGit(["fetch", "--no-tags", remote, `refs/heads/${branch}`], repo.root);
  if (fetch.code !== 0) {
    throw new LocalGitError(
      `git fetch failed: ${lastLine(fetch)}`,
      "Check your access to the repository and try again.",
    );
  }
  const status = await runGit(["status", "--porcelain", "--untracked-files=no"], repo.root);
  const dirty = status.stdout.trim() !== "";
  const local = (
    await runGit(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], repo.root)
  ).stdout.trim();
  const current = repo.branch === branch;
  let kind: CheckoutOutcome["kind"];
  if (local === "") {
    const made = await runGit(["branch", "--no-track", branch, tip], repo.root);
    if (made.code !== 0)
      throw new LocalGitError(
        `git branch failed: ${lastLine(made)}`,
        "Check the repository's state.",
      );
    kind = "created";
  } else if (local === tip) {
    kind = "up-to-date";
  } else {
    const ff = await runGit(["merge-base", "--is-ancestor", local, tip], repo.root);
    if (ff.code !== 0) {
      throw new LocalGitError(
        `your branch ${branch} has commits the session's does not: it was left as it is`,
        `Rename yours (git branch -m ${branch} ${branch}-mine) or merge the session's (git merge FETCH_HEAD) yourself.`,
      );
    }
    if (current) {
      if (dirty) {
        throw new LocalGitError(
          `${branch} is checked out with uncommitted changes: it was left as it is`,
          "Commit or stash your changes, then run checkout again.",
        );
      }
      const m = await runGit(["merge", "--ff-only", tip], repo.root);
      if (m.code !== 0)
        throw new LocalGitError(
          `git merge failed: ${lastLine(m)}`,
          "Check the repository's state.",
        );
    } else {
      const u = await runGit(["update-ref", `refs/heads/${branch}`, tip, local], repo.root);
      if (u.code !== 0)
        throw new LocalGitError(
          `git update-ref failed: ${lastLine(u)}`,
          "Check the repository's state.",
        );
    }
    kind = "updated";
  }
  let switched = current;
  if (!current && !dirty) {
    const sw = await runGit(["switch", branch], repo.root);
    switched = sw.code === 0;
  }
  return { kind, branch, remote, commit: tip, switched, dirty };
}

function lastLine(r: GitRun): string {
  const lines = `${r.stderr}\n${r.stdout}`
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return lines[lines.length - 1] ?? `exit code ${r.code}`;
}
