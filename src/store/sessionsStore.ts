import { createStore, type StoreApi } from "zustand/vanilla";
import type { ApiClient, ListSessionsParams } from "../client/apiClient.js";
import { type PageToken, type Session, sessionName } from "../protocol/resources.js";
import { createdAt, sessionRepo, updatedAt } from "../protocol/sessionRecord.js";
import { hiddenUnlessAsked, STATE_RANK } from "../protocol/states.js";
import { noRedaction, type RedactFn } from "../text/redact.js";
import { type AdmittedSession, admitSession, admitSessions, displayId } from "./admitSession.js";
import { type ErrorInfo, toErrorInfo } from "./errorInfo.js";
import { sanitizeRecord } from "./sanitizeRecord.js";

/**
 * The session list: pages loaded so far, where the next one starts (a cursor or an offset,
 * whichever the service pages with), how many there are in all when the service says, and
 * the view settings (filter text, state filter, sort). What the list shows is derived by the
 * pure selectVisibleSessions, never stored.
 */

export type SessionSortKey = "updated" | "created" | "id" | "state" | "title";
export type SortDirection = "asc" | "desc";

export interface SessionsState {
  /** Every record admitted by admitSession (src/store/admitSession.ts), keyed by its raw id. */
  readonly items: readonly AdmittedSession[];
  /** Where the next page starts; null when there is none. */
  readonly next: PageToken | null;
  readonly hasMore: boolean;
  /** Sessions in all, when the service says (the documented `total`). */
  readonly total: number | null;
  /** First page (load/refresh) in flight. */
  readonly loading: boolean;
  /** A further page in flight. */
  readonly loadingMore: boolean;
  readonly error: ErrorInfo | null;
  /** When the list was last read whole (a load, or a live refresh of every loaded page). */
  readonly loadedAt: number | null;
  /** A live refresh in flight (the list stays as it is meanwhile). */
  readonly refreshing: boolean;
  /** The last live refresh failed: the list shown is as of loadedAt. */
  readonly refreshError: ErrorInfo | null;
  readonly filterText: string;
  /** Only sessions in this state; null for all. */
  readonly stateFilter: string | null;
  /**
   * The list asks for destroyed and error sessions too (`include_destroyed=true`); without it
   * the real service leaves them out.
   */
  readonly includeDestroyed: boolean;
  readonly sortKey: SessionSortKey;
  readonly sortDir: SortDirection;
  /**
   * Records fetched one by one (a pane opened on them) that are not in the loaded pages;
   * a record in the pages is updated there instead.
   */
  readonly records: Readonly<Record<string, AdmittedSession>>;

  /** Replace the list with the first page. */
  load(): Promise<void>;
  /** Append the next page; no-op while loading or when there is none. */
  loadMore(): Promise<void>;
  /** Reload from the first page, keeping the view settings. */
  refresh(): Promise<void>;
  /**
   * Read every loaded page again without clearing the list (the live refresh): records are
   * replaced where they changed (an unchanged record keeps its identity), sessions gone from
   * the service go, new ones come in, the view settings stay. Fields a stream patched after
   * the refresh began are kept over the pages. Resolves to false when it did not run or was
   * superseded (a load, a page loaded meanwhile). Never throws: a failure is refreshError.
   */
  refreshLive(): Promise<boolean>;
  setFilterText(text: string): void;
  setStateFilter(state: string | null): void;
  /** Ask for destroyed and error sessions, or stop: the list is read again from the start. */
  setIncludeDestroyed(include: boolean): Promise<void>;
  /** Sort by key; choosing the current key again flips the direction. */
  setSort(key: SessionSortKey, dir?: SortDirection): void;
  /** Merge fields into one loaded record (a live state_changed, for example). */
  patchSession(sessionId: string, patch: Partial<Session>): void;
  /**
   * Read one record again from the service (a pane opened on it, so what it shows is
   * current before its first event; a stream that may have lost events) and keep it: in the
   * loaded pages, else among `records`. Resolves to the sanitized record, or null when it
   * could not be read (what was there stays; the pane's stream reports its own). Never throws.
   */
  refreshSession(sessionId: string): Promise<AdmittedSession | null>;
}

export type SessionsStore = StoreApi<SessionsState>;

