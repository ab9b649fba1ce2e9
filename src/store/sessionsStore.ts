import { createStore, type StoreApi } from "zustand/vanilla";
import type { PagingEnd } from "../client/paging.js";
import { compareIds } from "../protocol/ids.js";
import { type Session, sessionName } from "../protocol/resources.js";
import { createdAt, sessionRepo, updatedAt } from "../protocol/sessionRecord.js";
import { hiddenUnlessAsked, STATE_RANK } from "../protocol/states.js";
import { textOrEmpty } from "../protocol/values.js";
import { noRedaction, type RedactFn } from "../text/redact.js";
import { type AdmittedSession, admitSession, displayId } from "./admitSession.js";
import { type CatalogueClient, readPass } from "./catalogueReader.js";
import { type ErrorInfo, toErrorInfo } from "./errorInfo.js";
import { sanitizeRecord } from "./sanitizeRecord.js";

/**
 * The session catalogue: the one map from a session's id to its admitted record, filled by the
 * one reader of the list endpoints (catalogueReader.ts). A pass reads every page once (cursor
 * or offset paging, through the one paging loop, walkSessionPages), always asking for destroyed and error sessions
 * (`include_destroyed`, asked once for everyone); a record read on its own (a pane opened on
 * a session) and a stream's news go into the same map. The list, the fleet, the attention
 * queue, panes, notifications and the headless commands select from it: the filter text, the
 * state filter, the sort and "hide failed and destroyed" are views over it (the pure
 * deriveVisibleSessions), never second reads.
 */

export type SessionSortKey = "updated" | "created" | "id" | "state" | "title";
export type SortDirection = "asc" | "desc";

export interface SessionsState {
  /** Every admitted record (admitSession, src/store/admitSession.ts), keyed by its raw id. */
  readonly byId: Readonly<Record<string, AdmittedSession>>;
  /**
   * The records the list endpoint gave, in its order: the same objects as in byId (a view of
   * the map for the list and the fleet, never a second copy).
   */
  readonly items: readonly AdmittedSession[];
  /** The last pass could not read every page (see partialReason). */
  readonly hasMore: boolean;
  /** Why the last pass stopped before the last page; null when it read them all. */
  readonly partialReason: string | null;
  /** Sessions in all, when the service says (the documented `total`). */
  readonly total: number | null;
  /** The first page of a load in flight. */
  readonly loading: boolean;
  /** The pages past the first of a load in flight (the first page is shown meanwhile). */
  readonly loadingMore: boolean;
  readonly error: ErrorInfo | null;
  /** When the list was last read (a load's first page, then its end; a live refresh). */
  readonly loadedAt: number | null;
  /** A live refresh in flight (the list stays as it is meanwhile). */
  readonly refreshing: boolean;
  /** The last live refresh failed: the list shown is as of loadedAt. */
  readonly refreshError: ErrorInfo | null;
  readonly filterText: string;
  /** Only sessions in this state; null for all. */
  readonly stateFilter: string | null;
  /** The views show destroyed and error sessions too (the catalogue always holds them). */
  readonly includeDestroyed: boolean;
  /**
   * The sessions the last read listed as destroyed or failed: what "hide failed and
   * destroyed" hides. Decided when the list is read, so a row that fails while shown stays
   * (marked) until the next read instead of vanishing under the cursor.
   */
  readonly hiddenIds: ReadonlySet<string>;
  readonly sortKey: SessionSortKey;
  readonly sortDir: SortDirection;

  /** Read the list from the start: its first page is shown at once, the others follow. */
  load(): Promise<void>;
  /** The same as load (Ctrl-R). */
  refresh(): Promise<void>;
  /**
   * Read every page again without clearing the list (the live refresh): records are replaced
   * where they changed (an unchanged record keeps its identity), sessions gone from the
   * service go, new ones come in, the view settings stay. Fields a stream patched after the
   * refresh began are kept over the pages. Resolves to false when it did not run or was
   * superseded (a load meanwhile). Never throws: a failure is refreshError.
   */
  refreshLive(): Promise<boolean>;
  setFilterText(text: string): void;
  setStateFilter(state: string | null): void;
  /** Show destroyed and error sessions, or hide them: a view, nothing is read again. */
  setIncludeDestroyed(include: boolean): void;
  /** Sort by key; choosing the current key again flips the direction. */
  setSort(key: SessionSortKey, dir?: SortDirection): void;
  /** Merge fields into one known record (a live state_changed, for example). */
  patchSession(sessionId: string, patch: Partial<Session>): void;
  /**
   * A session this client just made (a launch): admitted and put at the head of the list at
   * once, before the list is read again (which then keeps it, as the service lists it).
   */
  addSession(session: Session): void;
  /**
   * Read one record again from the service (a pane opened on it, so what it shows is
   * current before its first event; a stream that may have lost events) and keep it in the
   * map. Resolves to the sanitized record, or null when it could not be read (what was there
   * stays; the pane's stream reports its own). Never throws.
   */
  refreshSession(sessionId: string): Promise<AdmittedSession | null>;
}

