import { createStore, type StoreApi } from "zustand/vanilla";
import type { ApiClient } from "../../client/apiClient.js";
import {
  type Approval,
  type ApprovalList,
  isPending,
  MAX_APPROVALS_READ,
} from "../../protocol/approvals.js";
import { agentStatus } from "../../protocol/sessionRecord.js";
import { formatCount } from "../../text/format.js";
import { noRedaction, type RedactFn } from "../../text/redact.js";
import type { AdmittedSession } from "../admitSession.js";
import { type ErrorInfo, toErrorInfo } from "../errorInfo.js";
import { sanitizeRecord } from "../sanitizeRecord.js";
import type { SessionsStore } from "../sessionsStore.js";
import type { StreamsStore } from "../streams/streamsStore.js";

/**
 * The one approvals book: every session's approvals as last read from the service, admitted
 * once (every string sanitized, the key redacted). The pane's line, `Y`/`X`, the attention
 * queue, `A` and the headless `approvals`, `approve`, `reject` and `attention` all read this
 * book, so no two of them can disagree about what waits.
 *
 * It reads a session's approvals only when something says the agent waits on one: its record
 * (`agent_status: awaiting_approval`, see followAwaiting), a stream telling that state, a
 * decision made here (the list is read again after it), or the user naming the session (a
 * headless command, `Y` on a session the book has not read). Reads of one session share one
 * request; each goes through the client, and so through the one transport and its budget.
 */

export interface ApprovalsEntry {
  /** The approvals as the service listed them (newest first), admitted; pending and resolved. */
  readonly all: readonly Approval[];
  /** The pending ones among them, oldest first: the order the user decides them in. */
  readonly pending: readonly Approval[];
  /**
   * How many approvals the service listed, and how many of them are pending, read or not:
   * past MAX_APPROVALS_READ a list is only counted (protocol/approvals.ts), so these can be
   * more than `all` and `pending` hold. A list cut there says so with the real counts.
   */
  readonly listed: number;
  readonly pendingCount: number;
  /** When they were last read (ms since epoch); null while the first read is under way. */
  readonly readAt: number | null;
  /** The last read failed (what was read before stays); null when it did not. */
  readonly error: ErrorInfo | null;
}

export interface ApprovalsBookState {
  readonly bySession: ReadonlyMap<string, ApprovalsEntry>;
  /** Reads under way (what a first reading waits for before later arrivals are news). */
  readonly reading: number;
}

export interface ApprovalsBook extends StoreApi<ApprovalsBookState> {
  /**
   * Read a session's approvals now (one request shared by concurrent callers). Resolves to
   * its entry; a failure is kept in `error`, or thrown with `throwOnError` (headless commands
   * that name the session exit on it).
   */
  read(sessionId: string, opts?: { throwOnError?: boolean }): Promise<ApprovalsEntry>;
  /**
   * A decision taken here: the service's answer (admitted as the lists are) replaces the
   * approval in the book, so it leaves the pending ones at once. Returns the admitted answer.
   */
  resolved(sessionId: string, answer: Approval): Approval;
  /** The session no longer waits (its record says so): its pending approvals are cleared. */
  settle(sessionId: string): void;
  /** Resolves when no read is under way. */
  idle(): Promise<void>;
  /** Stop reading (the UI or the command ends). */
  dispose(): void;
}

/** Most sessions whose approvals are read at once; the others wait their turn. */
const MAX_PARALLEL = 4;

const EMPTY: ApprovalsEntry = {
  all: [],
  pending: [],
  listed: 0,
  pendingCount: 0,
  readAt: null,
  error: null,
};

/** A session's entry, or the empty one (nothing read). */
export function approvalsOf(s: ApprovalsBookState, sessionId: string): ApprovalsEntry {
  return s.bySession.get(sessionId) ?? EMPTY;
}

/** The pending approvals of a session, oldest first (what the keys decide, in order). */
export function pendingOf(s: ApprovalsBookState, sessionId: string): readonly Approval[] {
  return approvalsOf(s, sessionId).pending;
}

/**
 * What every view of a session's approvals says when its list was cut at MAX_APPROVALS_READ
 * and pending ones were left unread (the pane, the picker; headless `approvals` exits 7):
 * that more are pending than shown. Null when nothing pending was left unread.
 */
