/**
 * The one reader of unified diffs (git's format and the plain one): a single pass over the
 * text that records where each file and hunk starts and how many lines each file adds and
 * removes, without making a string per line. A 50,000-line diff is indexed in a few
 * milliseconds and costs a few numbers per hunk beside the text itself; a hunk's lines are
 * decoded only when they are asked for (decodeHunkLines, from a HunkCursor reached without
 * decoding), so a view decodes what is on screen.
 *
 * Understood: `diff --git` headers, `old mode`/`new mode`, `new file mode`, `deleted file
 * mode`, `rename from/to`, `copy from/to`, `similarity index`, `index`, `--- `/`+++ ` lines
 * (with `/dev/null`, `a/`/`b/` prefixes, quoted C-style paths and a trailing tab and date),
 * `Binary files … differ`, `GIT binary patch`, hunk headers `@@ -a,b +c,d @@ section`, and
 * `\ No newline at end of file`. Hunks end by their line counts, so a removed line that reads
 * `-- x` or `++ y` is never taken for a header. Lines may end in \n or \r\n.
 *
 * Pure: no I/O and nothing of ours imported. The text is kept exactly as given: sanitizing
 * and redacting what is shown is the caller's (the text layer's sanitizer, the key redactor),
 * while `fileText` gives a file's patch byte for byte, for `git apply`.
 */

export type DiffFileStatus = "modified" | "added" | "deleted" | "renamed" | "copied";

export interface DiffHunk {
  /** Offset of the `@@` line in the diff's text. */
  readonly start: number;
  /** Offset just past the hunk's last line (its line end included). */
  end: number;
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  /** What follows the second `@@` (often the enclosing function), as sent. */
  readonly section: string;
  /** Lines of the hunk after its header, the `\ No newline` markers included. */
  lineCount: number;
  added: number;
  removed: number;
}

export interface DiffFile {
  /** Path before the change (null for a new file: `/dev/null`). */
  oldPath: string | null;
  /** Path after the change (null for a deleted file). */
  newPath: string | null;
  status: DiffFileStatus;
  /** A binary file: named, never shown (`Binary files … differ` or `GIT binary patch`). */
  binary: boolean;
  /** The patch carries the binary data itself (`GIT binary patch`): it applies. */
  binaryPatch: boolean;
  oldMode: string | null;
  newMode: string | null;
  /** `similarity index` of a rename or copy, in percent. */
  similarity: number | null;
  added: number;
  removed: number;
  /** Offset of the file's first header line. */
  readonly start: number;
  /** Offset just past its last line. */
  end: number;
  hunks: DiffHunk[];
}

export interface DiffIndex {
  /** The diff as given. */
  readonly text: string;
  readonly files: DiffFile[];
  /** Lines of the text (a last line without a line end counts). */
  readonly lineCount: number;
  /** Lines before the first file (a commit message, `git format-patch` headers), if any. */
  readonly preamble: { start: number; end: number } | null;
}

export type DiffLineKind = "context" | "added" | "removed" | "no-newline";

export interface DiffLine {
  kind: DiffLineKind;
  /** The line without its first column and without its line end. */
  text: string;
  /** Line number in the old file (null for an added line or a marker). */
  oldNo: number | null;
  /** Line number in the new file (null for a removed line or a marker). */
  newNo: number | null;
}

