import type { TimelineEntry } from "../../store/streams/entry.js";
import type { Redactor } from "../../text/redact.js";
import { stripSgr } from "../../text/wrap.js";
import { blockMatches, type PeekSource, prepareBlocks, SEP } from "./searchBlocks.js";
import { type DisplayLine, entryLines, entryMatches, type LineOptions } from "./timelineLines.js";

/**
 * Per-pane view state and its pure reducers: follow mode, scroll position, "N new", wrap,
 * timestamps, which kinds show, search and the current match.
 *
 * Position is a display line (entry seq + line within the entry), so scrolling moves one
 * terminal row at a time even through long wrapped entries. Following means "bottom-aligned
 * on the newest entry"; anything else is paused at `anchor`, the top line. Every function
 * here touches only the entries on (or next to) the screen, never the whole scrollback —
 * except a new search, which reads every entry's text once (matchSeqs keeps its matches
 * after; a scrollback's texts are kept block by block, searchBlocks.ts).
 */

export type KindToggle = "prompt" | "output" | "file" | "state";

export interface LinePos {
  seq: number;
  line: number;
}

export interface PaneView {
  readonly follow: boolean;
  /** Top display line while paused. */
  readonly anchor: LinePos | null;
  /** Newest seq when following stopped: entries after it are "new". */
  readonly pausedAtSeq: number | null;
  readonly wrap: boolean;
  readonly timestamps: boolean;
  readonly hidden: readonly KindToggle[];
  /** Committed search text; "" for none. */
  readonly query: string;
  readonly matchSeq: number | null;
}

/** What the reducers read of a scrollback (a TimelineBuffer satisfies it). */
export interface EntrySource {
  readonly size: number;
  get(i: number): TimelineEntry | undefined;
  /**
   * Changes whenever an entry is added, replaced or removed (TimelineBuffer's and
   * MergedTimeline's do): with it, a search's matches are kept between frames and only the
   * entries added since are read again.
   */
  readonly version?: number;
}

export interface Viewport {
  rows: number;
  width: number;
  noColor: boolean;
}

export interface TimelineWindow {
  lines: DisplayLine[];
  /** Top line shown; null when nothing is. */
  top: LinePos | null;
  /** The newest shown line is on screen. */
  atEnd: boolean;
}

export function initialPaneView(): PaneView {
  return {
    follow: true,
    anchor: null,
    pausedAtSeq: null,
    wrap: true,
    timestamps: false,
    hidden: [],
    query: "",
    matchSeq: null,
  };
}

export function isShown(view: Pick<PaneView, "hidden">, e: TimelineEntry): boolean {
  return kindShown(view, e.kind);
}

function kindShown(view: Pick<PaneView, "hidden">, kind: TimelineEntry["kind"]): boolean {
  return view.hidden.length === 0 || !view.hidden.includes(kind as KindToggle);
}

export function lineOptions(view: PaneView, vp: Viewport): LineOptions {
  return { width: vp.width, wrap: view.wrap, timestamps: view.timestamps, noColor: vp.noColor };
}

export function newestSeq(buf: EntrySource): number | null {
  return buf.get(buf.size - 1)?.seq ?? null;
}

/**
 * Index of the entry with this seq; an evicted seq gives 0 (the oldest), one past the newest
 * gives the newest. Seqs are consecutive in practice, so this is usually one subtraction.
 */
