import { GIT_PATHS, type GitRequest } from "./git.js";
import { recordValue as rec } from "./values.js";

/**
 * Reading what a session changed: the git operations `status`, `diff` and `log` of the
 * documented `POST …/sessions/{id}/git` (`{operation, args}`; `sessions:write`), whose
 * `result` the real service documents only as "operation-specific result data". Servers put
 * a patch in `result.diff`, `result.patch`, `result.output`, `result.stdout`, a bare string,
 * a list of files each with its own `patch` or `diff`, or the same fields at the top level;
 * status as a list of `files`/`changes` (strings or objects), `staged`/`unstaged`/`untracked`
 * lists, or porcelain text. Each reader below tries those in one documented order and says
 * plainly when the answer held nothing usable (`kind: "unusable"`, naming the fields it saw),
 * rather than showing an empty diff that is not one.
 */

export type GitReviewOperation = "status" | "diff" | "log";

/**
 * The request of a review operation: the interface's `/git/operation` path first, then the
 * documented `/git` (the same `{operation, args}` body: the documented one). Which one a
 * service serves is learned per base URL like every git action's (client/routes.ts).
 */
export function gitReviewRequest(
  sessionId: string,
  operation: GitReviewOperation,
  args: Record<string, unknown> = {},
): GitRequest {
  return {
    paths: [GIT_PATHS.operation(sessionId), GIT_PATHS.operationDocumented(sessionId)],
    body: { operation, args },
  };
}

type Rec = Record<string, unknown>;

function str(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}

/** The places an answer's data may be, in order: `result` (object), then the top level. */
function layers(body: unknown): Rec[] {
  const top = rec(body);
  const result = rec(top?.result);
  const data = rec(top?.data);
  return [result, data, top].filter((r): r is Rec => r !== null);
}

/** What fields an answer had (for "held nothing usable"), at most a few, names only. */
function fieldsSeen(body: unknown): string {
  if (typeof body === "string") return body.trim() === "" ? "an empty body" : "a text body";
  if (Array.isArray(body)) return `a list of ${body.length}`;
  const top = rec(body);
  if (!top) return body === null ? "an empty body" : `a ${typeof body}`;
  const names = Object.keys(top).slice(0, 8);
  const result = rec(top.result);
  const inner = result ? Object.keys(result).slice(0, 8) : [];
  const said = names.length ? `fields ${names.join(", ")}` : "an empty object";
  return inner.length ? `${said}; result: ${inner.join(", ")}` : said;
}

export type Unusable = { kind: "unusable"; reason: string };

// --- diff ---------------------------------------------------------------------------------

export type DiffReading =
  | {
      kind: "patch";
      /** The unified diff, as sent (or assembled from per-file patches). */
      patch: string;
      /** Where it was found, e.g. `result.diff` or `result.files[].patch`. */
      from: string;
    }
  /** The answer said there is nothing to show (an empty patch, an empty list of files). */
  | { kind: "empty"; from: string }
  | Unusable;

const PATCH_FIELDS = ["diff", "patch", "output", "stdout", "content", "text"] as const;
const FILE_LISTS = ["files", "changes", "diffs"] as const;
const FILE_PATCH_FIELDS = ["patch", "diff", "content"] as const;
const PATH_FIELDS = ["path", "filename", "file", "name", "new_path"] as const;

function firstOf(o: Rec, keys: readonly string[]): [string, string] | null {
  for (const k of keys) {
    const v = str(o[k]);
    if (v !== null) return [k, v];
  }
  return null;
}

/**
 * A file's own patch as a whole diff section: a bare `@@` hunk list (as code hosting APIs
 * send one) gets the `diff --git` and `---`/`+++` headers `git apply` needs.
 */
