import { pathSegment } from "./ids.js";
import { recordValue as rec } from "./values.js";

/**
 * The session's files, workspace and undo, as the real service documents them
 * (`docs/cloud-api/sessions/`): `GET …/files?path=&recursive=` → `{files: [{name, path, type,
 * size}]}` and `GET …/file?path=` → `{content, path, size}` (files-list.mdx, files-read.mdx,
 * `sessions:read`); `GET …/files/search?query=&path=` → `{results: [{path, matches: [{line,
 * content}]}]}` (files-search.mdx); `GET …/workspace-state` → `{detected_ports: [{port,
 * process}], running_processes, file_tree}` (workspace-state.mdx); `POST …/prompt/rewind` →
 * `{session_id, rewound, reverted_files}` (prompt-rewind.mdx, `sessions:write`); `POST
 * /api/v2/sessions/{id}/connect?port=` → `{preview_url, port}` (v2-connect.mdx).
 *
 * Each answer is read leniently (a list under another name, a missing `name` made from the
 * path, `dir` for `directory`, a file sent as base64 with `encoding: "base64"`): what cannot be
 * read throws a plain Error naming the field, which the client reports as a malformed answer.
 * Text is kept as sent; sanitizing and redacting it for a terminal is the caller's.
 */

const seg = pathSegment;

export const REVIEW_PATHS = {
  files: (id: string) => `/api/sessions/${seg(id)}/files`,
  file: (id: string) => `/api/sessions/${seg(id)}/file`,
  search: (id: string) => `/api/sessions/${seg(id)}/files/search`,
  workspaceState: (id: string) => `/api/sessions/${seg(id)}/workspace-state`,
  rewind: (id: string) => `/api/sessions/${seg(id)}/prompt/rewind`,
  connect: (id: string) => `/api/v2/sessions/${seg(id)}/connect`,
} as const;

type Rec = Record<string, unknown>;

function num(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && /^\d{1,15}$/.test(v)) return Number(v);
  return null;
}

/** The first array among these fields (or the body itself), else an Error naming them. */
function listOf(body: unknown, keys: readonly string[], what: string): unknown[] {
  if (Array.isArray(body)) return body;
  const o = rec(body);
  for (const k of keys) {
    if (Array.isArray(o?.[k])) return o?.[k] as unknown[];
    const inner = rec(o?.result ?? o?.data);
    if (Array.isArray(inner?.[k])) return inner?.[k] as unknown[];
  }
  throw new Error(`${keys[0]}: expected a list of ${what}`);
}

export interface FileEntry {
  name: string;
  path: string;
  type: "file" | "directory" | "symlink" | "other";
  /** Bytes; null when the answer does not say. */
  size: number | null;
}

function entryType(raw: unknown, path: string): FileEntry["type"] {
  const t = typeof raw === "string" ? raw.toLowerCase() : "";
  if (t === "file" || t === "f" || t === "blob") return "file";
  if (t === "directory" || t === "dir" || t === "d" || t === "folder" || t === "tree") {
    return "directory";
  }
  if (t === "symlink" || t === "link") return "symlink";
  if (t === "") return path.endsWith("/") ? "directory" : "file";
  return "other";
}

/** A listing and whether the service cut it at its bound (`truncated: true`). */
export interface FileListing {
  files: FileEntry[];
  truncated: boolean;
}

/** `GET …/files` with the service's own bound said (`truncated`, `has_more`). */
export function readFileListing(body: unknown): FileListing {
  const o = rec(body);
  return {
    files: readFileList(body),
    truncated: o?.truncated === true || o?.has_more === true,
  };
}

/** `GET …/files`: the entries, with a missing name made from the path. */
export function readFileList(body: unknown): FileEntry[] {
  const out: FileEntry[] = [];
  for (const item of listOf(body, ["files", "entries", "items"], "files")) {
    if (typeof item === "string") {
      out.push({ name: baseName(item), path: item, type: entryType("", item), size: null });
      continue;
    }
    const o = rec(item);
    if (!o) continue;
    const path = typeof o.path === "string" ? o.path : typeof o.name === "string" ? o.name : null;
    if (path === null) continue;
    const name = typeof o.name === "string" && o.name !== "" ? o.name : baseName(path);
    const isDir = o.is_dir === true || o.is_directory === true;
    out.push({
      name,
      path,
      type: isDir ? "directory" : entryType(o.type ?? o.kind, path),
      size: num(o.size),
    });
  }
  return out;
}

function baseName(path: string): string {
  const parts = path.replace(/\/+$/, "").split("/");
  return parts[parts.length - 1] || path;
}

export interface FileContent {
  path: string;
  /** The file's bytes (text as UTF-8, or decoded from base64 when the answer says so). */
  bytes: Uint8Array;
  /** Size as the answer says it, else the bytes'. */
  size: number;
  /** Whether the bytes look binary (a NUL in the first 8000 bytes, as git decides). */
  binary: boolean;
}