export function indexOfSeq(buf: EntrySource, seq: number): number {
  const n = buf.size;
  if (n === 0) return -1;
  const first = buf.get(0)?.seq ?? 0;
  if (seq <= first) return 0;
  const guess = seq - first;
  if (guess < n && buf.get(guess)?.seq === seq) return guess;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((buf.get(mid)?.seq ?? 0) <= seq) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function prevShown(buf: EntrySource, view: PaneView, idx: number): number {
  for (let i = idx - 1; i >= 0; i--) {
    const e = buf.get(i);
    if (e && isShown(view, e)) return i;
  }
  return -1;
}

function nextShown(buf: EntrySource, view: PaneView, idx: number): number {
  for (let i = idx + 1; i < buf.size; i++) {
    const e = buf.get(i);
    if (e && isShown(view, e)) return i;
  }
  return -1;
}

function linesOf(buf: EntrySource, idx: number, o: LineOptions): DisplayLine[] {
  const e = buf.get(idx);
  return e ? entryLines(e, o) : [];
}

function bottomWindow(buf: EntrySource, view: PaneView, vp: Viewport): TimelineWindow {
  const o = lineOptions(view, vp);
  const chunks: DisplayLine[][] = [];
  let count = 0;
  for (let i = buf.size - 1; i >= 0 && count < vp.rows; i--) {
    const e = buf.get(i);
    if (!e || !isShown(view, e)) continue;
    const ls = entryLines(e, o);
    chunks.push(ls);
    count += ls.length;
  }
  const lines: DisplayLine[] = [];
  for (let c = chunks.length - 1; c >= 0; c--) for (const l of chunks[c] ?? []) lines.push(l);
  const shown = lines.length > vp.rows ? lines.slice(lines.length - vp.rows) : lines;
  const first = shown[0];
  return { lines: shown, top: first ? { seq: first.seq, line: first.line } : null, atEnd: true };
}

/** The display lines on screen. */
export function computeWindow(buf: EntrySource, view: PaneView, vp: Viewport): TimelineWindow {
  if (view.follow || view.anchor === null || buf.size === 0) return bottomWindow(buf, view, vp);
  const o = lineOptions(view, vp);
  let idx = indexOfSeq(buf, view.anchor.seq);
  const anchorEntry = buf.get(idx);
  let line = anchorEntry && anchorEntry.seq === view.anchor.seq ? view.anchor.line : 0;
  if (anchorEntry && !isShown(view, anchorEntry)) {
    idx = nextShown(buf, view, idx);
    line = 0;
    if (idx < 0) return bottomWindow(buf, view, vp);
  }
  const anchorLines = linesOf(buf, idx, o);
  line = Math.max(0, Math.min(line, anchorLines.length - 1));
  const lines: DisplayLine[] = anchorLines.slice(line, line + vp.rows);
  let last = idx;
  let lastComplete = line + vp.rows >= anchorLines.length;
  while (lines.length < vp.rows) {
    const next = nextShown(buf, view, last);
    if (next < 0) break;
    const ls = linesOf(buf, next, o);
    const room = vp.rows - lines.length;
    for (let i = 0; i < ls.length && i < room; i++) lines.push(ls[i] as DisplayLine);
    lastComplete = ls.length <= room;
    last = next;
  }
  const atEnd = lastComplete && nextShown(buf, view, last) < 0;
  if (lines.length < vp.rows && atEnd) {
    // Near the end: fill the screen from above rather than leave rows empty.
    const before: DisplayLine[] = anchorLines.slice(0, line);
    let prev = idx;
    const chunks: DisplayLine[][] = [before];
    let count = before.length;
    while (count < vp.rows - lines.length) {
      prev = prevShown(buf, view, prev);
      if (prev < 0) break;
      const ls = linesOf(buf, prev, o);
      chunks.push(ls);
      count += ls.length;
    }
    const above: DisplayLine[] = [];
    for (let c = chunks.length - 1; c >= 0; c--) for (const l of chunks[c] ?? []) above.push(l);
    const need = vp.rows - lines.length;
    lines.unshift(...above.slice(Math.max(0, above.length - need)));
  }
  const first = lines[0];
  return { lines, top: first ? { seq: first.seq, line: first.line } : null, atEnd };
}

/** What masks the key in the rows drawn (the key's Redactor satisfies it). */
export type RowMask = Pick<Redactor, "maskRows" | "reach">;

/** Entries looked at beyond the window for the text next to it; more only cost time. */
const CONTEXT_ENTRIES = 64;

/**
 * The bodies of the shown lines next to `from` (dir -1: above it, +1: below it), in the order
 * drawn, until `chars` characters are seen: what a piece of the key crossing the window's
 * edge would continue into.
 */
function textBeside(
  buf: EntrySource,
  view: PaneView,
  o: LineOptions,
  from: DisplayLine,
  dir: -1 | 1,
  chars: number,
): string {
  const parts: string[] = [];
  let seen = 0;
  const take = (ls: readonly DisplayLine[]) => {
    for (let i = dir < 0 ? ls.length - 1 : 0; i >= 0 && i < ls.length && seen < chars; i += dir) {
      const body = (ls[i] as DisplayLine).body;
      parts.push(body);
      seen += (body.includes("\x1b") ? stripSgr(body) : body).length;
    }
  };
  let idx = indexOfSeq(buf, from.seq);
  const own = linesOf(buf, idx, o);
  take(dir < 0 ? own.slice(0, from.line) : own.slice(from.line + 1));
  for (let n = 0; n < CONTEXT_ENTRIES && seen < chars; n++) {
    idx = dir < 0 ? prevShown(buf, view, idx) : nextShown(buf, view, idx);
    if (idx < 0) break;
    take(linesOf(buf, idx, o));
  }
  if (dir < 0) parts.reverse();
  return parts.join("");
}

/**
 * The window as drawn: the key (any piece of it half its length or longer) masked over the
 * rows' bodies read one after another, with the text just above and below in view, so a key
 * sent a few characters an event, split across rows or entries, is masked in each row that
 * shows a part of it, wherever the window cuts it. The one place panes and the merged view
 * hide the key from what they draw; only the rows on screen (and a key's length beside them)
 * are looked at.
 */
export function maskWindow(
  buf: EntrySource,
  view: PaneView,
  vp: Viewport,
  win: TimelineWindow,
  secrets: RowMask | undefined,
): TimelineWindow {
  const first = win.lines[0];
  const last = win.lines[win.lines.length - 1];
  if (!secrets || secrets.reach === 0 || !first || !last) return win;
  const o = lineOptions(view, vp);
  const bodies = win.lines.map((l) => l.body);
  const masked = secrets.maskRows(
    bodies,
    textBeside(buf, view, o, first, -1, secrets.reach),
    textBeside(buf, view, o, last, 1, secrets.reach),
  );
  if (masked === bodies) return win;
  return {
    ...win,
    lines: win.lines.map((l, i) =>
      masked[i] === l.body ? l : { ...l, body: masked[i] as string },
    ),
  };
}

/** Entries written since following stopped. */
export function newCount(buf: EntrySource, view: PaneView): number {
  if (view.follow || view.pausedAtSeq === null) return 0;
  const newest = newestSeq(buf);
  return newest === null ? 0 : Math.max(0, newest - view.pausedAtSeq);
}

function paused(view: PaneView, buf: EntrySource, anchor: LinePos): PaneView {
  return {
    ...view,
    follow: false,
    anchor,
    pausedAtSeq: view.follow || view.pausedAtSeq === null ? newestSeq(buf) : view.pausedAtSeq,
  };
}

export function resumeFollow(view: PaneView): PaneView {
  if (view.follow && view.anchor === null) return view;
  return { ...view, follow: true, anchor: null, pausedAtSeq: null };
}

function moveLines(
  buf: EntrySource,
  view: PaneView,
  o: LineOptions,
  from: LinePos,
  delta: number,
): LinePos {
  let idx = indexOfSeq(buf, from.seq);
  let line = from.line;
  if (idx < 0) return from;
  if (delta < 0) {
    for (let n = 0; n < -delta; n++) {
      if (line > 0) {
        line--;
        continue;
      }
      const p = prevShown(buf, view, idx);
      if (p < 0) break;
      idx = p;
      line = Math.max(0, linesOf(buf, p, o).length - 1);
    }
  } else {
    for (let n = 0; n < delta; n++) {
      if (line < linesOf(buf, idx, o).length - 1) {
        line++;
        continue;
      }
      const q = nextShown(buf, view, idx);
      if (q < 0) break;
      idx = q;
      line = 0;
    }
  }
  return { seq: buf.get(idx)?.seq ?? from.seq, line };
}

/**
 * Scroll by display lines (negative: up). Scrolling up stops following; scrolling down until
 * the newest line is on screen resumes it.
 */
export function scrollBy(view: PaneView, buf: EntrySource, vp: Viewport, delta: number): PaneView {
  if (delta === 0) return view;
  const win = computeWindow(buf, view, vp);
  if (!win.top) return view;
  if (delta > 0 && (view.follow || win.atEnd)) return resumeFollow(view);
  const anchor = moveLines(buf, view, lineOptions(view, vp), win.top, delta);
  const next = paused(view, buf, anchor);
  if (delta > 0 && computeWindow(buf, next, vp).atEnd) return resumeFollow(view);
  return next;
}

export function scrollToTop(view: PaneView, buf: EntrySource): PaneView {
  let idx = 0;
  const first = buf.get(0);
  if (!first) return view;
  if (!isShown(view, first)) idx = nextShown(buf, view, 0);
  const e = buf.get(idx);
  if (idx < 0 || !e) return view;
  return paused(view, buf, { seq: e.seq, line: 0 });
}

export function toggleFollow(view: PaneView, buf: EntrySource, vp: Viewport): PaneView {
  if (!view.follow) return resumeFollow(view);
  const top = computeWindow(buf, view, vp).top;
  return top ? paused(view, buf, top) : { ...view, follow: false, pausedAtSeq: newestSeq(buf) };
}

export function toggleKind(view: PaneView, kind: KindToggle): PaneView {
  const hidden = view.hidden.includes(kind)
    ? view.hidden.filter((k) => k !== kind)
    : [...view.hidden, kind];
  return { ...view, hidden };
}

export function toggleWrap(view: PaneView): PaneView {
  return { ...view, wrap: !view.wrap };
}

export function toggleTimestamps(view: PaneView): PaneView {
  return { ...view, timestamps: !view.timestamps };
}

/** The matches of one search in one scrollback, oldest first, as of `version`. */
interface MatchIndex {
  key: string;
  version: number;
  /** The seqs of the oldest and the newest entry when it was made. */
  first: number;
  newest: number;
  seqs: number[];
}

const matchIndexes = new WeakMap<EntrySource, MatchIndex>();

function scanMatches(buf: EntrySource, view: PaneView, q: string, from: number, out: number[]) {
  for (let i = from; i < buf.size; i++) {
    const e = buf.get(i);
    if (e !== undefined && isShown(view, e) && entryMatches(e, q)) out.push(e.seq);
  }
}

/**
 * The seqs of every entry that matches the query (lowercased) and shows, oldest first. A
 * scrollback with a version keeps them between calls: a new frame with no new entries reads
 * none, one with new entries reads only those (and the newest it had, which a joined
 * fragment may have changed), dropping what was evicted. Search and its match count read
 * this one list instead of the whole scrollback each.
 */
export function matchSeqs(buf: EntrySource, view: PaneView, q: string): readonly number[] {
  const version = buf.version;
  const first = buf.get(0)?.seq;
  const newest = buf.get(buf.size - 1)?.seq;
  if (first === undefined || newest === undefined) return [];
  const key = `${q}\u0000${view.hidden.join(",")}`;
  const had = version === undefined ? undefined : matchIndexes.get(buf);
  if (had && had.key === key && had.version === version) return had.seqs;
  let seqs: number[];
  if (had && had.key === key && first >= had.first && newest >= had.newest) {
    // Entries were added (and the oldest maybe evicted): keep what still stands.
    let drop = 0;
    while (drop < had.seqs.length && (had.seqs[drop] as number) < first) drop++;
    let keep = had.seqs.length;
    while (keep > drop && (had.seqs[keep - 1] as number) >= had.newest) keep--;
    seqs = had.seqs.slice(drop, keep);
    scanMatches(buf, view, q, indexOfSeq(buf, had.newest), seqs);
  } else {
    seqs = [];
    // A scrollback that can be read without keeping what is read: searched block by block.
    if (isPeekSource(buf) && !q.includes(SEP)) {
      blockMatches(
        buf,
        q,
        (kind) => kindShown(view, kind),
        (e) => isShown(view, e) && entryMatches(e, q),
        seqs,
      );
    } else scanMatches(buf, view, q, 0, seqs);
  }
  if (version !== undefined) matchIndexes.set(buf, { key, version, first, newest, seqs });
  return seqs;
}

function isPeekSource(buf: EntrySource): buf is EntrySource & PeekSource {
  return "peek" in buf;
}

/** The search box opened on this scrollback: its search text starts being built (searchBlocks). */
export function prepareSearch(buf: EntrySource): void {
  if (isPeekSource(buf)) prepareBlocks(buf);
}

/** Index in `seqs` (ascending) of the first seq ≥ `seq`; seqs.length when none. */
function lowerBound(seqs: readonly number[], seq: number): number {
  let lo = 0;
  let hi = seqs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((seqs[mid] as number) < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Put an entry at the top of the screen (paused) and make it the current match. */
export function jumpTo(view: PaneView, buf: EntrySource, seq: number): PaneView {
  return { ...paused(view, buf, { seq, line: 0 }), matchSeq: seq };
}

/** Commit a search: the newest match becomes current. `found` is false when nothing matches. */
export function setQuery(
  view: PaneView,
  buf: EntrySource,
  query: string,
): { view: PaneView; found: boolean } {
  const q = query.toLowerCase();
  if (q === "") return { view: { ...view, query: "", matchSeq: null }, found: false };
  const newest = matchSeqs(buf, view, q).at(-1);
  if (newest !== undefined) return { view: jumpTo({ ...view, query }, buf, newest), found: true };
  return { view: { ...view, query, matchSeq: null }, found: false };
}

/**
 * Next match ("older": further up, back in time) or previous ("newer"), wrapping around.
 * Matches are numbered from the newest, the first one a search lands on.
 */
export function searchStep(
  view: PaneView,
  buf: EntrySource,
  vp: Viewport,
  dir: "older" | "newer",
): { view: PaneView; found: boolean } {
  const q = view.query.toLowerCase();
  if (q === "" || buf.size === 0) return { view, found: false };
  const seqs = matchSeqs(buf, view, q);
  if (seqs.length === 0) return { view, found: false };
  const fromSeq = view.matchSeq ?? computeWindow(buf, view, vp).top?.seq ?? newestSeq(buf) ?? 0;
  const at = lowerBound(seqs, fromSeq);
  const seq =
    dir === "older"
      ? (seqs[at - 1] ?? seqs.at(-1))
      : (seqs[seqs[at] === fromSeq ? at + 1 : at] ?? seqs[0]);
  return { view: jumpTo(view, buf, seq as number), found: true };
}

export interface MatchStats {
  total: number;
  /** 1 for the newest match; 0 when no current match. */
  ordinal: number;
}

/** Counts every match (matchSeqs: read again only where the scrollback changed). */
export function matchStats(buf: EntrySource, view: PaneView): MatchStats | null {
  const q = view.query.toLowerCase();
  if (q === "") return null;
  const seqs = matchSeqs(buf, view, q);
  const total = seqs.length;
  if (view.matchSeq === null) return { total, ordinal: 0 };
  return { total, ordinal: total - lowerBound(seqs, view.matchSeq) };
}
