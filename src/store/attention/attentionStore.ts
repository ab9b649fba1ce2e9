import { createStore, type StoreApi } from "zustand/vanilla";
import type { AdmittedSession } from "../admitSession.js";
import { type ApprovalsBookState, approvalsOf, pendingOf } from "../approvals/approvalsBook.js";
import type { SessionsState, SessionsStore } from "../sessionsStore.js";
import type { SessionStream } from "../streams/sessionStream.js";
import type { StreamsState, StreamsStore } from "../streams/streamsStore.js";
import {
  type AttentionConfig,
  type AttentionReason,
  approvalCauses,
  awaitsApproval,
  type Cause,
  DEFAULT_ATTENTION,
  isWorking,
  KEPT_UNTIL_SEEN,
  type PendingApproval,
  REASON_RANK,
  reasonText,
  recordCauses,
  type SinceFrom,
  type StreamView,
  streamCauses,
} from "./reasons.js";

/**
 * Every session that needs the user, over the whole list: a queue, newest first by the time
 * the service gives for each cause. Why a session needs the user is decided in reasons.ts;
 * this store gathers what it is decided from (the catalogue's records over every page,
 * the open streams, the approvals book), and reads nothing itself. It follows each session's
 * causes, one per reason, and shows one item per session: its most pressing cause (a
 * destroyed session's destruction before anything else it had).
 *
 * An item leaves when its cause does (the approval resolved, the session running again, the
 * stream live again). Finished and destroyed items stay until the user has seen them (jumped
 * to the session), then go; the others stay, marked seen, while their cause stands. The first
 * reading of the list queues what already waits, quietly: only later arrivals of a notifying
 * reason are raised (what notifications follow), each cause once.
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

export interface AttentionState {
  /** Newest first, at most MAX_ITEMS. */
  readonly items: readonly AttentionItem[];
  /** Increments whenever notifying arrivals are raised (what notifications follow). */
  readonly raisedVersion: number;
  /** The notifying arrivals of the latest raise. */
  readonly lastRaised: readonly AttentionItem[];
  /** Increments with every arrival or departure (quiet ones included). */
  readonly changeVersion: number;
  readonly lastChanges: AttentionChanges;
  /** Why the queue may miss sessions (the list could not be read whole); null when whole. */
  readonly partial: string | null;
  readonly config: AttentionConfig;
  /** The user went to the session from the queue: its item is seen; a finished or destroyed one goes. */
  acknowledge(sessionId: string): void;
  /**
   * The user looked at the session another way (its pane opened or focused): remembered as
   * their last look (what a finish after a restart is measured from); the queue is unchanged.
   */
  looked(sessionId: string): void;
}

export interface AttentionStore extends StoreApi<AttentionState> {
  /** Stop following the catalogue, the streams and the approvals book. */
  dispose(): void;
  /** Resolves when the approvals book reads nothing. */
  idle(): Promise<void>;
}

export const MAX_ITEMS = 500;

export interface AttentionStoreOptions {
  sessions?: Pick<SessionsStore, "getState" | "subscribe">;
  streams?: Pick<StreamsStore, "getState" | "subscribe">;
  /** The approvals book (store/approvals/approvalsBook.ts): what sessions wait on. */
  approvals?: {
    getState(): ApprovalsBookState;
    subscribe(fn: (s: ApprovalsBookState, prev: ApprovalsBookState) => void): () => void;
    idle(): Promise<void>;
  };
  /** When the user last saw a session (the journal's memory): a first sight's finish. */
  lastSeen?: (sessionId: string) => number | null;
  /** The user saw a session now (remembered for the next start). */
  onSeen?: (sessionId: string, at: number) => void;
  config?: AttentionConfig;
  now?: () => number;
}