export type SessionsStore = StoreApi<SessionsState>;

export interface SessionsStoreOptions {
  /** Page size asked of the service. Default 100 (the interface's own example). */
  pageSize?: number;
  /** Most pages one pass reads (100 sessions each by default). Default 50. */
  maxPages?: number;
  now?: () => number;
  /** Hides the user's key in whatever the service sent (see src/text/redact.ts). */
  redact?: RedactFn;
  /** The views show destroyed and error sessions from the start. Default false. */
  includeDestroyed?: boolean;
  /** Told of a read that failed, as thrown (a headless command exits with its code). */
  onReadError?: (e: unknown) => void;
}

/** Most pages one pass reads. */
const MAX_PAGES = 50;

export function createSessionsStore(
  client: CatalogueClient,
  opts: SessionsStoreOptions = {},
): SessionsStore {
  const pageSize = opts.pageSize ?? 100;
  const maxPages = opts.maxPages ?? MAX_PAGES;
  const now = opts.now ?? Date.now;
  const redact = opts.redact ?? noRedaction;

  let generation = 0;
  let inflight: AbortController | null = null;
  /** What a stream patched into a record, and when (a live refresh keeps what is newer). */
  const patched: Patched = new Map();

  /** One pass over every page, destroyed and error sessions always asked for. */
  const readPages = (
    signal: AbortSignal,
    onPage?: (soFar: AdmittedSession[], total: number | null) => void,
  ) =>
    readPass(
      client,
      { limit: pageSize, includeDestroyed: true },
      { maxPages, redact, signal },
      onPage,
    );

  return createStore<SessionsState>()((set, get) => {
    /** The listed records become the list (see mergeListed); returns them. */
    function commitListed(
      listed: readonly AdmittedSession[],
      since: number | null,
    ): AdmittedSession[] {
      const next = mergeListed(get(), listed, since, patched);
      set(next);
      return next.items;
    }

    async function load(): Promise<void> {
      inflight?.abort();
      const ctl = new AbortController();
      inflight = ctl;
      const gen = ++generation;
      set({ loading: true, loadingMore: false, error: null });
      try {
        // Each page is drawn as it comes (the first at once), the count saying how many are
        // still to come: a list of thousands read under the request budget takes minutes.
        const { got, end, total } = await readPages(ctl.signal, (soFar, t) => {
          if (gen !== generation) return;
          commitListed(soFar, null);
          set({ total: t, loading: false, loadingMore: true, loadedAt: now(), refreshError: null });
        });
        if (gen !== generation) return;
        commitListed(got, null);
        patched.clear();
        const cut = cutBy(end);
        set({
          ...cut,
          total: total ?? get().total,
          loading: false,
          loadingMore: false,
          loadedAt: now(),
          refreshError: null,
          error: incompleteError(cut.partialReason, got.length),
        });
      } catch (e) {
        if (gen !== generation) return;
        opts.onReadError?.(e);
        set({ loading: false, loadingMore: false, error: toErrorInfo(e, redact) });
      } finally {
        if (inflight === ctl) inflight = null;
      }
    }

    return {
      byId: {},
      items: [],
      hasMore: false,
      partialReason: null,
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
      hiddenIds: new Set(),
      sortKey: "updated",
      sortDir: "desc",

      load,
      refresh: load,

      async refreshLive() {
        const s = get();
        if (s.loading || s.loadingMore || s.refreshing) return false;
        if (s.loadedAt === null) {
          await load();
          return get().error === null;
        }
        const ctl = new AbortController();
        inflight = ctl;
        const gen = generation;
        const started = now();
        set({ refreshing: true });
        try {
          const { got, end, total } = await readPages(ctl.signal);
          if (gen !== generation) {
            set({ refreshing: false });
            return false;
          }
          commitListed(got, started);
          patched.clear();
          set({
            ...cutBy(end),
            total: total ?? get().total,
            loadedAt: now(),
            refreshing: false,
            refreshError: null,
          });
          return true;
        } catch (e) {
          if (gen !== generation) return false;
          opts.onReadError?.(e);
          set({ refreshing: false, refreshError: toErrorInfo(e, redact) });
          return false;
        } finally {
          if (inflight === ctl) inflight = null;
        }
      },

      ...viewActions(set, get),

      ...recordActions(client, set, get, { redact, now, patched }),
    };
  });
}
/**
 * The listed records become `listed`: the map keeps the records read on their own that no
 * page holds, an unchanged record keeps its identity, and a field a stream patched since
 * `since` is kept over the page's.
 */
