import { createStore, type StoreApi } from "zustand/vanilla";
import type { AdmittedSession } from "../admitSession.js";
import type { SessionsState, SessionsStore } from "../sessionsStore.js";
import type { SessionStream } from "../streams/sessionStream.js";
import type { StreamsState, StreamsStore } from "../streams/streamsStore.js";
import type { ApprovalsSource } from "./approvalsSource.js";
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
import type { WholeList, WholeListState } from "./wholeList.js";

/**
 * Every session that needs the user, over the whole list: a queue, newest first by the time
 * the service gives for each cause. Why a session needs the user is decided in reasons.ts;
 * this store gathers what it is decided from (the list's records and the pages past them,
 * the open streams, the pending approvals of sessions that wait on one), keeps one item per
 * session and reason, and says what arrived and what left.
 *
 * An item leaves when its cause does (the approval resolved, the session running again, the
 * stream live again). Finished and destroyed items stay until the user has seen them (jumped
 * to the session), then go. The first reading of the list queues what already waits, quietly:
 * only later arrivals of a notifying reason are raised (what notifications follow).
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
  /** The user has looked at it. */
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
  /** The user looked at the session: its items are seen; finished and destroyed ones go. */
  acknowledge(sessionId: string): void;
}

export interface AttentionStore extends StoreApi<AttentionState> {
  /** Stop following the sessions, streams and whole list. */
  dispose(): void;
  /** Resolves when no approvals are being read. */
  idle(): Promise<void>;
}

export const MAX_ITEMS = 500;
/** Most approval reads started per list reading. */
const MAX_APPROVAL_READS = 10;

export interface AttentionStoreOptions {
  sessions?: Pick<SessionsStore, "getState" | "subscribe">;
  streams?: Pick<StreamsStore, "getState" | "subscribe">;
  /** The pages past the loaded ones (wholeList.ts). */
  whole?: Pick<WholeList, "getState" | "subscribe">;
  /** Pending approvals of a session (approvalsSource.ts). */
  approvals?: ApprovalsSource;
  config?: AttentionConfig;
  now?: () => number;
}

/** The unseen, notifying items' sessions, for marks (memoised on the items array). */
const marked = new WeakMap<readonly AttentionItem[], ReadonlySet<string>>();
export function selectMarkedIds(s: Pick<AttentionState, "items">): ReadonlySet<string> {
  let set = marked.get(s.items);
  if (!set) {
    set = new Set(s.items.filter((i) => !i.seen && i.notify).map((i) => i.sessionId));
    marked.set(s.items, set);
  }
  return set;
}

/**
 * Per session, its most pressing unseen item (notifying before quiet ones, then by reason),
 * memoised: the marks of rows and panes. Seen items keep their place in the queue, unmarked.
 */
const topOf = new WeakMap<readonly AttentionItem[], ReadonlyMap<string, AttentionItem>>();
export function selectTopItems(
  s: Pick<AttentionState, "items">,
): ReadonlyMap<string, AttentionItem> {
  let map = topOf.get(s.items);
  if (!map) {
    const m = new Map<string, AttentionItem>();
    for (const i of s.items) {
      if (i.seen) continue;
      const had = m.get(i.sessionId);
      if (had === undefined || pressing(i) < pressing(had)) m.set(i.sessionId, i);
    }
    map = m;
    topOf.set(s.items, map);
  }
  return map;
}

function pressing(i: AttentionItem): number {
  return (i.seen ? 20 : 0) + (i.notify ? 0 : 10) + REASON_RANK[i.reason];
}

/** The unseen notifying item of a session, if any (the most pressing). */
export function unseenItemOf(
  s: Pick<AttentionState, "items">,
  sessionId: string,
): AttentionItem | null {
  const top = selectTopItems(s).get(sessionId);
  return top !== undefined && !top.seen && top.notify ? top : null;
}

/**
 * The next unseen item after the session `afterId` in queue order (newest first), wrapping;
 * the newest when afterId has none. Notifying items first: a pause is not a call.
 */
export function nextUnseen(
  s: Pick<AttentionState, "items">,
  afterId: string | null,
): AttentionItem | null {
  let unseen = s.items.filter((i) => !i.seen && i.notify);
  if (unseen.length === 0) unseen = s.items.filter((i) => !i.seen);
  if (unseen.length === 0) return null;
  const at = afterId === null ? -1 : unseen.findIndex((i) => i.sessionId === afterId);
  return unseen[(at + 1) % unseen.length] ?? null;
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
}

