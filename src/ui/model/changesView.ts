import {
  type DiffFile,
  type DiffHunk,
  type DiffIndex,
  type DiffLine,
  decodeHunkLines,
  diffFilePath,
  diffTotals,
  type HunkCursor,
  hunkHeader,
  hunkStart,
  indexUnifiedDiff,
  skipHunkLines,
} from "../../protocol/unifiedDiff.js";
import type { Changes } from "../../store/review/reviewStore.js";
import { sanitizeLine } from "../../text/sanitize.js";
import type { RowMask } from "./paneView.js";

/**
 * The changes view's rows, drawn from the one diff index (protocol/unifiedDiff.ts) without a
 * string per line: a summary (one row per changed file with its +/− counts), then each file's
 * header row, and each hunk's header and lines. Only the rows on screen are decoded, sanitized
 * and masked, however long their hunk: what is kept between frames is a few numbers per hunk
 * and, for a hunk drawn, a checkpoint every CHECKPOINT lines as far as it was drawn, so a
 * 50,000-line diff (or a single 50,000-line hunk) costs the text itself and little more.
 */

/** A changed file the diff does not cover: named by `status` or by the session's stream. */
export interface ChangedElsewhere {
  path: string;
  /** What the source says happened (`modified`, `untracked`, `created`…), sanitized. */
  status: string;
  source: "status" | "stream";
}

export interface ChangesData {
  diff: DiffIndex | null;
  /** Changed files the diff has no patch for. */
  elsewhere: readonly ChangedElsewhere[];
  /** Said when the service's answer held nothing usable, or why the diff is missing. */
  note: string | null;
}

export type RowKind =
  | "summary"
  | "summaryFile"
  | "blank"
  | "file"
  | "binary"
  | "hunk"
  | "added"
  | "removed"
  | "context"
  | "marker";

export interface ChangesRow {
  kind: RowKind;
  /** Sanitized text (the key not yet masked: maskRows does that over the window). */
  text: string;
  /** For a diff line: its old and new line numbers. */
  oldNo?: number | null;
  newNo?: number | null;
}

/** Lines between the checkpoints of a hunk. */
const CHECKPOINT = 512;

/** Where every row is, as numbers: built once per diff, O(files + hunks). */
export interface ChangesLayout {
  readonly data: ChangesData;
  readonly rows: number;
  /** Rows before the first file's header: the summary and a blank row. */
  readonly summaryRows: number;
  /** Row of each file's header, in diff order. */
  readonly fileRows: readonly number[];
  /** Row of each hunk's header (hunks of every file, in order), and its file. */
  readonly hunkRows: readonly number[];
  readonly hunkFile: readonly number[];
  readonly hunks: readonly DiffHunk[];
  /**
   * Checkpoints of the hunks drawn so far: where every CHECKPOINT-th line starts and its line
   * numbers, found without decoding a line and only as far as a window has reached.
   */
  readonly checkpoints: Map<number, HunkCursor[]>;
  /** Applied to each decoded line's text: the sanitizer. */
  readonly clean: (text: string) => string;
}

/** Files in the summary: the diff's, then the ones only status or the stream name. */
export function summaryCount(data: ChangesData): number {
  return (data.diff?.files.length ?? 0) + data.elsewhere.length;
}

/**
 * The layout of `data`. `clean` is what each decoded line goes through (the sanitizer; a test
 * may count the lines decoded through it).
 */
export function changesLayout(
  data: ChangesData,
  clean: (text: string) => string = sanitizeLine,
): ChangesLayout {
  const files = data.diff?.files ?? [];
  const summaryRows = 1 + summaryCount(data) + (data.note ? 1 : 0) + 1;
  const fileRows: number[] = [];
  const hunkRows: number[] = [];
  const hunkFile: number[] = [];
  const hunks: DiffHunk[] = [];
  let row = summaryRows;
  files.forEach((f, i) => {
    fileRows.push(row);
    row += 1;
    if (f.binary) {
      row += 1;
      return;
    }
    for (const h of f.hunks) {
      hunkRows.push(row);
      hunkFile.push(i);
      hunks.push(h);
      row += 1 + h.lineCount;
    }
  });
  return {
    data,
    rows: row,
    summaryRows,
    fileRows,
    hunkRows,
    hunkFile,
    hunks,
    checkpoints: new Map(),
    clean,
  };
}

/** The last index whose value is <= x in a sorted array, or -1. */
function lastAtOrBefore(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as number) <= x) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

const clean = (t: string) => sanitizeLine(t);

const STATUS_MARK: Record<string, string> = {
  modified: "M",
  added: "A",
  deleted: "D",
  renamed: "R",
  copied: "C",
};

function counts(f: DiffFile): string {
  return f.binary ? "binary" : `+${f.added} −${f.removed}`;
}