export function pendingCutNote(e: ApprovalsEntry): string | null {
  const unread = e.pendingCount - e.pending.length;
  if (unread <= 0) return null;
  return `${formatCount(unread)} more pending than shown: the service lists ${formatCount(e.listed)} approvals, only the first ${formatCount(Math.min(e.all.length, MAX_APPROVALS_READ))} are read`;
}

/** Whether the book has read the session's approvals at least once. */
export function hasRead(s: ApprovalsBookState, sessionId: string): boolean {
  return (s.bySession.get(sessionId)?.readAt ?? null) !== null;
}

export interface ApprovalsBookOptions {
  api: Pick<ApiClient, "listApprovals">;
  redact?: RedactFn;
  now?: () => number;
}

export function createApprovalsBook(o: ApprovalsBookOptions): ApprovalsBook {
  const redact = o.redact ?? noRedaction;
  const now = o.now ?? Date.now;
  const stop = new AbortController();
  const store = createStore<ApprovalsBookState>()(() => ({ bySession: new Map(), reading: 0 }));
  const inFlight = new Map<string, Promise<ApprovalsEntry>>();
  /** Reads waiting for a free slot. */
  const waiting: (() => void)[] = [];
  let running = 0;

  const put = (sessionId: string, entry: ApprovalsEntry) => {
    const next = new Map(store.getState().bySession);
    next.set(sessionId, entry);
    store.setState({ bySession: next });
  };

  const admit = (sessionId: string, list: ApprovalList): ApprovalsEntry => {
    const all = sanitizeRecord(
      list.items.map((a) => ({ ...a, session_id: a.session_id ?? sessionId })),
      redact,
    );
    const pending = all.filter(isPending).reverse();
    // The service lists newest first; the user decides the oldest first.
    return {
      all,
      pending,
      listed: Math.max(list.total, all.length),
      pendingCount: Math.max(list.pending, pending.length),
      readAt: now(),
      error: null,
    };
  };

  const slot = async (): Promise<void> => {
    if (running < MAX_PARALLEL) {
      running++;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
  };
  const release = () => {
    running--;
    waiting.shift()?.();
  };

  const reading = (n: number) => {
    if (!stop.signal.aborted) store.setState({ reading: store.getState().reading + n });
  };
  const readOnce = async (sessionId: string): Promise<ApprovalsEntry> => {
    reading(1);
    await slot();
    try {
      const list = await o.api.listApprovals(sessionId, stop.signal);
      const entry = admit(sessionId, list);
      if (!stop.signal.aborted) put(sessionId, entry);
      return entry;
    } catch (e) {
      const had = approvalsOf(store.getState(), sessionId);
      const entry = { ...had, error: toErrorInfo(e, redact) };
      if (!stop.signal.aborted) put(sessionId, entry);
      throw Object.assign(new Error("approvals read failed"), { cause: e, entry });
    } finally {
      release();
      reading(-1);
    }
  };

  return Object.assign(store, {
    async read(sessionId: string, opts: { throwOnError?: boolean } = {}) {
      let p = inFlight.get(sessionId);
      if (!p) {
        p = readOnce(sessionId).finally(() => inFlight.delete(sessionId));
        inFlight.set(sessionId, p);
      }
      try {
        return await p;
      } catch (e) {
        const err = e as Error & { entry: ApprovalsEntry };
        if (opts.throwOnError) throw err.cause;
        return err.entry;
      }
    },
    resolved(sessionId: string, answer: Approval) {
      const [admitted] = admit(sessionId, { items: [answer], total: 1, pending: 0 }).all as [
        Approval,
      ];
      const had = store.getState().bySession.get(sessionId);
      if (had) {
        const pending = had.pending.filter((a) => a.id !== admitted.id);
        put(sessionId, {
          ...had,
          all: had.all.map((a) => (a.id === admitted.id ? admitted : a)),
          pending,
          pendingCount: had.pendingCount - (had.pending.length - pending.length),
        });
      }
      return admitted;
    },
    settle(sessionId: string) {
      const had = store.getState().bySession.get(sessionId);
      if (!had || had.pending.length === 0) return;
      put(sessionId, { ...had, pending: [], pendingCount: 0 });
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight.values()]);
    },
    dispose() {
      stop.abort();
    },
  });
}