/** The display path of a file: the new path, else the old (a deleted file). */
export function diffFilePath(f: DiffFile): string {
  return f.newPath ?? f.oldPath ?? "";
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

/** Reads a C-style quoted path ("a/\303\251.txt") as git writes one. */
function unquote(s: string): string {
  if (!(s.startsWith('"') && s.endsWith('"') && s.length >= 2)) return s;
  const body = s.slice(1, -1);
  const bytes: number[] = [];
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, "\\": 92, a: 7, b: 8 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c !== "\\") {
      for (const b of UTF8.encode(c)) bytes.push(b);
      continue;
    }
    const next = body[i + 1] ?? "";
    const oct = /^[0-7]{3}/.exec(body.slice(i + 1, i + 4));
    if (oct) {
      bytes.push(Number.parseInt(oct[0], 8));
      i += 3;
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return new TextDecoder().decode(Uint8Array.from(bytes));
}

const UTF8 = new TextEncoder();

/** A `---`/`+++` path: /dev/null is null, `a/` and `b/` prefixes and a trailing date go. */
function headerPath(raw: string): string | null {
  let s = raw;
  if (!s.startsWith('"')) {
    const tab = s.indexOf("\t");
    if (tab !== -1) s = s.slice(0, tab);
  }
  s = unquote(s.trimEnd());
  if (s === "/dev/null") return null;
  return stripPrefix(s);
}

function stripPrefix(s: string): string {
  return /^[abciow]\//.test(s) ? s.slice(2) : s;
}

/** The two paths of a `diff --git a/x b/x` line (used when no `---`/`+++` lines follow). */
function gitLinePaths(rest: string): [string, string] | null {
  if (rest.startsWith('"')) {
    const m = /^("(?:[^"\\]|\\.)*") (.+)$/.exec(rest);
    if (!m) return null;
    return [stripPrefix(unquote(m[1] as string)), stripPrefix(unquote(m[2] as string))];
  }
  const q = rest.indexOf(' "');
  if (q !== -1) return [stripPrefix(rest.slice(0, q)), stripPrefix(unquote(rest.slice(q + 1)))];
  // Same path on both sides: the split that makes the halves equal.
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest[half] === " ") {
    const a = stripPrefix(rest.slice(0, half));
    const b = stripPrefix(rest.slice(half + 1));
    if (a === b) return [a, b];
  }
  const m = / b\//.exec(rest);
  if (m) return [stripPrefix(rest.slice(0, m.index)), stripPrefix(rest.slice(m.index + 1))];
  return null;
}

function newFile(start: number): DiffFile {
  return {
    oldPath: null,
    newPath: null,
    status: "modified",
    binary: false,
    binaryPatch: false,
    oldMode: null,
    newMode: null,
    similarity: null,
    added: 0,
    removed: 0,
    start,
    end: start,
    hunks: [],
  };
}

/**
 * Indexes a unified diff. Never throws: what it cannot read as a file or hunk stays in the
 * text (inside the file it follows, or the preamble) and is given back by fileText.
 */
export function indexUnifiedDiff(text: string): DiffIndex {
  const files: DiffFile[] = [];
  let file: DiffFile | null = null;
  let hunk: DiffHunk | null = null;
  let oldLeft = 0;
  let newLeft = 0;
  let lineCount = 0;
  /** The file's header has had its `+++` line (a `---` after it starts another file). */
  let sawPlus = false;
  /** Inside a `GIT binary patch` block: lines until an empty one belong to it. */
  let inBinary = false;
  let pos = 0;
  const n = text.length;

  const closeFile = (at: number) => {
    if (!file) return;
    file.end = at;
    if (hunk) hunk.end = Math.min(hunk.end, at);
    finishStatus(file);
    files.push(file);
    file = null;
    hunk = null;
  };

  while (pos < n) {
    let eol = text.indexOf("\n", pos);
    const next = eol === -1 ? n : eol + 1;
    if (eol === -1) eol = n;
    const lineEnd = eol > pos && text.charCodeAt(eol - 1) === 13 ? eol - 1 : eol;
    lineCount++;
    const c = text.charCodeAt(pos);

    // Inside a hunk: its line counts say which lines are its own.
    if (hunk && (oldLeft > 0 || newLeft > 0 || c === 92) /* \ */) {
      if (c === 43 /* + */ && newLeft > 0) {
        newLeft--;
        hunk.added++;
      } else if (c === 45 /* - */ && oldLeft > 0) {
        oldLeft--;
        hunk.removed++;
      } else if ((c === 32 /* space */ || lineEnd === pos) && oldLeft > 0 && newLeft > 0) {
        // An empty line inside a hunk is a context line whose space was stripped (some
        // mailers and servers do that).
        oldLeft--;
        newLeft--;
      } else if (c === 92) {
        // "\ No newline at end of file": belongs to the line before it.
      } else {
        // A line the counts did not announce: the hunk ended early; read it as a header.
        oldLeft = 0;
        newLeft = 0;
        hunk.end = pos;
        hunk = finishHunk(file, hunk);
        lineCount--;
        continue;
      }
      hunk.lineCount++;
      hunk.end = next;
      pos = next;
      continue;
    }
    if (hunk) hunk = finishHunk(file, hunk);

    if (inBinary) {
      if (lineEnd === pos) inBinary = false;
      pos = next;
      continue;
    }

    const line = text.slice(pos, Math.min(lineEnd, pos + 4096));
    if (line.startsWith("diff --git ")) {
      closeFile(pos);
      file = newFile(pos);
      sawPlus = false;
      const paths = gitLinePaths(line.slice("diff --git ".length));
      if (paths) {
        file.oldPath = paths[0];
        file.newPath = paths[1];
      }
    } else if (line.startsWith("--- ") && (!file || sawPlus || file.hunks.length > 0)) {
      // A plain unified diff (no `diff --git`): each file starts at its `---` line.
      const following = text.slice(next, next + 4);
      if (following === "+++ ") {
        closeFile(pos);
        file = newFile(pos);
        file.oldPath = headerPath(line.slice(4));
        sawPlus = false;
      }
    } else if (file) {
      readHeaderLine(file, line, () => {
        sawPlus = true;
      });
      if (line.startsWith("GIT binary patch")) inBinary = true;
      const m = line.startsWith("@@ ") ? HUNK_HEADER.exec(line) : null;
      if (m) {
        const h: DiffHunk = {
          start: pos,
          end: next,
          oldStart: Number(m[1]),
          oldLines: m[2] === undefined ? 1 : Number(m[2]),
          newStart: Number(m[3]),
          newLines: m[4] === undefined ? 1 : Number(m[4]),
          section: m[5] ?? "",
          lineCount: 0,
          added: 0,
          removed: 0,
        };
        file.hunks.push(h);
        hunk = h;
        oldLeft = h.oldLines;
        newLeft = h.newLines;
      }
    }
    pos = next;
  }
  if (hunk) finishHunk(file, hunk);
  closeFile(n);
  const firstStart = files[0]?.start ?? n;
  const preamble = firstStart > 0 ? { start: 0, end: firstStart } : null;
  return { text, files, lineCount, preamble };
}