function fileSection(path: string, patch: string, status: string | null): string {
  const body = patch.endsWith("\n") || patch === "" ? patch : `${patch}\n`;
  if (/^(?:diff --git |--- )/m.test(body.slice(0, 2000))) return body;
  const added = status !== null && /^(?:a|added|new|created)$/i.test(status);
  const deleted = status !== null && /^(?:d|deleted|removed)$/i.test(status);
  const head = [`diff --git a/${path} b/${path}`];
  if (added) head.push("new file mode 100644");
  if (deleted) head.push("deleted file mode 100644");
  head.push(added ? "--- /dev/null" : `--- a/${path}`);
  head.push(deleted ? "+++ /dev/null" : `+++ b/${path}`);
  return `${head.join("\n")}\n${body}`;
}

/** Reads the patch of a `diff` answer, wherever the server put it. */
export function readDiffAnswer(body: unknown): DiffReading {
  if (typeof body === "string") {
    return body.trim() === ""
      ? { kind: "empty", from: "body" }
      : { kind: "patch", patch: body, from: "body" };
  }
  const top = rec(body);
  if (top && typeof top.result === "string") {
    return top.result.trim() === ""
      ? { kind: "empty", from: "result" }
      : { kind: "patch", patch: top.result, from: "result" };
  }
  const where = (o: Rec) => (o === top ? "" : o === rec(top?.result) ? "result." : "data.");
  for (const layer of layers(body)) {
    const hit = firstOf(layer, PATCH_FIELDS);
    if (hit) {
      const from = `${where(layer)}${hit[0]}`;
      return hit[1].trim() === ""
        ? { kind: "empty", from }
        : { kind: "patch", patch: hit[1], from };
    }
  }
  const lists: [string, unknown][] = [];
  for (const layer of layers(body))
    for (const k of FILE_LISTS) lists.push([`${where(layer)}${k}`, layer[k]]);
  if (Array.isArray(body)) lists.push(["body", body]);
  for (const [name, list] of lists) {
    if (!Array.isArray(list)) continue;
    if (list.length === 0) return { kind: "empty", from: name };
    const parts: string[] = [];
    let field = "patch";
    for (const item of list) {
      const o = rec(item);
      if (!o) continue;
      const p = firstOf(o, FILE_PATCH_FIELDS);
      const path = firstOf(o, PATH_FIELDS);
      if (!p) continue;
      field = p[0];
      const status = firstOf(o, ["status", "change_type", "action"]);
      parts.push(path ? fileSection(path[1], p[1], status?.[1] ?? null) : p[1]);
    }
    if (parts.length > 0) {
      return { kind: "patch", patch: parts.join(""), from: `${name}[].${field}` };
    }
  }
  return {
    kind: "unusable",
    reason: `the answer held no patch (${fieldsSeen(body)})`,
  };
}

// --- status -------------------------------------------------------------------------------

export interface StatusEntry {
  path: string;
  /** The old path of a rename or copy. */
  from: string | null;
  /** What happened, in one word: modified, added, deleted, renamed, copied, untracked, … */
  change: string;
  /** Staged in the session's index, when the answer says. */
  staged: boolean | null;
}

export type StatusReading =
  | { kind: "status"; files: StatusEntry[]; branch: string | null; from: string }
  | Unusable;

const CODES: Record<string, string> = {
  M: "modified",
  A: "added",
  D: "deleted",
  R: "renamed",
  C: "copied",
  U: "conflicted",
  T: "type changed",
  "?": "untracked",
  "!": "ignored",
};

/** A change word from a code (`M`, ` M`, `??`) or a word (`modified`, `new`, `created`). */
function changeWord(raw: string): string {
  const t = raw.trim();
  if (t === "") return "modified";
  if (t.length <= 2) {
    const c = t === "??" ? "?" : (t.replace(/\s/g, "")[0] ?? "M");
    return CODES[c.toUpperCase()] ?? t;
  }
  const w = t.toLowerCase();
  if (w === "new" || w === "created") return "added";
  if (w === "removed") return "deleted";
  return w;
}