export interface SessionsStoreOptions {
  /** Page size asked of the service. Default 100 (the interface's own example). */
  pageSize?: number;
  now?: () => number;
  /** Hides the user's key in whatever the service sent (see src/text/redact.ts). */
  redact?: RedactFn;
  /** Ask for destroyed and error sessions from the start (`watch --attention`). Default false. */
  includeDestroyed?: boolean;
}

export function createSessionsStore(
  client: Pick<ApiClient, "listSessions"> & Partial<Pick<ApiClient, "getSession">>,
  opts: SessionsStoreOptions = {},
): SessionsStore {
  const pageSize = opts.pageSize ?? 100;
  const now = opts.now ?? Date.now;
  const redact = opts.redact ?? noRedaction;

  let generation = 0;
  /** Cursors the service has given since the first page: one given again would loop forever. */
  let seenCursors = new Set<string>();
  let inflight: AbortController | null = null;
  /** Bumped whenever a page is appended, so a live refresh started before knows. */
  let appended = 0;
  let live: AbortController | null = null;
  /** What a stream patched into a record, and when (a live refresh keeps what is newer). */
  const patched = new Map<string, { at: number; patch: Partial<Session> }>();

  return createStore<SessionsState>()((set, get) => {
    /** A list request as the view asks it: with include_destroyed when it wants those. */
    function listParams(p: ListSessionsParams): ListSessionsParams {
      return get().includeDestroyed ? { ...p, includeDestroyed: true } : p;
    }

    /**
     * Sessions a live refresh no longer lists while destroyed and error ones are left out:
     * most likely one of them became destroyed or failed, which the list cannot show. A few
     * are read one by one, and those now hidden are kept among `records`, where a pane and
     * the attention queue still find them (the others moved past the loaded pages, or are
     * gone: nothing to keep).
     */
    async function readVanished(gone: readonly string[], gen: number): Promise<void> {
      const getSession = client.getSession?.bind(client);
      if (!getSession) return;
      for (const id of gone.slice(0, MAX_VANISHED_READS)) {
        let fresh: AdmittedSession;
        try {
          fresh = admitSession(await getSession(id), redact);
        } catch {
          continue;
        }
        if (gen !== generation || get().includeDestroyed) return;
        if (fresh.session_id !== id || !hiddenUnlessAsked(field(fresh, "state"))) continue;
        if (get().items.some((x) => x.session_id === id)) continue;
        set({ records: { ...get().records, [id]: fresh } });
      }
    }

    async function fetchFirst(): Promise<void> {
      inflight?.abort();
      live?.abort();
      const ctl = new AbortController();
      inflight = ctl;
      const gen = ++generation;
      set({ loading: true, loadingMore: false, error: null });
      try {
        const page = await client.listSessions(listParams({ limit: pageSize }), ctl.signal);
        if (gen !== generation) return;
        seenCursors = new Set(
          page.next !== null && "cursor" in page.next ? [page.next.cursor] : [],
        );
        set({
          items: dedupe([], admitSessions(page.sessions, redact)),
          next: page.next,
          hasMore: page.next !== null,
          total: page.total,
          loading: false,
          loadedAt: now(),
          refreshError: null,
        });
      } catch (e) {
        if (gen !== generation) return;
        set({ loading: false, error: toErrorInfo(e, redact) });
      } finally {
        if (inflight === ctl) inflight = null;
      }
    }

    return {
      items: [],
      next: null,
      hasMore: false,
      total: null,
      loading: false,
      loadingMore: false,
      error: null,
      loadedAt: null,
      refreshing: false,
      refreshError: null,
      filterText: "",
      stateFilter: null,
      includeDestroyed: opts.includeDestroyed === true,
      sortKey: "updated",
      sortDir: "desc",
      records: {},

      load: fetchFirst,
      refresh: fetchFirst,

      async refreshLive() {
        const s = get();
        if (s.loading || s.refreshing) return false;
        if (s.loadedAt === null) {
          await fetchFirst();
          return get().error === null;
        }
        const ctl = new AbortController();
        live = ctl;
        const gen = generation;
        const pagesBefore = appended;
        const started = now();
        // As many records as are loaded now (at least a page), page after page.
        const want = Math.max(1, s.items.length);
        set({ refreshing: true });
        try {
          const got: AdmittedSession[] = [];
          let next: PageToken | null = null;
          let total: number | null = null;
          let page: PageToken | undefined;
          let offset = 0;
          const seen = new Set<string>();
          for (let n = 0; n < MAX_REFRESH_PAGES; n++) {
            const p = await client.listSessions(
              listParams({ limit: pageSize, ...(page ? { page } : {}) }),
              ctl.signal,
            );
            for (const x of p.sessions) got.push(admitSession(x, redact));
            total = p.total;
            next = p.next;
            if (next === null || got.length >= want) break;
            // The same guards as paging by hand: a cursor seen before, an offset standing still.
            if ("cursor" in next) {
              if (seen.has(next.cursor)) break;
              seen.add(next.cursor);
            } else {
              if (next.offset <= offset) break;
              offset = next.offset;
            }
            page = next;
          }
          if (gen !== generation || pagesBefore !== appended) {
            set({ refreshing: false });
            return false;
          }
          const previous = new Map(get().items.map((x) => [x.session_id, x]));
          const items = dedupe([], got).map((fresh) => {
            const p = patched.get(fresh.session_id);
            const merged = p && p.at >= started ? { ...fresh, ...p.patch } : fresh;
            const old = previous.get(fresh.session_id);
            return old !== undefined && sameRecord(old, merged) ? old : merged;
          });
          patched.clear();
          const kept = new Set(items.map((x) => x.session_id));
          const gone = [...previous.keys()].filter((id) => !kept.has(id));
          set({
            items,
            next,
            hasMore: next !== null,
            total: total ?? get().total,
            loadedAt: now(),
            refreshing: false,
            refreshError: null,
          });
          if (!get().includeDestroyed) await readVanished(gone, gen);
          return true;
        } catch (e) {
          if (gen !== generation) return false;
          set({ refreshing: false, refreshError: toErrorInfo(e, redact) });
          return false;
        } finally {
          if (live === ctl) live = null;
        }
      },

      async loadMore() {
        const s = get();
        const from = s.next;
        if (s.loading || s.loadingMore || !s.hasMore || from === null) return;
        const ctl = new AbortController();
        inflight = ctl;
        const gen = generation;
        set({ loadingMore: true, error: null });
        try {
          const page = await client.listSessions(
            listParams({ limit: pageSize, page: from }),
            ctl.signal,
          );
          if (gen !== generation) return;
          const next = page.next;
          // A cursor given before, or an offset that does not move forward, would page in a
          // circle: stop, and say the list is cut.
          let stuck: string | null = null;
          if (next !== null && "cursor" in next) {
            if (seenCursors.has(next.cursor)) stuck = "the service repeated a page cursor";
            seenCursors.add(next.cursor);
          } else if (next !== null && "offset" in from && next.offset <= from.offset) {
            stuck = "the service's next offset does not move forward";
          }
          const items = dedupe(get().items, admitSessions(page.sessions, redact));
          appended++;
          set({
            items,
            next: stuck ? null : next,
            hasMore: stuck === null && next !== null,
            total: page.total ?? get().total,
            loadingMore: false,
            loadedAt: now(),
            error:
              stuck !== null
                ? {
                    message: `The list may be incomplete: ${stuck} after ${items.length} sessions`,
                    hint: "Refresh (Ctrl-R) to start over from the first page.",
                    code: "incomplete",
                    requiredScope: null,
                  }
                : null,
          });
        } catch (e) {
          if (gen !== generation) return;
          set({ loadingMore: false, error: toErrorInfo(e, redact) });
        } finally {
          if (inflight === ctl) inflight = null;
        }
      },

      setFilterText(text) {
        if (text !== get().filterText) set({ filterText: text });
      },

      setStateFilter(state) {
        if (state !== get().stateFilter) set({ stateFilter: state });
      },

      async setIncludeDestroyed(include) {
        if (include === get().includeDestroyed) return;
        // A state filter for a state the list no longer holds would show nothing.
        const filter = get().stateFilter;
        set({
          includeDestroyed: include,
          ...(!include && hiddenUnlessAsked(filter) ? { stateFilter: null } : {}),
        });
        await fetchFirst();
      },

      setSort(key, dir) {
        const s = get();
        const nextDir =
          dir ?? (key === s.sortKey ? (s.sortDir === "asc" ? "desc" : "asc") : defaultDir(key));
        set({ sortKey: key, sortDir: nextDir });
      },

      patchSession(sessionId, patch) {
        const extra = get().records[sessionId];
        if (extra) {
          const next = { ...extra, ...sanitizeRecord(patch, redact), session_id: sessionId };
          set({ records: { ...get().records, [sessionId]: next } });
        }
        const items = get().items;
        const i = items.findIndex((x) => x.session_id === sessionId);
        const current = items[i];
        if (current === undefined) return;
        const next = items.slice();
        const clean = sanitizeRecord(patch, redact);
        next[i] = { ...current, ...clean, session_id: current.session_id };
        const before = patched.get(sessionId)?.patch;
        patched.set(sessionId, { at: now(), patch: { ...before, ...clean } });
        set({ items: next });
      },

      async refreshSession(sessionId) {
        if (!client.getSession) return null;
        let fresh: AdmittedSession;
        try {
          fresh = admitSession(await client.getSession(sessionId), redact);
        } catch {
          return null;
        }
        // Another session's record under this id is not this session's.
        if (fresh.session_id !== sessionId) return null;
        const s = get();
        const i = s.items.findIndex((x) => x.session_id === sessionId);
        const current = s.items[i];
        if (current !== undefined) {
          // A list row may carry fields the single record leaves out: they stay.
          const items = s.items.slice();
          items[i] = { ...current, ...fresh };
          set({ items });
        } else set({ records: { ...s.records, [sessionId]: fresh } });
        return fresh;
      },
    };
  });
}

