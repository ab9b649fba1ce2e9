import { createStore, type StoreApi } from "zustand/vanilla";
import type { ApiClient } from "../../client/apiClient.js";
import type { PageToken } from "../../protocol/resources.js";
import { noRedaction, type RedactFn } from "../../text/redact.js";
import { type AdmittedSession, admitSessions } from "../admitSession.js";
import { toErrorInfo } from "../errorInfo.js";
import type { SessionsState, SessionsStore } from "../sessionsStore.js";

/**
 * The rest of the list: the pages past the ones the session list has loaded, read so the
 * attention queue covers every session and not only what the user scrolled to. It follows
 * the list's own reads (each load or live refresh, so at the list refresh's pace, through the
 * one request budget) and reads on from where the list stops (or, while the list leaves
 * destroyed and error sessions out, every page asking for them), with the paging guards of
 * ApiClient.sessionPages. When it cannot read everything (the page cap, a paging loop, an
 * error), it says the queue is partial and why.
 */

export interface WholeListState {
  /** Sessions past the loaded pages, sanitized as the list's are. */
  readonly extra: readonly AdmittedSession[];
  /** Every session was read (the loaded pages and these); false when cut or failed. */
  readonly complete: boolean;
  /** Why it is not complete, one line; null when complete or not read yet. */
  readonly partialReason: string | null;
  /** When the last read over the rest ended (ms since epoch); null before the first. */
  readonly readAt: number | null;
  /** Reads so far (tests wait on it). */
  readonly reads: number;
}

export interface WholeList extends StoreApi<WholeListState> {
  dispose(): void;
  /** Resolves when no read is under way. */
  idle(): Promise<void>;
}

export interface WholeListOptions {
  sessions: Pick<SessionsStore, "getState" | "subscribe">;
  client: Pick<ApiClient, "sessionPages">;
  redact?: RedactFn;
  /** Page size asked of the service. Default 100. */
  pageSize?: number;
  /** Most pages read past the loaded ones. Default 50. */
  maxPages?: number;
  now?: () => number;
}

export function createWholeList(o: WholeListOptions): WholeList {
  const now = o.now ?? Date.now;
  const redact = o.redact ?? noRedaction;
  const store = createStore<WholeListState>()(() => ({
    extra: [],
    complete: false,
    partialReason: null,
    readAt: null,
    reads: 0,
  }));
  let running: Promise<void> | null = null;
  let again = false;
  let ctl: AbortController | null = null;
  let disposed = false;

  /** What the list holds now is out of the extras. */
  function trim(s: SessionsState): void {
    const loaded = new Set(s.items.map((x) => x.session_id));
    const extra = store.getState().extra;
    if (extra.some((x) => loaded.has(x.session_id))) {
      store.setState({ extra: extra.filter((x) => !loaded.has(x.session_id)) });
    }
  }

  async function read(): Promise<void> {
    const s = o.sessions.getState();
    // A list that leaves destroyed and error sessions out (the service's default) cannot be
    // read on from: the queue needs exactly those, so it reads every page again asking for
    // them (its pages do not line up with the list's, so from the start).
    const hidden = !s.includeDestroyed;
    if (!hidden && (!s.hasMore || s.next === null)) {
      store.setState((w) => ({
        extra: [],
        complete: s.error === null,
        partialReason: s.error === null ? null : `the list could not be read: ${s.error.message}`,
        readAt: now(),
        reads: w.reads + 1,
      }));
      return;
    }
    const c = new AbortController();
    ctl = c;
    const loaded = new Set(s.items.map((x) => x.session_id));
    const got = new Map<string, AdmittedSession>();
    let reason: string | null = null;
    try {
      const pages = o.client.sessionPages(
        hidden
          ? { limit: o.pageSize ?? 100, maxPages: o.maxPages ?? 50, includeDestroyed: true }
          : { limit: o.pageSize ?? 100, maxPages: o.maxPages ?? 50, from: s.next as PageToken },
        c.signal,
      );
      for (;;) {
        const r = await pages.next();
        if (r.done) {
          if (!r.value.complete) reason = r.value.reason;
          break;
        }
        for (const x of admitSessions(r.value.sessions, redact)) {
          if (!loaded.has(x.session_id)) got.set(x.session_id, x);
        }
      }
    } catch (e) {
      if (disposed) return;
      reason = `reading past the loaded pages failed: ${toErrorInfo(e, redact).message}`;
    } finally {
      if (ctl === c) ctl = null;
    }
    if (disposed) return;
    store.setState((w) => ({
      // A failed read keeps what the last one found: better than forgetting those sessions.
      extra: reason !== null && got.size === 0 ? w.extra : [...got.values()],
      complete: reason === null,
      partialReason: reason,
      readAt: now(),
      reads: w.reads + 1,
    }));
    trim(o.sessions.getState());
  }

  function kick(): void {
    if (disposed) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await read();
        } while (again && !disposed);
      } finally {
        running = null;
      }
    })();
  }

  const off = o.sessions.subscribe((s, prev) => {
    if (s.loadedAt === prev.loadedAt || s.loadedAt === null) return;
    trim(s);
    // A page appended by scrolling: what it holds was read already (trimmed), no new read.
    if (prev.loadingMore && !s.loadingMore) return;
    kick();
  });
  if (o.sessions.getState().loadedAt !== null) kick();

  return Object.assign(store, {
    dispose() {
      disposed = true;
      off();
      ctl?.abort();
    },
    async idle() {
      while (running) await running;
    },
  });
}