/** `GET …/file`: `{content, path, size}` (content may be base64 with `encoding: "base64"`). */
export function readFileAnswer(body: unknown, askedPath: string): FileContent {
  const o = rec(body);
  const inner = rec(o?.result ?? o?.data) ?? o;
  const content = typeof body === "string" ? body : (inner?.content ?? inner?.text);
  if (typeof content !== "string") throw new Error("content: expected the file's text");
  const encoding = typeof inner?.encoding === "string" ? inner.encoding.toLowerCase() : "";
  const bytes =
    encoding === "base64"
      ? Uint8Array.from(atob(content.replace(/\s+/g, "")), (c) => c.charCodeAt(0))
      : new TextEncoder().encode(content);
  const path = typeof inner?.path === "string" ? inner.path : askedPath;
  return { path, bytes, size: num(inner?.size) ?? bytes.length, binary: looksBinary(bytes) };
}

/** A NUL byte in the first 8000 bytes: binary, as git decides. */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8000);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

export interface SearchMatch {
  line: number | null;
  content: string;
}

export interface SearchResult {
  path: string;
  matches: SearchMatch[];
}

/** `GET …/files/search`: files and their matching lines (a file matched by name has none). */
export function readSearchAnswer(body: unknown): SearchResult[] {
  const out: SearchResult[] = [];
  for (const item of listOf(body, ["results", "matches", "files"], "results")) {
    if (typeof item === "string") {
      out.push({ path: item, matches: [] });
      continue;
    }
    const o = rec(item);
    const path = typeof o?.path === "string" ? o.path : typeof o?.file === "string" ? o.file : null;
    if (!o || path === null) continue;
    const matches: SearchMatch[] = [];
    const list = Array.isArray(o.matches) ? o.matches : Array.isArray(o.lines) ? o.lines : [];
    for (const m of list) {
      const mo = rec(m);
      if (typeof m === "string") matches.push({ line: null, content: m });
      else if (mo) {
        const content =
          typeof mo.content === "string" ? mo.content : typeof mo.text === "string" ? mo.text : "";
        matches.push({ line: num(mo.line ?? mo.line_number), content });
      }
    }
    out.push({ path, matches });
  }
  return out;
}

export interface DetectedPort {
  port: number;
  process: string | null;
}

export interface RunningProcess {
  pid: number | null;
  command: string;
}

export interface WorkspaceState {
  ports: DetectedPort[];
  processes: RunningProcess[];
  /** The answer's `file_tree`, as sent (its fields are not documented). */
  fileTree: Rec | null;
}

/** `GET …/workspace-state`: detected ports and running processes. */
export function readWorkspaceState(body: unknown): WorkspaceState {
  const o = rec(body);
  if (!o) throw new Error("body: expected an object");
  const ports: DetectedPort[] = [];
  const rawPorts = o.detected_ports ?? o.ports;
  for (const p of Array.isArray(rawPorts) ? rawPorts : []) {
    const po = rec(p);
    const port = num(po ? (po.port ?? po.number) : p);
    if (port === null || port < 1 || port > 65535) continue;
    const proc = po && typeof po.process === "string" ? po.process : null;
    ports.push({ port, process: proc });
  }
  const processes: RunningProcess[] = [];
  const rawProcs = o.running_processes ?? o.processes;
  for (const p of Array.isArray(rawProcs) ? rawProcs : []) {
    if (typeof p === "string") processes.push({ pid: null, command: p });
    const po = rec(p);
    if (!po) continue;
    const command =
      typeof po.command === "string" ? po.command : typeof po.name === "string" ? po.name : "";
    processes.push({ pid: num(po.pid), command });
  }
  return { ports, processes, fileTree: rec(o.file_tree) };
}

export interface RewindAnswer {
  sessionId: string | null;
  rewound: boolean;
  revertedFiles: string[];
}

/** `POST …/prompt/rewind`: whether it rewound, and the files it reverted. */
export function readRewindAnswer(body: unknown): RewindAnswer {
  const o = rec(body);
  if (!o) throw new Error("body: expected an object");
  const files = Array.isArray(o.reverted_files) ? o.reverted_files : [];
  return {
    sessionId: typeof o.session_id === "string" ? o.session_id : null,
    // A 2xx that does not say otherwise rewound.
    rewound: o.rewound !== false && o.success !== false,
    revertedFiles: files.filter((f): f is string => typeof f === "string"),
  };
}

export interface ConnectAnswer {
  previewUrl: string;
  port: number | null;
}

/** `POST /api/v2/sessions/{id}/connect?port=`: the preview URL for that port. */
export function readConnectAnswer(body: unknown): ConnectAnswer {
  const o = rec(body);
  const url = o?.preview_url ?? o?.url;
  if (typeof url !== "string" || url === "") throw new Error("preview_url: expected a URL");
  return { previewUrl: url, port: num(o?.port) };
}

/** A URL a browser may be pointed at: http or https only (never file:, javascript:, …). */
export function browsableUrl(raw: unknown): string | null {
  if (typeof raw !== "string" || raw.length > 2048) return null;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return null;
  if (/[\s\x00-\x1f\x7f-\x9f]/.test(raw)) return null;
  return u.href;
}

/** When a session record's last prompt began (`last_prompt.started_at`); null when it does not say. */
export function lastPromptStart(record: unknown): number | null {
  const lp = rec(rec(record)?.last_prompt);
  const raw = lp?.started_at;
  const t = typeof raw === "string" ? Date.parse(raw) : Number.NaN;
  return Number.isFinite(t) ? t : null;
}