/** Most sessions gone from one live refresh that are read one by one (see readVanished). */
const MAX_VANISHED_READS = 5;

/** Most pages one live refresh reads (100 sessions each by default). */
const MAX_REFRESH_PAGES = 50;

/** Same fields, same values (nested values compared as JSON): the record did not change. */
function sameRecord(a: Session, b: Session): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  for (const k of ka) {
    const x = ra[k];
    const y = rb[k];
    if (x === y) continue;
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
    if (JSON.stringify(x) !== JSON.stringify(y)) return false;
  }
  return true;
}

function defaultDir(key: SessionSortKey): SortDirection {
  return key === "updated" || key === "created" ? "desc" : "asc";
}

/** Pages can shift while paging: a session seen already keeps its place, with newer fields. */
function dedupe(
  existing: readonly AdmittedSession[],
  incoming: readonly AdmittedSession[],
): AdmittedSession[] {
  const index = new Map<string, number>();
  const out = existing.slice();
  out.forEach((s, i) => {
    index.set(s.session_id, i);
  });
  for (const s of incoming) {
    const at = index.get(s.session_id);
    if (at === undefined) {
      index.set(s.session_id, out.length);
      out.push(s);
    } else {
      out[at] = s;
    }
  }
  return out;
}

/** The fields the list shows and the filter searches. */
export const VISIBLE_FIELDS = [
  "session_id",
  "state",
  "name",
  "title",
  "agent",
  "template_id",
  "visibility",
  "github_repo",
  "repo",
  "branch",
] as const;