/** `git status --porcelain` (v1) text, or `--short`: `XY path` and `XY old -> new`. */
function readPorcelain(text: string): StatusEntry[] {
  const out: StatusEntry[] = [];
  for (const raw of text.split(/\r?\n/)) {
    if (raw.length < 4 || raw.startsWith("##")) continue;
    const m = /^([ MADRCUT?!]{2}) (.+)$/.exec(raw);
    if (!m) continue;
    const xy = m[1] as string;
    let path = m[2] as string;
    let from: string | null = null;
    const arrow = path.indexOf(" -> ");
    if (arrow !== -1) {
      from = path.slice(0, arrow);
      path = path.slice(arrow + 4);
    }
    const staged = xy[0] !== " " && xy[0] !== "?" && xy[0] !== "!";
    out.push({ path, from, change: changeWord(xy), staged: xy === "??" ? false : staged });
  }
  return out;
}

function entryOf(item: unknown, staged: boolean | null, change?: string): StatusEntry | null {
  if (typeof item === "string") {
    if (item.trim() === "") return null;
    return { path: item, from: null, change: change ?? "modified", staged };
  }
  const o = rec(item);
  if (!o) return null;
  const path = firstOf(o, PATH_FIELDS);
  if (!path) return null;
  const code = firstOf(o, ["status", "change_type", "change", "action", "state", "type"]);
  const from = firstOf(o, ["from", "old_path", "previous_filename", "orig_path"]);
  const flag = typeof o.staged === "boolean" ? o.staged : staged;
  return {
    path: path[1],
    from: from?.[1] ?? null,
    change: change ?? changeWord(code?.[1] ?? ""),
    staged: flag,
  };
}

/** Reads a `status` answer: lists of files in any of their shapes, or porcelain text. */
export function readStatusAnswer(body: unknown): StatusReading {
  const top = rec(body);
  let branch: string | null = null;
  for (const layer of layers(body)) {
    branch ??= firstOf(layer, ["branch", "current_branch", "head"])?.[1] ?? null;
  }
  const where = (o: Rec) => (o === top ? "" : o === rec(top?.result) ? "result." : "data.");
  for (const layer of layers(body)) {
    for (const k of ["files", "changes", "entries"]) {
      const list = layer[k];
      if (!Array.isArray(list)) continue;
      const files = list.map((i) => entryOf(i, null)).filter((e): e is StatusEntry => e !== null);
      return { kind: "status", files, branch, from: `${where(layer)}${k}` };
    }
    const groups: [string, boolean | null, string | undefined][] = [
      ["staged", true, undefined],
      ["unstaged", false, undefined],
      ["modified", null, "modified"],
      ["added", null, "added"],
      ["deleted", null, "deleted"],
      ["untracked", false, "untracked"],
    ];
    if (groups.some(([k]) => Array.isArray(layer[k]))) {
      const files: StatusEntry[] = [];
      for (const [k, staged, change] of groups) {
        const list = layer[k];
        if (!Array.isArray(list)) continue;
        for (const i of list) {
          const e = entryOf(i, staged, change);
          if (e) files.push(e);
        }
      }
      return { kind: "status", files, branch, from: `${where(layer)}staged/unstaged/untracked` };
    }
  }
  const text =
    typeof body === "string"
      ? ["body", body]
      : typeof top?.result === "string"
        ? ["result", top.result]
        : (() => {
            for (const layer of layers(body)) {
              const hit = firstOf(layer, ["porcelain", "status", "output", "stdout"]);
              if (hit) return [`${where(layer)}${hit[0]}`, hit[1]];
            }
            return null;
          })();
  if (text) {
    const [from, t] = text as [string, string];
    const files = readPorcelain(t);
    const clean = /nothing to commit|working tree clean/i.test(t);
    if (files.length > 0 || t.trim() === "" || clean) {
      if (branch === null) {
        const b = /^## ([^.\s]+)/m.exec(t) ?? /^On branch (\S+)/m.exec(t);
        branch = b ? (b[1] as string) : null;
      }
      return { kind: "status", files, branch, from };
    }
  }
  return { kind: "unusable", reason: `the answer held no file status (${fieldsSeen(body)})` };
}