/** The record says the agent waits on an approval: what makes its approvals worth reading. */
export function recordAwaitsApproval(rec: Readonly<Record<string, unknown>>): boolean {
  return agentStatus(rec) === "awaiting_approval";
}

/** Where the records and stream states the book follows come from. */
export interface AwaitingSources {
  /** Every record known now (the catalogue), by id; a changed record is a new object. */
  records(): Readonly<Record<string, AdmittedSession>>;
  /** Calls back whenever the records may have changed; returns its unsubscribe. */
  subscribeRecords(fn: () => void): () => void;
  /** The session state each open stream last told (state_changed), when there are streams. */
  streamStates?(): Iterable<[string, string | null]>;
  subscribeStreams?(fn: () => void): () => void;
}

/**
 * Reads a session's approvals when its record starts to say it awaits one, or says so again
 * after a change (`updated_at`), or a stream tells that state; clears them when the record
 * says it no longer waits. Sessions that await nothing are never read. Returns the unsubscribe.
 *
 * Changes are looked at once per turn of the event loop, and only the records that changed
 * since the last look are read again: with 2,000 listed sessions, a look at every record on
 * every stream opened or closed made the fleet stall as it scrolled (B10-2000).
 */
export function followAwaiting(book: ApprovalsBook, src: AwaitingSources): () => void {
  /** What each waiting session's approvals were last read for (its record's updated_at). */
  const readFor = new Map<string, string>();
  let looked: Readonly<Record<string, AdmittedSession>> = {};
  let stopped = false;
  let queued = false;
  const want = (id: string, mark: string) => {
    if (readFor.get(id) === mark) return;
    readFor.set(id, mark);
    // At most MAX_PARALLEL at once; the rest wait their turn (and the budget paces them).
    void book.read(id);
  };
  const look = () => {
    queued = false;
    if (stopped) return;
    const byId = src.records();
    if (byId !== looked) {
      for (const id of Object.keys(byId)) {
        const rec = byId[id];
        if (rec === undefined || rec === looked[id]) continue;
        const r = rec as Readonly<Record<string, unknown>>;
        if (recordAwaitsApproval(r)) want(id, `record ${String(r.updated_at ?? "")}`);
        else if (agentStatus(r) !== null) {
          readFor.delete(id);
          book.settle(id);
        }
      }
      looked = byId;
    }
    for (const [id, state] of src.streamStates?.() ?? []) {
      if (state !== "awaiting_approval") continue;
      const rec = Object.hasOwn(byId, id) ? byId[id] : undefined;
      if (rec && recordAwaitsApproval(rec as Readonly<Record<string, unknown>>)) continue;
      want(id, "stream");
    }
  };
  const later = () => {
    if (queued) return;
    queued = true;
    queueMicrotask(look);
  };
  const offs = [src.subscribeRecords(later)];
  if (src.subscribeStreams) offs.push(src.subscribeStreams(later));
  look();
  return () => {
    stopped = true;
    for (const off of offs) off();
  };
}

/**
 * The book's sources in the client: the records of the sessions store (the loaded pages and
 * records read one by one), the pages past them (the whole list), and the open streams.
 */
export function awaitingSourcesOf(o: {
  sessions: Pick<SessionsStore, "getState" | "subscribe">;
  streams?: Pick<StreamsStore, "getState" | "subscribe"> | undefined;
}): AwaitingSources {
  const { sessions, streams } = o;
  return {
    records() {
      return sessions.getState().byId;
    },
    subscribeRecords(fn) {
      return sessions.subscribe((s, prev) => {
        if (s.byId !== prev.byId) fn();
      });
    },
    ...(streams
      ? {
          *streamStates() {
            const st = streams.getState();
            for (const id of st.order) yield [id, st.sessions[id]?.sessionState ?? null];
          },
          subscribeStreams(fn: () => void) {
            let was = new Map<string, string | null>();
            return streams.subscribe((st) => {
              // Only a change of a stream's told state is worth a look.
              const now = new Map(
                st.order.map((id) => [id, st.sessions[id]?.sessionState ?? null]),
              );
              const changed =
                now.size !== was.size || [...now].some(([id, v]) => was.get(id) !== v);
              was = now;
              if (changed) fn();
            });
          },
        }
      : {}),
  };
}
