import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { HttpError } from "../http/httpError.js";
import { outputLines } from "./gitRunner.js";
import type { WorkspaceView } from "./gitWorkspaces.js";

/**
 * What the reference service answers about a session's workspace: git status, diff and log
 * run in its real clone, and its files listed, read and searched from disk. The answers follow
 * the real service's documents (git-operation.mdx: `{operation, success, result}`;
 * files-list.mdx, files-read.mdx, files-search.mdx); paths are shown as the documents show
 * them, from the workspace's root with a leading `/`.
 */

/** Bounds: a listing, a search and a read stop here, and say so. */
const MAX_ENTRIES = 5000;
const MAX_SEARCH_FILES = 2000;
const MAX_SEARCH_RESULTS = 100;
const MAX_MATCHES_PER_FILE = 20;
const MAX_READ_BYTES = 4 * 1024 * 1024;
const MAX_SEARCH_BYTES = 1024 * 1024;
const MAX_LOG = 50;

function fail(r: { code: number; stdout: string; stderr: string }, what: string): never {
  const lines = outputLines(r);
  throw HttpError.detail(500, `git ${what} failed: ${lines[lines.length - 1] ?? `exit ${r.code}`}`);
}

/** `git status`: the changed files since the last commit, untracked ones each named. */
export async function workspaceStatus(ws: WorkspaceView): Promise<Record<string, unknown>> {
  const r = await ws.git.run(["status", "--porcelain=v1", "-b", "--untracked-files=all"], ws.dir);
  if (r.code !== 0) fail(r, "status");
  const lines = r.stdout.split("\n").filter((l) => l !== "");
  const head = lines[0]?.startsWith("## ") ? (lines.shift() as string) : null;
  const branch = head ? (head.slice(3).split("...")[0] ?? null) : null;
  const files = lines.map((l) => {
    const path = l.slice(3);
    const arrow = path.indexOf(" -> ");
    return arrow === -1
      ? { path, status: l.slice(0, 2).trim() || "M" }
      : { path: path.slice(arrow + 4), from: path.slice(0, arrow), status: l.slice(0, 2).trim() };
  });
  return {
    operation: "status",
    success: true,
    result: { branch, clean: files.length === 0, files, output: r.stdout },
  };
}

/**
 * `git diff`: everything the session changed since its clone (commits, staged, unstaged and
 * new files alike), binary files as `GIT binary patch` so the patch applies elsewhere. The
 * new files are staged in a throwaway index, never the workspace's own.
 */
export async function workspaceDiff(ws: WorkspaceView): Promise<Record<string, unknown>> {
  const scratch = mkdtempSync(join(tmpdir(), "agent-sessions-index-"));
  try {
    const env = { GIT_INDEX_FILE: join(scratch, "index") };
    const add = await ws.git.run(["add", "-A", "."], ws.dir, env);
    if (add.code !== 0) fail(add, "add");
    const base = ws.base ?? "HEAD";
    const r = await ws.git.run(
      ["diff", "--cached", "--binary", "--find-renames", "--no-color", "--no-ext-diff", base],
      ws.dir,
      env,
    );
    if (r.code !== 0) fail(r, "diff");
    const files = r.stdout.match(/^diff --git /gm)?.length ?? 0;
    return {
      operation: "diff",
      success: true,
      result: { diff: r.stdout, files_changed: files, base },
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** `git log`: the newest commits of the workspace's branch. */
export async function workspaceLog(ws: WorkspaceView): Promise<Record<string, unknown>> {
  const r = await ws.git.run(["log", `-n${MAX_LOG}`, "--format=%H%x1f%an%x1f%aI%x1f%s"], ws.dir);
  if (r.code !== 0) fail(r, "log");
  const commits = r.stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      const [sha, author, date, message] = l.split("\x1f");
      return { sha, author, date, message };
    });
  return { operation: "log", success: true, result: { commits } };
}

/** A path of the request inside the workspace (the `.git` folder excluded), else 400/404. */
function inside(dir: string, path: string): string {
  const full = resolve(dir, `.${sep}${path.replace(/^[/\\]+/, "")}`);
  const rel = relative(dir, full);
  if (rel.startsWith("..") || rel.split(sep)[0] === ".git" || rel.includes("\0")) {
    throw HttpError.detail(400, `Path ${path.slice(0, 200)} is outside the workspace`);
  }
  return full;
}

/** The documented form of a workspace path: from its root, with a leading `/`. */
function shown(dir: string, full: string): string {
  return `/${relative(dir, full).split(sep).join("/")}`;
}

interface Entry {
  name: string;
  path: string;
  type: "file" | "directory";
  size: number;
}

/** Entries under a folder (never following a link out of it), bounded. */
function walk(dir: string, from: string, recursive: boolean, limit: number): Entry[] {
  const out: Entry[] = [];
  const queue = [from];
  while (queue.length > 0 && out.length < limit) {
    const folder = queue.shift() as string;
    const names = readdirSync(folder).sort();
    for (const name of names) {
      if (name === ".git" && folder === dir) continue;
      const full = join(folder, name);
      const st = lstatSync(full);
      if (st.isSymbolicLink()) continue;
      const type = st.isDirectory() ? "directory" : "file";
      out.push({ name, path: shown(dir, full), type, size: type === "file" ? st.size : 0 });
      if (recursive && type === "directory") queue.push(full);
      if (out.length >= limit) break;
    }
  }
  return out;
}

/** GET …/files: `{files: [{name, path, type, size}]}` (`truncated` when the bound was hit). */
export function listFiles(dir: string | null, path: string, recursive: boolean) {
  if (dir === null) {
    if (path.replace(/\/+$/, "") !== "")
      throw HttpError.detail(404, `Path ${path.slice(0, 200)} not found`);
    return { files: [] };
  }
  const full = inside(dir, path);
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(full);
  } catch {
    throw HttpError.detail(404, `Path ${path.slice(0, 200)} not found`);
  }
  if (!st.isDirectory())
    throw HttpError.detail(400, `Path ${path.slice(0, 200)} is not a directory`);
  const files = walk(dir, full, recursive, MAX_ENTRIES + 1);
  const truncated = files.length > MAX_ENTRIES;
  return { files: files.slice(0, MAX_ENTRIES), ...(truncated ? { truncated: true } : {}) };
}