/** The sessions whose item notifies, for marks and the list's order (memoised on the items). */
const marked = new WeakMap<readonly AttentionItem[], ReadonlySet<string>>();
export function selectMarkedIds(s: Pick<AttentionState, "items">): ReadonlySet<string> {
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
export function selectTopItems(
  s: Pick<AttentionState, "items">,
): ReadonlyMap<string, AttentionItem> {
  let map = topOf.get(s.items);
  if (!map) {
    map = new Map(s.items.map((i) => [i.sessionId, i]));
    topOf.set(s.items, map);
  }
  return map;
}

/** A session's notifying item, if it has one (what a pane's title says). */
export function notifyingItemOf(
  s: Pick<AttentionState, "items">,
  sessionId: string,
): AttentionItem | null {
  const item = selectTopItems(s).get(sessionId);
  return item?.notify ? item : null;
}

/**
 * The item `a` goes to after the session `afterId`, in queue order (newest first), wrapping:
 * unseen notifying items first (a pause is not a call), then unseen others, then every item.
 */
export function nextUnseen(
  s: Pick<AttentionState, "items">,
  afterId: string | null,
): AttentionItem | null {
  let pool = s.items.filter((i) => !i.seen && i.notify);
  if (pool.length === 0) pool = s.items.filter((i) => !i.seen);
  if (pool.length === 0) pool = s.items.slice();
  if (pool.length === 0) return null;
  const at = afterId === null ? -1 : pool.findIndex((i) => i.sessionId === afterId);
  return pool[(at + 1) % pool.length] ?? null;
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
    a.sessionId.localeCompare(b.sessionId)
  );
}

type Rec = Readonly<Record<string, unknown>>;

interface Inputs {
  rec: AdmittedSession | undefined;
  stream: SessionStream | undefined;
  approvals: readonly PendingApproval[] | undefined;
  /** Every pending approval the service listed, read or not (the book's pendingCount). */
  approvalCount: number;
}