export function createAttentionStore(opts: AttentionStoreOptions = {}): AttentionStore {
  const now = opts.now ?? Date.now;
  const config = opts.config ?? DEFAULT_ATTENTION;
  /** What each session was last evaluated from (unchanged inputs are not looked at again). */
  const last = new Map<string, Inputs>();
  /** Each session's record as last evaluated: a finish is a change against it. */
  const prevRec = new Map<string, Rec>();
  /** Pending approvals read per session (only of sessions that wait on one). */
  const approvals = new Map<string, readonly PendingApproval[]>();
  /** The record (by identity) each session's approvals were read for. */
  const approvalsReadFor = new Map<string, unknown>();
  /** Items the user has seen and that went (finished, destroyed): not again while the cause lasts. */
  const dismissed = new Set<string>();
  /** When a stream was first seen silent. */
  const silentSince = new Map<string, number>();
  let quiet = true;
  let disposed = false;
  let reading: Promise<void> | null = null;
  const readQueue: string[] = [];

  const store = createStore<AttentionState>()((set, get) => ({
    items: [],
    raisedVersion: 0,
    lastRaised: [],
    changeVersion: 0,
    lastChanges: { arrived: [], left: [] },
    partial: null,
    config,
    acknowledge(sessionId) {
      const items = get().items;
      if (!items.some((i) => i.sessionId === sessionId && !i.seen)) return;
      const left: AttentionItem[] = [];
      const kept: AttentionItem[] = [];
      for (const i of items) {
        if (i.sessionId !== sessionId) kept.push(i);
        else if (KEPT_UNTIL_SEEN.has(i.reason)) {
          dismissed.add(key(i.sessionId, i.reason));
          left.push(i);
        } else kept.push(i.seen ? i : { ...i, seen: true });
      }
      set({
        items: kept,
        ...(left.length > 0
          ? { changeVersion: get().changeVersion + 1, lastChanges: { arrived: [], left } }
          : {}),
      });
    },
  }));

  function key(id: string, reason: AttentionReason): string {
    return `${id}\u0000${reason}`;
  }

  let recordsKey: readonly unknown[] = [];
  let recordsMap = new Map<string, AdmittedSession>();
  /**
   * Every record known: the loaded pages, records read one by one, the pages past them
   * (memoised on those three, so a stream's frame does not rebuild it).
   */
  function records(): Map<string, AdmittedSession> {
    const w = opts.whole?.getState();
    const s = opts.sessions?.getState();
    const k = [w?.extra, s?.records, s?.items];
    if (k.every((x, n) => x === recordsKey[n])) return recordsMap;
    const m = new Map<string, AdmittedSession>();
    for (const x of w?.extra ?? []) m.set(x.session_id, x);
    if (s) {
      for (const x of Object.values(s.records)) m.set(x.session_id, x);
      for (const x of s.items) m.set(x.session_id, x);
    }
    recordsKey = k;
    recordsMap = m;
    return m;
  }

  /** The list was read whole: a session missing from it is gone. */
  function listComplete(): boolean {
    const s = opts.sessions?.getState();
    if (!s || s.loadedAt === null || s.loading || s.error !== null) return false;
    if (!s.hasMore) return true;
    const w = opts.whole?.getState();
    return w?.complete === true && w.readAt !== null && w.readAt >= s.loadedAt;
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
      const prev = prevRec.get(id) ?? null;
      for (const c of recordCauses(rec, prev === rec ? null : prev)) put(c, "list");
    }
    if (inp.stream !== undefined) {
      for (const c of streamCauses(streamView(id, inp.stream))) put(c, "stream");
    }
    const pending = inp.approvals ?? [];
    if (
      pending.length > 0 &&
      (rec === undefined || awaitsApproval(rec) || !("agent_status" in rec))
    ) {
      const [newest, ...more] = approvalCauses(pending);
      if (newest) {
        const detail = more.length > 0 ? `${newest.detail} (+${more.length} more)` : newest.detail;
        // The approval's own time and message win over the record's.
        out.set("approval", { ...newest, detail, source: "approvals" });
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
    const ids = new Set<string>(only ?? [...recs.keys(), ...(streams?.order ?? [])]);
    const complete = only === undefined && listComplete();
    const before = store.getState().items;
    const bySession = new Map<string, AttentionItem[]>();
    for (const i of before) {
      const l = bySession.get(i.sessionId);
      if (l) l.push(i);
      else bySession.set(i.sessionId, [i]);
    }
    // Sessions no longer anywhere (gone from a complete list, no stream): their items go.
    for (const id of bySession.keys()) if (!ids.has(id) && complete) ids.add(id);

    const arrived: AttentionItem[] = [];
    const left: AttentionItem[] = [];
    const next: AttentionItem[] = [];
    const touched = new Set<string>();
    const t = now();
    for (const id of ids) {
      const inp: Inputs = {
        rec: recs.get(id),
        stream: streams?.sessions[id],
        approvals: approvals.get(id),
      };
      const was = last.get(id);
      // Silence is a matter of time: a stream reconnecting is looked at each time.
      const timeDependent = inp.stream?.status.state === "reconnecting";
      if (
        was !== undefined &&
        was.rec === inp.rec &&
        was.stream === inp.stream &&
        was.approvals === inp.approvals &&
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
        if (old === undefined) arrived.push(item);
        else if (sameItem(old, item)) {
          next.push(old);
          continue;
        }
        next.push(item);
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
        } else left.push(old);
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
          approvals.delete(id);
          approvalsReadFor.delete(id);
        }
      }
    }

    const w = opts.whole?.getState();
    const s = opts.sessions?.getState();
    const partial =
      s?.hasMore && w && w.readAt !== null && !w.complete
        ? (w.partialReason ?? "the list could not be read whole")
        : s?.hasMore && !w
          ? "only the loaded pages of the list are covered"
          : null;

    // Compared in the queue's own order: the sessions looked at again come first in `next`,
    // and an unchanged queue in another order is no change (a busy stream would otherwise
    // tell every subscriber, and redraw the fleet, on each of its frames).
    next.sort(compareItems);
    const items = next.length > MAX_ITEMS ? next.slice(0, MAX_ITEMS) : next;
    const changed =
      arrived.length > 0 ||
      left.length > 0 ||
      items.length !== before.length ||
      items.some((i, n) => i !== before[n]);
    if (only === undefined) queueApprovalReads(recs);
    if (!changed && partial === store.getState().partial) {
      maybeEndQuiet();
      return;
    }
    const raised = quiet ? [] : arrived.filter((i) => i.notify);
    const st = store.getState();
    store.setState({
      items,
      partial,
      ...(raised.length > 0 ? { raisedVersion: st.raisedVersion + 1, lastRaised: raised } : {}),
      ...(arrived.length > 0 || left.length > 0
        ? { changeVersion: st.changeVersion + 1, lastChanges: { arrived, left } }
        : {}),
    });
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
    if (s.loadedAt === null) return;
    const w = opts.whole?.getState();
    if (s.hasMore && w !== undefined && w.readAt === null) return;
    if (reading !== null || readQueue.length > 0) return;
    quiet = false;
  }

  /** Read the approvals of sessions that wait on one, once per record that says so. */
  function queueApprovalReads(recs: Map<string, AdmittedSession>): void {
    if (!opts.approvals) return;
    let added = 0;
    for (const [id, rec] of recs) {
      const r = rec as Rec;
      if (!awaitsApproval(r)) {
        if (approvals.delete(id)) {
          approvalsReadFor.delete(id);
          last.delete(id);
        }
        continue;
      }
      if (approvalsReadFor.get(id) === rec || readQueue.includes(id)) continue;
      if (added >= MAX_APPROVAL_READS) break;
      approvalsReadFor.set(id, rec);
      readQueue.push(id);
      added++;
    }
    if (readQueue.length > 0 && reading === null) reading = drain();
  }

  async function drain(): Promise<void> {
    const source = opts.approvals;
    try {
      while (source && readQueue.length > 0 && !disposed) {
        const id = readQueue.shift() as string;
        const got = await source(id);
        if (disposed) return;
        if (got !== null) approvals.set(id, got);
        last.delete(id);
        evaluate();
      }
    } finally {
      reading = null;
      if (!disposed) {
        evaluate();
        maybeEndQuiet();
      }
    }
  }

  const offs: (() => void)[] = [];
  const onSessions = (s: SessionsState, prev: SessionsState | null) => {
    if (
      prev !== null &&
      s.items === prev.items &&
      s.records === prev.records &&
      s.loadedAt === prev.loadedAt
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
  const onWhole = (w: WholeListState, prev: WholeListState) => {
    if (w.extra === prev.extra && w.readAt === prev.readAt) return;
    evaluate();
  };
  if (opts.sessions) {
    offs.push(opts.sessions.subscribe((s, prev) => onSessions(s, prev)));
  }
  if (opts.streams) offs.push(opts.streams.subscribe((s, prev) => onStreams(s, prev)));
  if (opts.whole) offs.push(opts.whole.subscribe((w, prev) => onWhole(w, prev)));
  if (!opts.sessions || opts.sessions.getState().loadedAt !== null) evaluate();

  return Object.assign(store, {
    dispose() {
      disposed = true;
      for (const off of offs.splice(0)) off();
    },
    async idle() {
      while (reading) await reading;
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
