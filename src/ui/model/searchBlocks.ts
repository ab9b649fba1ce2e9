import type { TimelineEntry } from "../../store/streams/entry.js";
import { searchTextOf } from "./timelineLines.js";

/**
 * A scrollback's searchable text, block by block: each block is the lowercased text of a run
 * of consecutive entries (what entryMatches compares), joined into one string, with where
 * each entry starts, its seq and its kind. A search is then one native `indexOf` per block
 * instead of a decoded entry and a string per entry, and the entries are read without being
 * kept decoded (`peek`). An entry's text never changes once a newer one follows it (only the
 * newest is replaced, when a fragment joins it), so a block, made of entries that all have a
 * newer one, stays valid until its entries are evicted; the index holds at most one text of
 * the scrollback's entries (bounded by its capacity).
 */

/** What the index reads: a scrollback whose entries can be read without keeping them. */
export interface PeekSource {
  readonly size: number;
  get(i: number): TimelineEntry | undefined;
  peek(i: number): TimelineEntry | undefined;
}

/** Entries per block. */
const BLOCK = 512;
/** Between two entries' texts: a query holding it is searched entry by entry (usable). */
export const SEP = "\u0000";

interface Block {
  /** The seq of its newest entry. */
  last: number;
  text: string;
  /** Where each entry's text starts in `text`. */
  starts: number[];
  seqs: number[];
  kinds: TimelineEntry["kind"][];
}

interface BlockIndex {
  blocks: Block[];
  /** The seq of the newest entry in a block; -Infinity when none. */
  upTo: number;
}

const indexes = new WeakMap<PeekSource, BlockIndex>();

/** The first index in `buf` whose entry's seq is above `seq` (entries ascend by seq). */
function firstAfter(buf: PeekSource, seq: number): number {
  let lo = 0;
  let hi = buf.size;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((buf.get(mid)?.seq ?? Number.NEGATIVE_INFINITY) <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Blocks built per turn of the event loop while a search is being typed (about 10 ms). */
const PREPARE_BLOCKS = 4;
const preparing = new WeakSet<PeekSource>();

/**
 * Builds the blocks a few at a time, one slice per turn of the event loop, until they cover
 * the scrollback: opening the search box starts it, so that the search typed meanwhile finds
 * them built instead of reading every entry in one frame.
 */
export function prepareBlocks(buf: PeekSource): void {
  if (preparing.has(buf)) return;
  preparing.add(buf);
  const step = () => {
    if (blocksOf(buf, PREPARE_BLOCKS).done) preparing.delete(buf);
    else setImmediate(step);
  };
  setImmediate(step);
}

/** The blocks covering every entry but the newest, brought up to date (at most `most` more). */
function blocksOf(
  buf: PeekSource,
  most = Number.POSITIVE_INFINITY,
): { blocks: Block[]; done: boolean } {
  const first = buf.get(0)?.seq;
  const newest = buf.get(buf.size - 1)?.seq;
  if (first === undefined || newest === undefined) return { blocks: [], done: true };
  let idx = indexes.get(buf);
  // Emptied and filled again (seqs behind what the index has): start over.
  if (!idx || idx.upTo >= newest) idx = { blocks: [], upTo: Number.NEGATIVE_INFINITY };
  // Evicted whole: gone. A block evicted in part stays; its evicted entries are skipped.
  let gone = 0;
  while (gone < idx.blocks.length && (idx.blocks[gone] as Block).last < first) gone++;
  if (gone > 0) idx.blocks = idx.blocks.slice(gone);
  const end = buf.size - 1;
  let built = 0;
  let i = idx.blocks.length === 0 ? 0 : firstAfter(buf, idx.upTo);
  for (; i < end && built < most; built++) {
    const stop = Math.min(end, i + BLOCK);
    const pieces: string[] = [];
    const starts: number[] = [];
    const seqs: number[] = [];
    const kinds: TimelineEntry["kind"][] = [];
    let at = 0;
    for (; i < stop; i++) {
      const e = buf.peek(i);
      if (e === undefined) continue;
      const text = searchTextOf(e);
      starts.push(at);
      seqs.push(e.seq);
      kinds.push(e.kind);
      pieces.push(text);
      at += text.length + SEP.length;
    }
    const last = seqs.at(-1);
    if (last === undefined) continue;
    idx.blocks.push({ last, text: pieces.join(SEP), starts, seqs, kinds });
    idx.upTo = last;
  }
  indexes.set(buf, idx);
  return { blocks: idx.blocks, done: i >= end };
}

/** The entry of `block` whose text holds position `pos`. */
function entryAt(block: Block, pos: number): number {
  let lo = 0;
  let hi = block.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((block.starts[mid] as number) <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Appends to `out` the seqs of the entries, oldest first, whose text holds `lowerQuery` and
 * whose kind `shown` accepts: every entry but the newest through the blocks, the newest by
 * `newestMatches`.
 */
export function blockMatches(
  buf: PeekSource,
  lowerQuery: string,
  shown: (kind: TimelineEntry["kind"]) => boolean,
  newestMatches: (e: TimelineEntry) => boolean,
  out: number[],
): void {
  const first = buf.get(0)?.seq;
  if (first === undefined || lowerQuery === "") return;
  for (const block of blocksOf(buf).blocks) {
    let pos = block.text.indexOf(lowerQuery);
    while (pos >= 0) {
      const j = entryAt(block, pos);
      const seq = block.seqs[j] as number;
      if (seq >= first && shown(block.kinds[j] as TimelineEntry["kind"])) out.push(seq);
      const next = block.starts[j + 1];
      if (next === undefined) break;
      pos = block.text.indexOf(lowerQuery, next);
    }
  }
  const newest = buf.get(buf.size - 1);
  if (newest !== undefined && newestMatches(newest)) out.push(newest.seq);
}