function field(s: Session, key: string): string {
  // The id is searched and drawn as its display copy; only identity uses the raw id.
  if (key === "session_id") return displayId(s);
  const v = (s as Record<string, unknown>)[key];
  return typeof v === "string" ? v : "";
}

/** Filter terms that name a field: `state:paused`, `agent:codex`, `template:tpl_x`, `visibility:team`. */
const FIELD_TERMS: Record<string, string> = {
  state: "state",
  agent: "agent",
  template: "template_id",
  template_id: "template_id",
  visibility: "visibility",
  name: "name",
  repo: "repo",
  branch: "branch",
};

/**
 * Every whitespace-separated term must match (case-insensitive): a `field:value` term the
 * start of that field, any other term some visible field.
 */
export function matchesFilter(s: Session, filterText: string): boolean {
  const terms = filterText.toLowerCase().split(/\s+/).filter(Boolean);
  if (terms.length === 0) return true;
  let hay: string | null = null;
  for (const t of terms) {
    const colon = t.indexOf(":");
    const key = colon > 0 ? FIELD_TERMS[t.slice(0, colon)] : undefined;
    if (key !== undefined) {
      const want = t.slice(colon + 1);
      const have =
        key === "name"
          ? (sessionName(s) ?? "")
          : key === "repo"
            ? (sessionRepo(s) ?? "")
            : field(s, key);
      if (!have.toLowerCase().startsWith(want)) return false;
      continue;
    }
    hay ??= VISIBLE_FIELDS.map((k) => field(s, k).toLowerCase()).join("\n");
    if (!hay.includes(t)) return false;
  }
  return true;
}

