import { compareIds } from "../../protocol/ids.js";
import { formatCount } from "../../text/format.js";
import {
  type AttentionReason,
  type PendingApproval,
  REASON_RANK,
  type SinceFrom,
} from "./reasons.js";

/**
 * The attention queue's items and what is decided from them alone (pure): one item per
 * session, queue order, what arrived and left against the queue shown before, and the
 * selectors the list, the panes and `a` read. The store (attentionStore.ts) holds the state.
 */

export type AttentionSource = "list" | "stream" | "approvals";

export interface AttentionItem {
  sessionId: string;
  reason: AttentionReason;
  /** After the reason's name: an approval's message, an error message, … ("" for none). */
  detail: string;
  /** The reason named, with its detail: "awaiting approval: Deploy …" (one line, sanitized). */
  message: string;
  /** When the cause began (ms since epoch): the service's time, else when a stream told, else first sight. */
  since: number;
  sinceFrom: SinceFrom;
  source: AttentionSource;
  /** The user has looked at it (its mark stays while the cause stands). */
  seen: boolean;
  /** The settings say this reason notifies. */
  notify: boolean;
  /** The pending approval behind an approval item, when read. */
  approval: PendingApproval | null;
}

export interface AttentionChanges {
  arrived: readonly AttentionItem[];
  left: readonly AttentionItem[];
}

/** The queue shows at most this many items (the most pressing). */
export const MAX_ITEMS = 500;

interface Queue {
  readonly items: readonly AttentionItem[];
}

/** The sessions whose item notifies, for marks and the list's order (memoised on the items). */
const marked = new WeakMap<readonly AttentionItem[], ReadonlySet<string>>();
export function selectMarkedIds(s: Queue): ReadonlySet<string> {
  let set = marked.get(s.items);
  if (!set) {
    set = new Set(s.items.filter((i) => i.notify).map((i) => i.sessionId));
    marked.set(s.items, set);
  }
  return set;
}

/**
 * Each session's item (the queue holds one per session), memoised: the marks of rows and
 * panes. A seen item keeps its mark while its cause stands.
 */
const topOf = new WeakMap<readonly AttentionItem[], ReadonlyMap<string, AttentionItem>>();
export function selectTopItems(s: Queue): ReadonlyMap<string, AttentionItem> {
  let map = topOf.get(s.items);
  if (!map) {
    map = new Map(s.items.map((i) => [i.sessionId, i]));
    topOf.set(s.items, map);
  }
  return map;
}

/** A session's notifying item, if it has one (what a pane's title says). */
export function notifyingItemOf(s: Queue, sessionId: string): AttentionItem | null {
  const item = selectTopItems(s).get(sessionId);
  return item?.notify ? item : null;
}

/**
 * The item `a` goes to after the session `afterId`, in queue order (newest first), wrapping:
 * unseen notifying items first (a pause is not a call), then unseen others, then every item.
 */
export function nextUnseen(s: Queue, afterId: string | null): AttentionItem | null {
  let pool = s.items.filter((i) => !i.seen && i.notify);
  if (pool.length === 0) pool = s.items.filter((i) => !i.seen);
  if (pool.length === 0) pool = s.items.slice();
  if (pool.length === 0) return null;
  const at = afterId === null ? -1 : pool.findIndex((i) => i.sessionId === afterId);
  return pool[(at + 1) % pool.length] ?? null;
}

/** A cause's identity: one per session and reason. */
export function causeKey(id: string, reason: AttentionReason): string {
  return `${id}\u0000${reason}`;
}

/** Which of a session's causes is its item: a destruction first, then by reason. */
function outranks(a: AttentionItem, b: AttentionItem): boolean {
  if (a.reason === "destroyed" || b.reason === "destroyed") return a.reason === "destroyed";
  return REASON_RANK[a.reason] < REASON_RANK[b.reason];
}

/** One item per session: the most pressing of its causes. */
function onePerSession(all: readonly AttentionItem[]): AttentionItem[] {
  const top = new Map<string, AttentionItem>();
  for (const i of all) {
    const had = top.get(i.sessionId);
    if (had === undefined || outranks(i, had)) top.set(i.sessionId, i);
  }
  return [...top.values()];
}

/** Queue order: newest first by the cause's time, the most urgent reason first on a tie. */
export function compareItems(a: AttentionItem, b: AttentionItem): number {
  return (
    b.since - a.since ||
    REASON_RANK[a.reason] - REASON_RANK[b.reason] ||
    compareIds(a.sessionId, b.sessionId)
  );
}

/** Nothing the user would see differs (the older object is kept, so views do not redraw). */
export function sameItem(a: AttentionItem, b: AttentionItem): boolean {
  return (
    a.detail === b.detail &&
    a.since === b.since &&
    a.sinceFrom === b.sinceFrom &&
    a.source === b.source &&
    a.seen === b.seen &&
    a.notify === b.notify &&
    a.approval?.id === b.approval?.id
  );
}

export interface QueueChange extends AttentionChanges {
  items: AttentionItem[];
  partial: string | null;
  /** Anything shown differs from `before` (items, their order or objects). */
  changed: boolean;
}

/**
 * The queue shown from every cause followed: one item per session, in queue order, at most
 * MAX_ITEMS (the cut said with the real count unless the list itself is partial); what
 * arrived and left against the queue shown before.
 */
export function queueFrom(
  all: readonly AttentionItem[],
  before: readonly AttentionItem[],
  listPartial: string | null,
): QueueChange {
  const shown = onePerSession(all).sort(compareItems);
  const items = shown.length > MAX_ITEMS ? shown.slice(0, MAX_ITEMS) : shown;
  const partial =
    listPartial ??
    (shown.length > MAX_ITEMS
      ? `${formatCount(shown.length)} items, only the ${MAX_ITEMS} most pressing are kept`
      : null);
  const was = new Map(before.map((i) => [causeKey(i.sessionId, i.reason), i]));
  const is = new Set(items.map((i) => causeKey(i.sessionId, i.reason)));
  const arrived = items.filter((i) => !was.has(causeKey(i.sessionId, i.reason)));
  const left = before.filter((i) => !is.has(causeKey(i.sessionId, i.reason)));
  const changed =
    arrived.length > 0 ||
    left.length > 0 ||
    items.length !== before.length ||
    items.some((i, n) => i !== before[n]);
  return { items, partial, arrived, left, changed };
}

/**
 * The arrivals to raise (notify): each cause once (by session, reason and time), none while
 * `quiet`. Updates `told`, keeping only causes still followed once it grows large.
 */
export function toRaise(
  arrived: readonly AttentionItem[],
  all: readonly AttentionItem[],
  told: Set<string>,
  quiet: boolean,
): AttentionItem[] {
  const tellKey = (i: AttentionItem) => `${causeKey(i.sessionId, i.reason)}\u0000${i.since}`;
  const raised: AttentionItem[] = [];
  for (const i of arrived) {
    const k = tellKey(i);
    if (told.has(k)) continue;
    told.add(k);
    if (!quiet && i.notify) raised.push(i);
  }
  if (told.size > MAX_ITEMS * 4) {
    const keep = new Set(all.map(tellKey));
    for (const k of told) if (!keep.has(k)) told.delete(k);
  }
  return raised;
}