function fileName(f: DiffFile): string {
  const path = clean(diffFilePath(f));
  return f.oldPath && f.newPath && f.oldPath !== f.newPath ? `${clean(f.oldPath)} → ${path}` : path;
}

function summaryRow(l: ChangesLayout, r: number): ChangesRow {
  const { data } = l;
  const files = data.diff?.files ?? [];
  if (r === 0) {
    const t = diffTotals(files);
    const more = data.elsewhere.length > 0 ? ` (and ${data.elsewhere.length} without a patch)` : "";
    return {
      kind: "summary",
      text:
        files.length === 0 && data.elsewhere.length === 0
          ? "No changes"
          : `${t.files} file${t.files === 1 ? "" : "s"} changed${more}, +${t.added} −${t.removed}`,
    };
  }
  const i = r - 1;
  const f = files[i];
  if (f) {
    return {
      kind: "summaryFile",
      text: `${STATUS_MARK[f.status] ?? "M"} ${fileName(f)}  ${counts(f)}`,
    };
  }
  const e = data.elsewhere[i - files.length];
  if (e) {
    return {
      kind: "summaryFile",
      text: `? ${e.path}  ${e.status}, no patch (${e.source === "stream" ? "seen on the stream" : "git status"})`,
    };
  }
  if (data.note && i === summaryCount(data)) return { kind: "summary", text: data.note };
  return { kind: "blank", text: "" };
}

/**
 * Lines `from` … `from + count` of hunk `h`, and no others, decoded: the nearest checkpoint at
 * or before `from` (checkpoints found as far as needed, a character a line), the lines up to
 * `from` skipped without decoding, then `count` lines decoded.
 */
function hunkWindow(l: ChangesLayout, h: number, from: number, count: number): DiffLine[] {
  const diff = l.data.diff as DiffIndex;
  const hunk = l.hunks[h] as DiffHunk;
  let cps = l.checkpoints.get(h);
  if (!cps) {
    cps = [hunkStart(diff, hunk)];
    l.checkpoints.set(h, cps);
  }
  const k = Math.floor(from / CHECKPOINT);
  while (cps.length <= k) {
    cps.push(skipHunkLines(diff, hunk, cps[cps.length - 1] as HunkCursor, CHECKPOINT));
  }
  const at = skipHunkLines(diff, hunk, cps[k] as HunkCursor, from - k * CHECKPOINT);
  return decodeHunkLines(diff, hunk, at, count, l.clean);
}

const KIND_OF: Record<DiffLine["kind"], RowKind> = {
  added: "added",
  removed: "removed",
  context: "context",
  "no-newline": "marker",
};

const PREFIX: Record<DiffLine["kind"], string> = {
  added: "+",
  removed: "-",
  context: " ",
  "no-newline": "\\",
};

/** Rows `from` … `from + count` (fewer at the end), sanitized. */
export function changesRows(l: ChangesLayout, from: number, count: number): ChangesRow[] {
  const out: ChangesRow[] = [];
  const files = l.data.diff?.files ?? [];
  let r = Math.max(0, from);
  const end = Math.min(l.rows, from + count);
  while (r < end) {
    if (r < l.summaryRows) {
      out.push(summaryRow(l, r));
      r++;
      continue;
    }
    const fi = lastAtOrBefore(l.fileRows, r);
    const f = files[fi] as DiffFile;
    const fileRow = l.fileRows[fi] as number;
    if (r === fileRow) {
      out.push({ kind: "file", text: `${fileName(f)}  ${counts(f)}` });
      r++;
      continue;
    }
    if (f.binary) {
      out.push({ kind: "binary", text: "binary file: named, not shown" });
      r++;
      continue;
    }
    const h = lastAtOrBefore(l.hunkRows, r);
    const hunkRow = l.hunkRows[h] as number;
    const diff = l.data.diff as DiffIndex;
    if (r === hunkRow) {
      out.push({ kind: "hunk", text: clean(hunkHeader(diff, l.hunks[h] as DiffHunk)) });
      r++;
      continue;
    }
    const hunk = l.hunks[h] as DiffHunk;
    const at = r - hunkRow - 1;
    const take = Math.min(end - r, hunk.lineCount - at);
    for (const line of hunkWindow(l, h, at, take)) {
      out.push({
        kind: KIND_OF[line.kind],
        text: `${PREFIX[line.kind]}${line.text}`,
        oldNo: line.oldNo,
        newNo: line.newNo,
      });
    }
    r += take;
  }
  return out;
}

/**
 * The rows' text with the key masked over the window as one sequence, the rows just above and
 * below included (a key split across lines is caught in each part shown).
 */