function compare(a: Session, b: Session, key: SessionSortKey): number {
  switch (key) {
    case "updated":
      return timeOf(a, updatedAt, createdAt) - timeOf(b, updatedAt, createdAt);
    case "created":
      return timeOf(a, createdAt, updatedAt) - timeOf(b, createdAt, updatedAt);
    case "state": {
      const ra = STATE_RANK[field(a, "state")] ?? 9;
      const rb = STATE_RANK[field(b, "state")] ?? 9;
      return ra - rb || field(a, "state").localeCompare(field(b, "state"));
    }
    case "title":
      return (sessionName(a) ?? "").localeCompare(sessionName(b) ?? "");
    case "id":
      return 0;
  }
}

function timeOf(s: Session, primary: typeof updatedAt, fallback: typeof updatedAt): number {
  return primary(s) ?? fallback(s) ?? 0;
}

export type VisibleInputs<T extends Session = AdmittedSession> = Pick<
  SessionsState,
  "filterText" | "stateFilter" | "sortKey" | "sortDir"
> & { readonly items: readonly T[] };

/** Filter and sort, pure. Ties (and the "id" key) order by session id, so order is stable. */
export function deriveVisibleSessions<T extends Session>(inp: VisibleInputs<T>): T[] {
  const out = inp.items.filter(
    (s) =>
      (inp.stateFilter === null || field(s, "state") === inp.stateFilter) &&
      matchesFilter(s, inp.filterText),
  );
  const sign = inp.sortDir === "asc" ? 1 : -1;
  out.sort(
    (a, b) => sign * (compare(a, b, inp.sortKey) || a.session_id.localeCompare(b.session_id)),
  );
  return out;
}

let lastInputs: VisibleInputs | null = null;
let lastOutput: AdmittedSession[] = [];

/** What a list view shows about the list as a whole (counts, loading, filter, sort): the session list and the fleet view alike. */
export function selectListMeta(s: SessionsState) {
  return {
    total: s.items.length,
    serverTotal: s.total,
    loading: s.loading,
    loadingMore: s.loadingMore,
    hasMore: s.hasMore,
    error: s.error,
    filterText: s.filterText,
    stateFilter: s.stateFilter,
    sortKey: s.sortKey,
    sortDir: s.sortDir,
  };
}

/**
 * deriveVisibleSessions memoised on its five inputs, so it can be a zustand selector: the
 * same array comes back until the items or a view setting change.
 */
export function selectVisibleSessions(s: VisibleInputs): AdmittedSession[] {
  const l = lastInputs;
  if (
    l !== null &&
    l.items === s.items &&
    l.filterText === s.filterText &&
    l.stateFilter === s.stateFilter &&
    l.sortKey === s.sortKey &&
    l.sortDir === s.sortDir
  ) {
    return lastOutput;
  }
  lastOutput = deriveVisibleSessions(s);
  lastInputs = {
    items: s.items,
    filterText: s.filterText,
    stateFilter: s.stateFilter,
    sortKey: s.sortKey,
    sortDir: s.sortDir,
  };
  return lastOutput;
}

/** The states present in the loaded items, for the state filter's choices. */
export function knownStates(items: readonly Session[]): string[] {
  const set = new Set<string>();
  for (const s of items) {
    const st = field(s, "state");
    if (st) set.add(st);
  }
  return [...set].sort((a, b) => (STATE_RANK[a] ?? 9) - (STATE_RANK[b] ?? 9) || a.localeCompare(b));
}

/** A session's record: from the loaded pages, else fetched on its own. */
export function selectRecord(
  s: Pick<SessionsState, "items" | "records">,
  sessionId: string,
): AdmittedSession | undefined {
  return s.items.find((x) => x.session_id === sessionId) ?? s.records[sessionId];
}