function mergeListed(
  s: Pick<SessionsState, "items" | "byId">,
  listed: readonly AdmittedSession[],
  since: number | null,
  patched: ReadonlyMap<string, { at: number; patch: Partial<Session> }>,
): Pick<SessionsState, "byId" | "items" | "hiddenIds"> & { items: AdmittedSession[] } {
  const wasListed = new Set(s.items.map((x) => x.session_id));
  const byId: Record<string, AdmittedSession> = {};
  for (const [id, x] of Object.entries(s.byId)) if (!wasListed.has(id)) byId[id] = x;
  const items = listed.map((fresh) => {
    const p = since === null ? undefined : patched.get(fresh.session_id);
    const merged = p && since !== null && p.at >= since ? { ...fresh, ...p.patch } : fresh;
    const old = s.byId[fresh.session_id];
    const kept = old !== undefined && sameRecord(old, merged) ? old : merged;
    byId[fresh.session_id] = kept;
    return kept;
  });
  const hiddenIds = new Set<string>();
  for (const x of items) if (hiddenUnlessAsked(field(x, "state"))) hiddenIds.add(x.session_id);
  return { byId, items, hiddenIds };
}

/** One record into the map (and into the list's order when the list holds it). */
function withRecord(
  s: Pick<SessionsState, "items" | "byId">,
  rec: AdmittedSession,
): Partial<SessionsState> {
  const id = rec.session_id;
  const byId = { ...s.byId, [id]: rec };
  const i = s.items.findIndex((x) => x.session_id === id);
  if (i < 0) return { byId };
  const items = s.items.slice();
  items[i] = rec;
  return { byId, items };
}

function cutBy(end: PagingEnd): Pick<SessionsState, "hasMore" | "partialReason"> {
  return end.complete
    ? { hasMore: false, partialReason: null }
    : { hasMore: true, partialReason: end.reason };
}

/** A load that could not read every page says so, with the way out. */
function incompleteError(partialReason: string | null, count: number): ErrorInfo | null {
  if (partialReason === null) return null;
  return {
    message: `The list may be incomplete: ${partialReason} after ${count} sessions`,
    hint: "Refresh (Ctrl-R) to start over from the first page.",
    code: "incomplete",
    requiredScope: null,
  };
}

type SetSessions = StoreApi<SessionsState>["setState"];

/** What streams patched into records, and when (a live refresh keeps what is newer). */
type Patched = Map<string, { at: number; patch: Partial<Session> }>;

/** One record at a time into the map: a stream's news, a record read on its own. */
function recordActions(
  client: CatalogueClient,
  set: SetSessions,
  get: () => SessionsState,
  o: { redact: RedactFn; now: () => number; patched: Patched },
): Pick<SessionsState, "patchSession" | "refreshSession" | "addSession"> {
  const put = (rec: AdmittedSession) => set(withRecord(get(), rec));
  return {
    addSession(session) {
      const rec = admitSession(session, o.redact);
      const s = get();
      const known = s.byId[rec.session_id];
      if (known !== undefined) return put({ ...known, ...rec });
      set({ byId: { ...s.byId, [rec.session_id]: rec }, items: [rec, ...s.items] });
    },

    patchSession(sessionId, patch) {
      const current = get().byId[sessionId];
      if (current === undefined) return;
      const clean = sanitizeRecord(patch, o.redact);
      const next = { ...current, ...clean, session_id: current.session_id };
      const before = o.patched.get(sessionId)?.patch;
      o.patched.set(sessionId, { at: o.now(), patch: { ...before, ...clean } });
      put(next);
    },

    async refreshSession(sessionId) {
      if (!client.getSession) return null;
      let fresh: AdmittedSession;
      try {
        fresh = admitSession(await client.getSession(sessionId), o.redact);
      } catch {
        return null;
      }
      // Another session's record under this id is not this session's.
      if (fresh.session_id !== sessionId) return null;
      const current = get().byId[sessionId];
      // A list row may carry fields the single record leaves out: they stay.
      put(current !== undefined ? { ...current, ...fresh } : fresh);
      return fresh;
    },
  };
}