// --- log ----------------------------------------------------------------------------------

export interface LogEntry {
  sha: string;
  subject: string;
  author: string | null;
  date: string | null;
}

export type LogReading = { kind: "log"; commits: LogEntry[]; from: string } | Unusable;

function commitOf(item: unknown): LogEntry | null {
  const o = rec(item);
  if (!o) return null;
  const sha = firstOf(o, ["sha", "hash", "commit", "id"]);
  if (!sha) return null;
  const msg = firstOf(o, ["subject", "message", "title", "summary"]);
  const authorRec = rec(o.author);
  const author =
    str(o.author) ?? (authorRec ? (firstOf(authorRec, ["name", "email"])?.[1] ?? null) : null);
  const date = firstOf(o, ["date", "authored_at", "committed_at", "timestamp", "time"]);
  return {
    sha: sha[1],
    subject: (msg?.[1] ?? "").split("\n")[0] ?? "",
    author: author ?? firstOf(o, ["author_name"])?.[1] ?? null,
    date: date?.[1] ?? null,
  };
}

/** `git log` text: `--oneline` lines, or the full form's `commit <sha>` blocks. */
function readLogText(text: string): LogEntry[] {
  const out: LogEntry[] = [];
  if (/^commit [0-9a-f]{7,64}\b/m.test(text)) {
    for (const block of text.split(/^(?=commit [0-9a-f]{7,64}\b)/m)) {
      const sha = /^commit ([0-9a-f]{7,64})/.exec(block);
      if (!sha) continue;
      const author = /^Author:\s*(.+)$/m.exec(block);
      const date = /^Date:\s*(.+)$/m.exec(block);
      const subject = /\n\n {4}(.*)/.exec(block);
      out.push({
        sha: sha[1] as string,
        subject: subject ? (subject[1] as string) : "",
        author: author ? (author[1] as string).trim() : null,
        date: date ? (date[1] as string).trim() : null,
      });
    }
    return out;
  }
  for (const line of text.split(/\r?\n/)) {
    const m = /^\*?\s*([0-9a-f]{7,64})\s+(.*)$/.exec(line);
    if (m) out.push({ sha: m[1] as string, subject: m[2] as string, author: null, date: null });
  }
  return out;
}

/** Reads a `log` answer: a list of commits in any of their shapes, or `git log` text. */
export function readLogAnswer(body: unknown): LogReading {
  const top = rec(body);
  const where = (o: Rec) => (o === top ? "" : o === rec(top?.result) ? "result." : "data.");
  const lists: [string, unknown][] = [];
  for (const layer of layers(body)) {
    for (const k of ["commits", "log", "entries"]) lists.push([`${where(layer)}${k}`, layer[k]]);
  }
  if (Array.isArray(body)) lists.push(["body", body]);
  for (const [from, list] of lists) {
    if (!Array.isArray(list)) continue;
    const commits = list.map(commitOf).filter((c): c is LogEntry => c !== null);
    if (commits.length > 0 || list.length === 0) return { kind: "log", commits, from };
  }
  const texts: [string, string][] = [];
  if (typeof body === "string") texts.push(["body", body]);
  if (typeof top?.result === "string") texts.push(["result", top.result]);
  for (const layer of layers(body)) {
    const hit = firstOf(layer, ["log", "output", "stdout"]);
    if (hit) texts.push([`${where(layer)}${hit[0]}`, hit[1]]);
  }
  for (const [from, t] of texts) {
    const commits = readLogText(t);
    if (commits.length > 0 || t.trim() === "") return { kind: "log", commits, from };
  }
  return { kind: "unusable", reason: `the answer held no commits (${fieldsSeen(body)})` };
}