export function createAttentionStore(opts: AttentionStoreOptions = {}): AttentionStore {
  const now = opts.now ?? Date.now;
  const config = opts.config ?? DEFAULT_ATTENTION;
  /** What each session was last evaluated from (unchanged inputs are not looked at again). */
  const last = new Map<string, Inputs>();
  /** Each session's record as last evaluated: a finish is a change against it. */
  const prevRec = new Map<string, Rec>();
  /** Every cause followed: one per session and reason (the queue shows one per session). */
  let all: AttentionItem[] = [];
  /** Items the user has seen and that went (finished, destroyed): not again while the cause lasts. */
  const dismissed = new Set<string>();
  /** Causes already raised (session, reason, since): a cause is told once. */
  const raisedOnce = new Set<string>();
  /** When a stream was first seen silent. */
  const silentSince = new Map<string, number>();
  let quiet = true;
  let disposed = false;

  const store = createStore<AttentionState>()((_set, get) => ({
    items: [],
    raisedVersion: 0,
    lastRaised: [],
    changeVersion: 0,
    lastChanges: { arrived: [], left: [] },
    partial: null,
    config,
    looked(sessionId) {
      opts.onSeen?.(sessionId, now());
    },
    acknowledge(sessionId) {
      get().looked(sessionId);
      if (!all.some((i) => i.sessionId === sessionId && !i.seen)) return;
      const kept: AttentionItem[] = [];
      for (const i of all) {
        if (i.sessionId !== sessionId) kept.push(i);
        else if (KEPT_UNTIL_SEEN.has(i.reason)) dismissed.add(key(i.sessionId, i.reason));
        else kept.push(i.seen ? i : { ...i, seen: true });
      }
      publish(kept, get().partial);
    },
  }));

  function key(id: string, reason: AttentionReason): string {
    return `${id}\u0000${reason}`;
  }

  /**
   * The queue from the causes followed: one item per session, in queue order; what arrived
   * and left is told against the queue shown before, and a notifying arrival is raised once.
   */
  function publish(next: AttentionItem[], listPartial: string | null): void {
    all = next;
    const before = store.getState().items;
    const shown = onePerSession(next).sort(compareItems);
    const items = shown.length > MAX_ITEMS ? shown.slice(0, MAX_ITEMS) : shown;
    // Items past the bound are not shown, and that is said with the real count.
    const partial =
      listPartial ??
      (shown.length > MAX_ITEMS
        ? `${shown.length.toLocaleString("en-US")} items, only the ${MAX_ITEMS} most pressing are kept`
        : null);
    const was = new Map(before.map((i) => [key(i.sessionId, i.reason), i]));
    const is = new Set(items.map((i) => key(i.sessionId, i.reason)));
    const arrived = items.filter((i) => !was.has(key(i.sessionId, i.reason)));
    const left = before.filter((i) => !is.has(key(i.sessionId, i.reason)));
    const changed =
      arrived.length > 0 ||
      left.length > 0 ||
      items.length !== before.length ||
      items.some((i, n) => i !== before[n]);
    if (!changed && partial === store.getState().partial) return;
    const raised: AttentionItem[] = [];
    for (const i of arrived) {
      const k = `${key(i.sessionId, i.reason)}\u0000${i.since}`;
      if (raisedOnce.has(k)) continue;
      raisedOnce.add(k);
      if (!quiet && i.notify) raised.push(i);
    }
    // Only causes still followed are remembered as told.
    if (raisedOnce.size > MAX_ITEMS * 4) {
      const keep = new Set(next.map((i) => `${key(i.sessionId, i.reason)}\u0000${i.since}`));
      for (const k of raisedOnce) if (!keep.has(k)) raisedOnce.delete(k);
    }
    const st = store.getState();
    store.setState({
      items,
      partial,
      ...(raised.length > 0 ? { raisedVersion: st.raisedVersion + 1, lastRaised: raised } : {}),
      ...(arrived.length > 0 || left.length > 0
        ? { changeVersion: st.changeVersion + 1, lastChanges: { arrived, left } }
        : {}),
    });
  }

  let recordsKey: unknown = null;
  let recordsMap = new Map<string, AdmittedSession>();
  /** Every record the catalogue knows (memoised on its map, so a stream's frame does not rebuild it). */
  function records(): Map<string, AdmittedSession> {
    const byId = opts.sessions?.getState().byId;
    if (byId === recordsKey) return recordsMap;
    recordsKey = byId;
    recordsMap = new Map(Object.entries(byId ?? {}));
    return recordsMap;
  }

  /** The catalogue read every page: a session missing from it is gone. */
  function listComplete(): boolean {
    const s = opts.sessions?.getState();
    if (!s || s.loadedAt === null || s.loading || s.loadingMore || s.error !== null) return false;
    return !s.hasMore;
  }

  function streamView(id: string, x: SessionStream): StreamView {
    const st = x.status;
    let fault: StreamView["fault"] = null;
    if (st.state === "stopped" && st.error !== null) {
      const at = x.attention?.reason === "stopped" ? x.attention.at : now();
      fault = { kind: "stopped", message: x.attention?.message ?? st.reason, at };
      silentSince.delete(id);
    } else if (st.state === "reconnecting" && st.silent === true) {
      let at = silentSince.get(id);
      if (at === undefined) {
        at = now();
        silentSince.set(id, at);
      }
      fault = { kind: "silent", message: st.reason, at };
    } else if (st.state === "live") silentSince.delete(id);
    const stateAt =
      x.attention !== null && x.attention.reason === x.sessionState ? x.attention.at : null;
    return { state: x.sessionState, stateAt, prompt: x.prompt, fault };
  }

  /** The causes of one session, one per reason, each from its best source. */
  function causesOf(
    id: string,
    inp: Inputs,
  ): Map<AttentionReason, Cause & { source: AttentionSource }> {
    const out = new Map<AttentionReason, Cause & { source: AttentionSource }>();
    const put = (c: Cause, source: AttentionSource) => {
      const had = out.get(c.reason);
      if (had === undefined) {
        out.set(c.reason, { ...c, source });
        return;
      }
      // The later of two times (a record read before a stream's news is stale), the record's
      // detail when it has one of its own.
      const since =
        had.since === null ? c.since : c.since === null ? had.since : Math.max(had.since, c.since);
      const fromC = since !== null && since === c.since && since !== had.since;
      out.set(c.reason, {
        ...had,
        detail: had.detail !== "" && !had.detail.startsWith("session ") ? had.detail : c.detail,
        since,
        sinceFrom: fromC ? c.sinceFrom : had.sinceFrom,
        source: fromC ? source : had.source,
      });
    };
    const rec = inp.rec as Rec | undefined;
    if (rec !== undefined) {
      // A first sight compares with when the user last saw the session (the journal's memory).
      const prev = prevRec.get(id);
      const lastSeen = prev === undefined ? (opts.lastSeen?.(id) ?? null) : null;
      for (const c of recordCauses(rec, prev ?? null, lastSeen)) put(c, "list");
    }
    if (inp.stream !== undefined) {
      for (const c of streamCauses(streamView(id, inp.stream))) put(c, "stream");
    }
    const pending = inp.approvals ?? [];
    if (
      pending.length > 0 &&
      (rec === undefined || awaitsApproval(rec) || !("agent_status" in rec))
    ) {
      // The book holds them oldest first: the first is the one the keys decide first.
      const [first] = approvalCauses(pending);
      if (first) {
        // The real count, not the ones read: 25 and 20,000 pending read differently.
        const more = Math.max(inp.approvalCount, pending.length) - 1;
        const detail =
          more > 0 ? `${first.detail} (+${more.toLocaleString("en-US")} more)` : first.detail;
        // The approval's own time and message win over the record's.
        out.set("approval", { ...first, detail, source: "approvals" });
      }
    }
    return out;
  }

  /**
   * Re-evaluate the sessions whose inputs changed; one store update for all. `only`: just
   * these sessions (a stream's frame touches a few, never the whole list).
   */
  function evaluate(only?: Iterable<string>): void {
    if (disposed) return;
    const recs = records();
    const streams = opts.streams?.getState();
    const book = opts.approvals?.getState();
    const ids = new Set<string>(only ?? [...recs.keys(), ...(streams?.order ?? [])]);
    const complete = only === undefined && listComplete();
    const before = all;
    const bySession = new Map<string, AttentionItem[]>();
    for (const i of before) {
      const l = bySession.get(i.sessionId);
      if (l) l.push(i);
      else bySession.set(i.sessionId, [i]);
    }
    // Sessions no longer anywhere (gone from a complete list, no stream): their items go.
    for (const id of bySession.keys()) if (!ids.has(id) && complete) ids.add(id);

    const next: AttentionItem[] = [];
    const touched = new Set<string>();
    const t = now();
    for (const id of ids) {
      const inp: Inputs = {
        rec: recs.get(id),
        stream: streams?.sessions[id],
        approvals: book ? pendingOf(book, id) : undefined,
        approvalCount: book ? approvalsOf(book, id).pendingCount : 0,
      };
      const was = last.get(id);
      // Silence is a matter of time: a stream reconnecting is looked at each time.
      const timeDependent = inp.stream?.status.state === "reconnecting";
      if (
        was !== undefined &&
        was.rec === inp.rec &&
        was.stream === inp.stream &&
        was.approvals === inp.approvals &&
        was.approvalCount === inp.approvalCount &&
        !timeDependent
      ) {
        continue;
      }
      if (inp.rec === undefined && inp.stream === undefined && !complete) continue;
      touched.add(id);
      last.set(id, inp);
      const causes = causesOf(id, inp);
      if (inp.rec !== undefined) prevRec.set(id, inp.rec as Rec);
      const had = new Map((bySession.get(id) ?? []).map((i) => [i.reason, i]));
      for (const [reason, c] of causes) {
        if (!config.show.has(reason)) continue;
        const k = key(id, reason);
        if (dismissed.has(k)) continue;
        const old = had.get(reason);
        had.delete(reason);
        const since = c.since ?? old?.since ?? t;
        const item: AttentionItem = {
          sessionId: id,
          reason,
          detail: c.detail,
          message: reasonText(reason, c.detail),
          since,
          sinceFrom: c.since === null ? (old?.sinceFrom ?? "seen") : c.sinceFrom,
          source: c.source,
          seen: old?.seen ?? false,
          notify: config.notify.has(reason),
          approval: c.approval ?? null,
        };
        next.push(old !== undefined && sameItem(old, item) ? old : item);
      }
      // Reasons whose cause went: gone, except a finish or a destruction not yet seen.
      for (const [reason, old] of had) {
        const rec = inp.rec as Rec | undefined;
        const ended = reason === "finished" && rec !== undefined && isWorking(rec);
        if (
          KEPT_UNTIL_SEEN.has(reason) &&
          !old.seen &&
          !ended &&
          (inp.rec || inp.stream || !complete)
        ) {
          next.push(old);
        }
      }
      // A dismissed item may come back once its cause has gone and returned.
      for (const reason of ["finished", "destroyed"] as const) {
        if (!causes.has(reason)) dismissed.delete(key(id, reason));
      }
    }
    for (const i of before) if (!touched.has(i.sessionId)) next.push(i);
    if (complete) {
      for (const id of [...last.keys()]) {
        if (!ids.has(id)) {
          last.delete(id);
          prevRec.delete(id);
        }
      }
    }

    const s = opts.sessions?.getState();
    const partial =
      s?.hasMore === true ? (s.partialReason ?? "the list could not be read whole") : null;
    publish(next, partial);
    maybeEndQuiet();
  }

  /** What waits when the queue is first read whole is not news: later arrivals are. */
  function maybeEndQuiet(): void {
    if (!quiet) return;
    const s = opts.sessions?.getState();
    if (!s) {
      quiet = false;
      return;
    }
    if (s.loadedAt === null || s.loadingMore) return;
    if ((opts.approvals?.getState().reading ?? 0) > 0) return;
    quiet = false;
  }

  const offs: (() => void)[] = [];
  const onSessions = (s: SessionsState, prev: SessionsState | null) => {
    if (
      prev !== null &&
      s.byId === prev.byId &&
      s.loadedAt === prev.loadedAt &&
      s.loadingMore === prev.loadingMore
    ) {
      return;
    }
    if (s.loadedAt === null) return;
    evaluate();
  };
  const onStreams = (s: StreamsState, prev: StreamsState | null) => {
    if (prev !== null && s.sessions === prev.sessions) return;
    // The streams that changed, and those reconnecting (silence is a matter of time).
    const changed: string[] = [];
    for (const id of s.order) {
      const x = s.sessions[id];
      if (prev === null || prev.sessions[id] !== x || x?.status.state === "reconnecting") {
        changed.push(id);
      }
    }
    // A stream closed: its session is looked at again without it.
    if (prev !== null) for (const id of prev.order) if (!s.sessions[id]) changed.push(id);
    evaluate(changed);
  };
  const onBook = (b: ApprovalsBookState, prev: ApprovalsBookState) => {
    if (b.bySession !== prev.bySession) {
      const changed: string[] = [];
      for (const [id, e] of b.bySession) if (prev.bySession.get(id) !== e) changed.push(id);
      evaluate(changed);
    }
    if (b.reading === 0 && prev.reading > 0) maybeEndQuiet();
  };
  if (opts.sessions) {
    offs.push(opts.sessions.subscribe((s, prev) => onSessions(s, prev)));
  }
  if (opts.streams) offs.push(opts.streams.subscribe((s, prev) => onStreams(s, prev)));
  if (opts.approvals) offs.push(opts.approvals.subscribe(onBook));
  if (!opts.sessions || opts.sessions.getState().loadedAt !== null) evaluate();

  return Object.assign(store, {
    dispose() {
      disposed = true;
      for (const off of offs.splice(0)) off();
    },
    async idle() {
      await opts.approvals?.idle();
    },
  });
}

function sameItem(a: AttentionItem, b: AttentionItem): boolean {
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