/** What the list shows (filters, sort): views over the catalogue, never a second read. */
function viewActions(
  set: SetSessions,
  get: () => SessionsState,
): Pick<SessionsState, "setFilterText" | "setStateFilter" | "setIncludeDestroyed" | "setSort"> {
  return {
    setFilterText(text) {
      if (text !== get().filterText) set({ filterText: text });
    },

    setStateFilter(state) {
      if (state !== get().stateFilter) set({ stateFilter: state });
    },

    setIncludeDestroyed(include) {
      if (include === get().includeDestroyed) return;
      // A state filter for a state the view no longer shows would show nothing.
      const filter = get().stateFilter;
      set({
        includeDestroyed: include,
        ...(!include && hiddenUnlessAsked(filter) ? { stateFilter: null } : {}),
      });
    },

    setSort(key, dir) {
      const s = get();
      const nextDir =
        dir ?? (key === s.sortKey ? (s.sortDir === "asc" ? "desc" : "asc") : defaultDir(key));
      set({ sortKey: key, sortDir: nextDir });
    },
  };
}

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
  return textOrEmpty((s as Record<string, unknown>)[key]);
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

/**
 * What a session is sorted by, read once per session and sort (not once per comparison: a
 * time read from its record costs a date parse, and 2,000 rows take some 22,000 comparisons).
 */
interface SortKey {
  num: number;
  text: string;
}

function sortKeyOf(s: Session, key: SessionSortKey): SortKey {
  switch (key) {
    case "updated":
      return { num: timeOf(s, updatedAt, createdAt), text: "" };
    case "created":
      return { num: timeOf(s, createdAt, updatedAt), text: "" };
    case "state":
      return { num: STATE_RANK[field(s, "state")] ?? 9, text: field(s, "state") };
    case "title":
      return { num: 0, text: sessionName(s) ?? "" };
    case "id":
      return { num: 0, text: "" };
  }
}

/**
 * Text in the default locale's order, as `localeCompare` without arguments gives it. The
 * collator is made on the first comparison of two different texts: making it initializes
 * ICU's collation (about 8 ms), which a list sorted by time never needs.
 */
let collator: Intl.Collator | null = null;
function compareText(a: string, b: string): number {
  if (a === b) return 0;
  collator ??= new Intl.Collator();
  return collator.compare(a, b);
}

function timeOf(s: Session, primary: typeof updatedAt, fallback: typeof updatedAt): number {
  return primary(s) ?? fallback(s) ?? 0;
}

export type VisibleInputs<T extends Session = AdmittedSession> = Pick<
  SessionsState,
  "filterText" | "stateFilter" | "sortKey" | "sortDir"
> & {
  readonly items: readonly T[];
  /** Destroyed and error sessions shown too; absent: shown. */
  readonly includeDestroyed?: boolean;
  /** What "hide failed and destroyed" hides (SessionsState.hiddenIds). */
  readonly hiddenIds?: ReadonlySet<string>;
};

/**
 * Filter and sort, pure: "hide failed and destroyed" too (a state filter naming one of them
 * shows it). Ties (and the "id" key) order by session id, so order is stable.
 */
export function deriveVisibleSessions<T extends Session>(inp: VisibleInputs<T>): T[] {
  const hidden = viewHides(inp);
  const out = inp.items.filter(
    (s) =>
      (hidden === undefined || !hidden.has(s.session_id)) &&
      (inp.stateFilter === null || field(s, "state") === inp.stateFilter) &&
      matchesFilter(s, inp.filterText),
  );
  const sign = inp.sortDir === "asc" ? 1 : -1;
  const keyed = out.map((s) => ({ s, k: sortKeyOf(s, inp.sortKey) }));
  keyed.sort(
    (a, b) =>
      sign *
      (a.k.num - b.k.num ||
        compareText(a.k.text, b.k.text) ||
        compareIds(a.s.session_id, b.s.session_id)),
  );
  return keyed.map((x) => x.s);
}

