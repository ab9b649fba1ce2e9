import { createStore, type StoreApi } from "zustand/vanilla";
import type { AdmittedSession } from "../admitSession.js";
import { type ApprovalsBookState, approvalsOf, pendingOf } from "../approvals/approvalsBook.js";
import type { SessionsState, SessionsStore } from "../sessionsStore.js";
import type { StreamsState, StreamsStore } from "../streams/streamsStore.js";
import {
  type AttentionChanges,
  type AttentionItem,
  causeKey,
  queueFrom,
  toRaise,
} from "./queue.js";
import { type AttentionConfig, DEFAULT_ATTENTION, KEPT_UNTIL_SEEN } from "./reasons.js";
import {
  causesOf,
  type Inputs,
  type Rec,
  sameInputs,
  sessionItems,
  streamViewOf,
} from "./sessionCauses.js";

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
 *
 * The items and the queue's pure rules are in queue.ts, a session's causes and items in
 * sessionCauses.ts; this module holds the state and follows the sources.
 */

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
  const records = catalogueRecords(opts.sessions);
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
        else if (KEPT_UNTIL_SEEN.has(i.reason)) dismissed.add(causeKey(i.sessionId, i.reason));
        else kept.push(i.seen ? i : { ...i, seen: true });
      }
      publish(kept, get().partial);
    },
  }));

  /** The queue from the causes followed; a notifying arrival is raised once. */
  function publish(next: AttentionItem[], listPartial: string | null): void {
    all = next;
    const st = store.getState();
    const q = queueFrom(next, st.items, listPartial);
    if (!q.changed && q.partial === st.partial) return;
    const raised = toRaise(q.arrived, next, raisedOnce, quiet);
    const { arrived, left } = q;
    store.setState({
      items: q.items,
      partial: q.partial,
      ...(raised.length > 0 ? { raisedVersion: st.raisedVersion + 1, lastRaised: raised } : {}),
      ...(arrived.length > 0 || left.length > 0
        ? { changeVersion: st.changeVersion + 1, lastChanges: { arrived, left } }
        : {}),
    });
  }

  /** What one session is evaluated from now. */
  function inputsOf(id: string): Inputs {
    const book = opts.approvals?.getState();
    return {
      rec: records.get(id),
      stream: opts.streams?.getState().sessions[id],
      approvals: book ? pendingOf(book, id) : undefined,
      approvalCount: book ? approvalsOf(book, id).pendingCount : 0,
    };
  }

  /**
   * Re-evaluate the sessions whose inputs changed; one store update for all. `only`: just
   * these sessions (a stream's frame touches a few, never the whole list).
   */
  function evaluate(only?: Iterable<string>): void {
    if (disposed) return;
    const ids = new Set<string>(
      only ?? [...records.ids(), ...(opts.streams?.getState().order ?? [])],
    );
    const complete = only === undefined && listComplete(opts.sessions?.getState());
    const bySession = new Map<string, AttentionItem[]>();
    for (const i of all) {
      const l = bySession.get(i.sessionId);
      if (l) l.push(i);
      else bySession.set(i.sessionId, [i]);
    }
    // Sessions no longer anywhere (gone from a complete list, no stream): their items go.
    if (complete) for (const id of bySession.keys()) ids.add(id);
    const next: AttentionItem[] = [];
    const touched = new Set<string>();
    const ctx = { config, dismissed, complete, now: now() };
    for (const id of ids) {
      const inp = inputsOf(id);
      const was = last.get(id);
      // Silence is a matter of time: a stream reconnecting is looked at each time.
      const timeDependent = inp.stream?.status.state === "reconnecting";
      if (was !== undefined && sameInputs(was, inp) && !timeDependent) continue;
      if (inp.rec === undefined && inp.stream === undefined && !complete) continue;
      touched.add(id);
      last.set(id, inp);
      const prev = prevRec.get(id) ?? null;
      // A first sight compares with when the user last saw the session (the journal's memory).
      const lastSeen = prev === null ? (opts.lastSeen?.(id) ?? null) : null;
      const view = inp.stream ? streamViewOf(id, inp.stream, silentSince, ctx.now) : null;
      const causes = causesOf(inp, prev, lastSeen, view);
      if (inp.rec !== undefined) prevRec.set(id, inp.rec as Rec);
      next.push(...sessionItems(id, inp, causes, bySession.get(id) ?? [], ctx));
    }
    // Only some sessions were looked at and none of them changed: the queue stands.
    if (only !== undefined && touched.size === 0) {
      maybeEndQuiet();
      return;
    }
    for (const i of all) if (!touched.has(i.sessionId)) next.push(i);
    if (complete) {
      for (const id of [...last.keys()]) {
        if (ids.has(id)) continue;
        last.delete(id);
        prevRec.delete(id);
      }
    }
    publish(next, partialOf(opts.sessions?.getState()));
    maybeEndQuiet();
  }

  /** What waits when the queue is first read whole is not news: later arrivals are. */
  function maybeEndQuiet(): void {
    if (quiet && firstReadDone(opts.sessions?.getState(), opts.approvals?.getState())) {
      quiet = false;
    }
  }

  const unwatch = watchInputs(opts, evaluate, maybeEndQuiet);
  if (!opts.sessions || opts.sessions.getState().loadedAt !== null) evaluate();

  return Object.assign(store, {
    dispose() {
      disposed = true;
      unwatch();
    },
    async idle() {
      await opts.approvals?.idle();
    },
  });
}