export function maskedRows(
  l: ChangesLayout,
  from: number,
  count: number,
  secrets: RowMask | undefined,
): ChangesRow[] {
  const rows = changesRows(l, from, count);
  if (!secrets || secrets.reach === 0 || rows.length === 0) return rows;
  const beside = (at: number, step: -1 | 1): string => {
    let text = "";
    for (let r = at; r >= 0 && r < l.rows && text.length < secrets.reach; r += step) {
      const t = changesRows(l, r, 1)[0]?.text ?? "";
      text = step < 0 ? t + text : text + t;
    }
    return step < 0 ? text.slice(-secrets.reach) : text.slice(0, secrets.reach);
  };
  const texts = rows.map((x) => x.text);
  const masked = secrets.maskRows(texts, beside(from - 1, -1), beside(from + rows.length, 1));
  if (masked === texts) return rows;
  return rows.map((x, i) => (masked[i] === x.text ? x : { ...x, text: masked[i] as string }));
}

/** The next (or previous) row of a kind's starts after (before) `row`, or null. */
function step(starts: readonly number[], row: number, dir: 1 | -1): number | null {
  if (dir > 0) {
    const i = lastAtOrBefore(starts, row) + 1;
    return starts[i] ?? null;
  }
  const i = lastAtOrBefore(starts, row - 1);
  return i >= 0 ? (starts[i] as number) : null;
}

export function nextHunkRow(l: ChangesLayout, row: number, dir: 1 | -1): number | null {
  return step(l.hunkRows, row, dir);
}

export function nextFileRow(l: ChangesLayout, row: number, dir: 1 | -1): number | null {
  return step(l.fileRows, row, dir);
}

/**
 * The file a row is about: a summary row's file, or the file whose part of the diff holds
 * the row. Null on the summary's other rows.
 */
export function fileAtRow(l: ChangesLayout, row: number): string | null {
  const files = l.data.diff?.files ?? [];
  if (row < l.summaryRows) {
    const i = row - 1;
    const f = files[i];
    if (f) return diffFilePath(f);
    return l.data.elsewhere[i - files.length]?.path ?? null;
  }
  const fi = lastAtOrBefore(l.fileRows, row);
  const f = files[fi];
  return f ? diffFilePath(f) : null;
}

/**
 * The next row after (before) `row` whose text holds `needle` (case-insensitive), wrapping
 * around; null when none does. Rows are decoded a screenful at a time, never all kept.
 */
export function searchRows(
  l: ChangesLayout,
  needle: string,
  row: number,
  dir: 1 | -1,
): number | null {
  const want = needle.toLowerCase();
  if (want === "" || l.rows === 0) return null;
  const CHUNK = 256;
  const holds = (rows: ChangesRow[], i: number) =>
    rows[i]?.text.toLowerCase().includes(want) ?? false;
  if (dir > 0) {
    // Rows after `row` to the end, then from the top: whole chunks decoded at once.
    for (const [a, b] of [
      [row + 1, l.rows],
      [0, row + 1],
    ] as const) {
      for (let r = a; r < b; r += CHUNK) {
        const rows = changesRows(l, r, Math.min(CHUNK, b - r));
        for (let i = 0; i < rows.length; i++) if (holds(rows, i)) return r + i;
      }
    }
    return null;
  }
  for (const [a, b] of [
    [0, row],
    [row, l.rows],
  ] as const) {
    for (let end = b; end > a; end -= CHUNK) {
      const from = Math.max(a, end - CHUNK);
      const rows = changesRows(l, from, end - from);
      for (let i = rows.length - 1; i >= 0; i--) if (holds(rows, i)) return from + i;
    }
  }
  return null;
}

/** A file change the session's stream reported (path and action, as the tracker keeps them). */
export interface SeenChange {
  path: string;
  action: string;
}

const LAYOUTS = new WeakMap<Changes, { seen: readonly SeenChange[]; layout: ChangesLayout }>();

/**
 * The layout of loaded changes: the patch indexed once per answer (and per list of files the
 * stream reported), the files status or the stream name that the diff has no patch for added.
 */
export function layoutOfChanges(c: Changes, seen: readonly SeenChange[]): ChangesLayout {
  const kept = LAYOUTS.get(c);
  if (kept && kept.seen === seen) return kept.layout;
  const diff = c.patch === null ? null : indexUnifiedDiff(c.patch);
  const inDiff = new Set<string>();
  for (const f of diff?.files ?? []) {
    if (f.newPath) inDiff.add(f.newPath);
    if (f.oldPath) inDiff.add(f.oldPath);
  }
  const elsewhere: ChangedElsewhere[] = [];
  const named = new Set<string>();
  for (const s of c.status) {
    if (inDiff.has(s.path) || named.has(s.path)) continue;
    named.add(s.path);
    elsewhere.push({ path: s.path, status: s.change, source: "status" });
  }
  for (const s of seen) {
    if (inDiff.has(s.path) || named.has(s.path)) continue;
    named.add(s.path);
    elsewhere.push({ path: clean(s.path), status: clean(s.action), source: "stream" });
  }
  const layout = changesLayout({ diff, elsewhere, note: c.note });
  LAYOUTS.set(c, { seen, layout });
  return layout;
}