/**
 * What the view hides as destroyed or error: the sessions that were in one of those states
 * when the list was read, unless the view shows them or a state filter picks the rows. The
 * one decision the rows (deriveVisibleSessions) and the note that says so (hiddenFact) read.
 */
function viewHides(
  inp: Pick<VisibleInputs<Session>, "includeDestroyed" | "hiddenIds" | "stateFilter">,
): ReadonlySet<string> | undefined {
  return inp.includeDestroyed === false && inp.stateFilter === null ? inp.hiddenIds : undefined;
}

/**
 * What the view's note about destroyed and error sessions says, from the view's own decision:
 * null when a state filter picks the rows (the toggle changes nothing then), else whether it
 * shows them, and while it hides them how many it hides and how many rows turned destroyed or
 * error since the list was read (they keep their rows until the next reading).
 */
export function hiddenFact(
  s: Pick<SessionsState, "items" | "includeDestroyed" | "hiddenIds" | "stateFilter">,
): { shown: true } | { shown: false; hidden: number; turned: number } | null {
  if (s.stateFilter !== null) return null;
  if (s.includeDestroyed) return { shown: true };
  const hidden = viewHides(s) ?? new Set<string>();
  let turned = 0;
  for (const x of s.items) {
    if (!hidden.has(x.session_id) && hiddenUnlessAsked(field(x, "state"))) turned++;
  }
  return { shown: false, hidden: hidden.size, turned };
}

/** What a list view shows about the list as a whole (counts, loading, filter, sort): the session list and the fleet view alike. */
export function selectListMeta(s: SessionsState) {
  return {
    /** The sessions the view may show: destroyed and error ones only when it shows them. */
    total: s.items.length - (viewHides(s)?.size ?? 0),
    /** The service's own count, when the catalogue could not read every page. */
    serverTotal: s.hasMore ? s.total : null,
    loading: s.loading,
    loadingMore: s.loadingMore,
    /** While the pages are read: how many sessions the service counts that are not read yet. */
    toCome: s.loadingMore && s.total !== null ? Math.max(0, s.total - s.items.length) : null,
    hasMore: s.hasMore,
    error: s.error,
    filterText: s.filterText,
    stateFilter: s.stateFilter,
    sortKey: s.sortKey,
    sortDir: s.sortDir,
  };
}

/**
 * The last view derived from each items array (the catalogue's, immutable): a memo that
 * nothing outlives, so two catalogues (two clients) never share or thrash one slot.
 */
const lastViews = new WeakMap<
  readonly Session[],
  { inputs: VisibleInputs; output: AdmittedSession[] }
>();

/**
 * deriveVisibleSessions memoised on its inputs, so it can be a zustand selector: the
 * same array comes back until the items or a view setting change.
 */
export function selectVisibleSessions(s: VisibleInputs): AdmittedSession[] {
  const last = lastViews.get(s.items);
  const l = last?.inputs;
  if (
    last !== undefined &&
    l !== undefined &&
    l !== null &&
    l.items === s.items &&
    l.filterText === s.filterText &&
    l.stateFilter === s.stateFilter &&
    l.sortKey === s.sortKey &&
    l.sortDir === s.sortDir &&
    l.includeDestroyed === s.includeDestroyed &&
    l.hiddenIds === s.hiddenIds
  ) {
    return last.output;
  }
  const output = deriveVisibleSessions(s);
  const inputs: VisibleInputs = {
    items: s.items,
    filterText: s.filterText,
    stateFilter: s.stateFilter,
    sortKey: s.sortKey,
    sortDir: s.sortDir,
    ...(s.includeDestroyed !== undefined ? { includeDestroyed: s.includeDestroyed } : {}),
    ...(s.hiddenIds !== undefined ? { hiddenIds: s.hiddenIds } : {}),
  };
  lastViews.set(s.items, { inputs, output });
  return output;
}

/** The states present in the loaded items, for the state filter's choices. */
export function knownStates(items: readonly Session[]): string[] {
  const set = new Set<string>();
  for (const s of items) {
    const st = field(s, "state");
    if (st) set.add(st);
  }
  return [...set].sort((a, b) => (STATE_RANK[a] ?? 9) - (STATE_RANK[b] ?? 9) || compareText(a, b));
}

/** A session's record, listed or read on its own. */
export function selectRecord(
  s: Pick<SessionsState, "byId">,
  sessionId: string,
): AdmittedSession | undefined {
  return s.byId[sessionId];
}