/**
 * Re-evaluates on what moved: the catalogue's records (every session), a stream's frame (the
 * sessions it touched), the approvals book (the sessions whose book changed); the end of the
 * book's first reads may end the quiet start. Returns the way to stop.
 */
function watchInputs(
  opts: AttentionStoreOptions,
  evaluate: (only?: Iterable<string>) => void,
  endQuiet: () => void,
): () => void {
  const offs: (() => void)[] = [];
  if (opts.sessions) {
    offs.push(opts.sessions.subscribe((s, prev) => catalogueMoved(s, prev) && evaluate()));
  }
  if (opts.streams) {
    // A burst of stream changes in one turn (the fleet opening and closing dozens of streams
    // as it scrolls, a batch of frames) is looked at once, after it: each look sorts the whole
    // queue, and a look per change made scrolling a 2,000-session fleet stall (B10-2000).
    let pending: Set<string> | null = null;
    offs.push(
      opts.streams.subscribe((s, prev) => {
        const changed = streamsChanged(s, prev);
        if (changed.length === 0) return;
        if (pending) {
          for (const id of changed) pending.add(id);
          return;
        }
        pending = new Set(changed);
        queueMicrotask(() => {
          const ids = pending;
          pending = null;
          if (ids) evaluate(ids);
        });
      }),
    );
  }
  if (opts.approvals) {
    offs.push(
      opts.approvals.subscribe((b, prev) => {
        if (b.bySession !== prev.bySession) evaluate(bookChanged(b, prev));
        if (b.reading === 0 && prev.reading > 0) endQuiet();
      }),
    );
  }
  return () => {
    for (const off of offs.splice(0)) off();
  };
}

type SessionsSource = AttentionStoreOptions["sessions"];

/**
 * The catalogue's records, read in place: a stream's patch makes a new `byId`, and copying
 * 2,000 of them into a map on every stream batch was the attention queue's largest cost in
 * B10-2000's profile. Own keys only: an id is the service's text, never a prototype's name.
 */
function catalogueRecords(sessions: SessionsSource) {
  const byId = () => sessions?.getState().byId ?? {};
  return {
    get: (id: string): AdmittedSession | undefined => {
      const all = byId();
      return Object.hasOwn(all, id) ? all[id] : undefined;
    },
    ids: (): string[] => Object.keys(byId()),
  };
}

/** The catalogue read every page: a session missing from it is gone. */
function listComplete(s: SessionsState | undefined): boolean {
  if (!s || s.loadedAt === null || s.loading || s.loadingMore || s.error !== null) return false;
  return !s.hasMore;
}

/** Why the queue may miss sessions: the list was not read whole. */
function partialOf(s: SessionsState | undefined): string | null {
  return s?.hasMore === true ? (s.partialReason ?? "the list could not be read whole") : null;
}

/** The first reading is done: the list read (or none followed) and the book reads nothing. */
function firstReadDone(
  s: SessionsState | undefined,
  book: ApprovalsBookState | undefined,
): boolean {
  if (!s) return true;
  if (s.loadedAt === null || s.loadingMore) return false;
  return (book?.reading ?? 0) === 0;
}

/** The catalogue changed what attention reads (its records, a load or a page). */
function catalogueMoved(s: SessionsState, prev: SessionsState): boolean {
  if (s.loadedAt === null) return false;
  return !(
    s.byId === prev.byId &&
    s.loadedAt === prev.loadedAt &&
    s.loadingMore === prev.loadingMore
  );
}

/** The streams that changed, those reconnecting (silence is a matter of time), those closed. */
function streamsChanged(s: StreamsState, prev: StreamsState): string[] {
  if (s.sessions === prev.sessions) return [];
  const changed: string[] = [];
  for (const id of s.order) {
    const x = s.sessions[id];
    if (prev.sessions[id] !== x || x?.status.state === "reconnecting") changed.push(id);
  }
  for (const id of prev.order) if (!s.sessions[id]) changed.push(id);
  return changed;
}

/** The sessions whose entry in the approvals book changed. */
function bookChanged(b: ApprovalsBookState, prev: ApprovalsBookState): string[] {
  const changed: string[] = [];
  for (const [id, e] of b.bySession) if (prev.bySession.get(id) !== e) changed.push(id);
  return changed;
}