/** Adds a finished hunk's counts to its file; returns null (no hunk open). */
function finishHunk(file: DiffFile | null, hunk: DiffHunk): null {
  if (file) {
    file.added += hunk.added;
    file.removed += hunk.removed;
  }
  return null;
}

function readHeaderLine(file: DiffFile, line: string, plus: () => void): void {
  if (line.startsWith("--- ")) {
    file.oldPath = headerPath(line.slice(4));
    if (file.oldPath === null) file.status = "added";
  } else if (line.startsWith("+++ ")) {
    file.newPath = headerPath(line.slice(4));
    if (file.newPath === null) file.status = "deleted";
    plus();
  } else if (line.startsWith("new file mode ")) {
    file.status = "added";
    file.newMode = line.slice(14).trim();
  } else if (line.startsWith("deleted file mode ")) {
    file.status = "deleted";
    file.oldMode = line.slice(18).trim();
  } else if (line.startsWith("old mode ")) file.oldMode = line.slice(9).trim();
  else if (line.startsWith("new mode ")) file.newMode = line.slice(9).trim();
  else if (line.startsWith("rename from ")) {
    file.status = "renamed";
    file.oldPath = unquote(line.slice(12));
  } else if (line.startsWith("rename to ")) {
    file.status = "renamed";
    file.newPath = unquote(line.slice(10));
  } else if (line.startsWith("copy from ")) {
    file.status = "copied";
    file.oldPath = unquote(line.slice(10));
  } else if (line.startsWith("copy to ")) {
    file.status = "copied";
    file.newPath = unquote(line.slice(8));
  } else if (line.startsWith("similarity index ")) {
    const v = Number.parseInt(line.slice(17), 10);
    file.similarity = Number.isFinite(v) ? v : null;
  } else if (line.startsWith("Binary files ") && line.endsWith(" differ")) {
    file.binary = true;
    const m = /^Binary files (.+) and (.+) differ$/.exec(line);
    if (m) {
      file.oldPath ??= headerPath(m[1] as string);
      file.newPath ??= headerPath(m[2] as string);
      if (m[1] === "/dev/null") file.status = "added";
      if (m[2] === "/dev/null") file.status = "deleted";
    }
  } else if (line.startsWith("GIT binary patch")) {
    file.binary = true;
    file.binaryPatch = true;
  }
}

/** A new or deleted file's missing path: the `diff --git` line named it on both sides. */
function finishStatus(file: DiffFile): void {
  if (file.status === "added") file.oldPath = null;
  if (file.status === "deleted") file.newPath = null;
}

/**
 * A place inside a hunk: the offset where one of its lines starts, and the old and new line
 * numbers that line carries (or would carry: a marker carries none). Made and moved without
 * decoding a line, so a view can reach row 40,000 of a hunk without making 40,000 strings.
 */
export interface HunkCursor {
  readonly pos: number;
  readonly oldNo: number;
  readonly newNo: number;
}