/** NUL in the first 8000 bytes: binary, as git decides. */
function isBinary(b: Buffer): boolean {
  return b.subarray(0, 8000).includes(0);
}

/** GET …/file: `{content, path, size}`; a binary file's content in base64 (`encoding`). */
export function readFile(dir: string | null, path: string) {
  if (path === "") throw HttpError.invalid("path", "path is required", 422);
  const notFound = () => HttpError.detail(404, `File ${path.slice(0, 200)} not found`);
  if (dir === null) throw notFound();
  const full = inside(dir, path);
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(full);
  } catch {
    throw notFound();
  }
  if (!st.isFile()) throw HttpError.detail(400, `Path ${path.slice(0, 200)} is not a file`);
  if (st.size > MAX_READ_BYTES) {
    throw HttpError.detail(
      413,
      `File ${path.slice(0, 200)} is larger than ${MAX_READ_BYTES} bytes`,
    );
  }
  const bytes = readFileSync(full);
  const shownPath = shown(dir, full);
  return isBinary(bytes)
    ? { content: bytes.toString("base64"), encoding: "base64", path: shownPath, size: st.size }
    : { content: bytes.toString("utf8"), path: shownPath, size: st.size };
}

/**
 * GET …/files/search: files whose name or lines hold the query (case-insensitive), each with
 * its matching lines (a name-only match has none). Bounded in files read and results.
 */
export function searchFiles(dir: string | null, query: string, path: string) {
  if (query === "") throw HttpError.invalid("query", "query is required", 422);
  if (dir === null) return { results: [] };
  const q = query.toLowerCase();
  const entries = walk(dir, inside(dir, path), true, MAX_SEARCH_FILES).filter(
    (e) => e.type === "file",
  );
  const results: { path: string; matches: { line: number; content: string }[] }[] = [];
  for (const e of entries) {
    if (results.length >= MAX_SEARCH_RESULTS) break;
    const matches: { line: number; content: string }[] = [];
    if (e.size <= MAX_SEARCH_BYTES) {
      const bytes = readFileSync(join(dir, e.path));
      if (!isBinary(bytes)) {
        const lines = bytes.toString("utf8").split("\n");
        for (let i = 0; i < lines.length && matches.length < MAX_MATCHES_PER_FILE; i++) {
          const line = lines[i] as string;
          if (line.toLowerCase().includes(q)) matches.push({ line: i + 1, content: line });
        }
      }
    }
    if (matches.length > 0 || e.name.toLowerCase().includes(q))
      results.push({ path: e.path, matches });
  }
  return { results };
}

/** Files and folders of the workspace, for workspace-state's `file_tree` (bounded). */
export function fileTree(dir: string | null) {
  if (dir === null) return { root: "/workspace", total_files: 0, total_dirs: 0 };
  const all = walk(dir, dir, true, MAX_ENTRIES);
  return {
    root: "/workspace",
    total_files: all.filter((e) => e.type === "file").length,
    total_dirs: all.filter((e) => e.type === "directory").length,
  };
}