/** The hunk's first line (just after its `@@` header). */
export function hunkStart(diff: DiffIndex, hunk: DiffHunk): HunkCursor {
  const eol = diff.text.indexOf("\n", hunk.start);
  return {
    pos: eol === -1 || eol >= hunk.end ? hunk.end : eol + 1,
    oldNo: hunk.oldStart,
    newNo: hunk.newStart,
  };
}

/** Where the line end of the line at `pos` is, and where the next line starts. */
function lineBounds(text: string, pos: number, end: number): { eol: number; next: number } {
  const eol = text.indexOf("\n", pos);
  return eol === -1 || eol >= end ? { eol: end, next: end } : { eol, next: eol + 1 };
}

/** The cursor `n` lines further on (at most to the hunk's end); reads one character a line. */
export function skipHunkLines(
  diff: DiffIndex,
  hunk: DiffHunk,
  at: HunkCursor,
  n: number,
): HunkCursor {
  const { text } = diff;
  let { pos, oldNo, newNo } = at;
  for (let i = 0; i < n && pos < hunk.end; i++) {
    const c = text.charCodeAt(pos);
    if (c === 43 /* + */) newNo++;
    else if (c === 45 /* - */) oldNo++;
    else if (c !== 92 /* \ */) {
      oldNo++;
      newNo++;
    }
    pos = lineBounds(text, pos, hunk.end).next;
  }
  return { pos, oldNo, newNo };
}

/**
 * Up to `count` of a hunk's lines from `at`, decoded now (nothing is kept: a view asks for
 * what it shows). `clean` is applied to each line's text, once a line (the sanitizer and the
 * key redactor, for a terminal).
 */
export function decodeHunkLines(
  diff: DiffIndex,
  hunk: DiffHunk,
  at: HunkCursor,
  count: number,
  clean: (text: string) => string = (t) => t,
): DiffLine[] {
  const { text } = diff;
  const out: DiffLine[] = [];
  let { pos, oldNo, newNo } = at;
  while (pos < hunk.end && out.length < count) {
    const { eol, next } = lineBounds(text, pos, hunk.end);
    const lineEnd = eol > pos && text.charCodeAt(eol - 1) === 13 ? eol - 1 : eol;
    const c = text[pos];
    const body = clean(text.slice(pos === lineEnd ? pos : pos + 1, lineEnd));
    if (c === "+") out.push({ kind: "added", text: body, oldNo: null, newNo: newNo++ });
    else if (c === "-") out.push({ kind: "removed", text: body, oldNo: oldNo++, newNo: null });
    else if (c === "\\") out.push({ kind: "no-newline", text: body, oldNo: null, newNo: null });
    else out.push({ kind: "context", text: body, oldNo: oldNo++, newNo: newNo++ });
    pos = next;
  }
  return out;
}

/** All of a hunk's lines, decoded now (see decodeHunkLines). */
export function hunkLines(
  diff: DiffIndex,
  hunk: DiffHunk,
  clean: (text: string) => string = (t) => t,
): DiffLine[] {
  return decodeHunkLines(diff, hunk, hunkStart(diff, hunk), Number.POSITIVE_INFINITY, clean);
}

/** A file's patch exactly as it came (headers, hunks, binary data): `git apply` takes it. */
export function fileText(diff: DiffIndex, file: DiffFile): string {
  return diff.text.slice(file.start, file.end);
}

/** The hunk's `@@` header line, as sent. */
export function hunkHeader(diff: DiffIndex, hunk: DiffHunk): string {
  const eol = diff.text.indexOf("\n", hunk.start);
  return diff.text.slice(hunk.start, eol === -1 ? diff.text.length : eol).replace(/\r$/, "");
}

/** The files whose old or new path is one of `paths` or lies under one (a folder). */
export function selectFiles(diff: DiffIndex, paths: readonly string[]): DiffFile[] {
  if (paths.length === 0) return diff.files;
  const wanted = paths.map((p) => p.replace(/^\.?\/+/, "").replace(/\/+$/, ""));
  const hit = (p: string | null) =>
    p !== null && wanted.some((w) => w === "" || p === w || p.startsWith(`${w}/`));
  return diff.files.filter((f) => hit(f.newPath) || hit(f.oldPath));
}

/** Totals of a diff (or of some of its files). */
export function diffTotals(files: readonly DiffFile[]): {
  files: number;
  added: number;
  removed: number;
} {
  let added = 0;
  let removed = 0;
  for (const f of files) {
    added += f.added;
    removed += f.removed;
  }
  return { files: files.length, added, removed };
}
