import type { ApiClient, ListSessionsParams } from "../client/apiClient.js";
import { type PagingEnd, walkSessionPages } from "../client/paging.js";
import { noRedaction, type RedactFn } from "../text/redact.js";
import { type AdmittedSession, admitSession } from "./admitSession.js";

/**
 * The one reader of the list endpoints: pages of GET /api/sessions through the one paging loop
 * (walkSessionPages: cursor or offset paging, the loop guard), each record admitted once
 * (admitSession: sanitized, the user's key redacted, the id checked) as it arrives. The
 * catalogue (sessionsStore.ts) folds a pass of it into its map; the headless `sessions` prints
 * its pages as they come, so a listing of any length holds one page at a time.
 */

/** What the catalogue asks of a client: pages of the list, and one record. */
export type CatalogueClient = Pick<ApiClient, "listSessions"> &
  Partial<Pick<ApiClient, "getSession">>;

/** What is asked of the service: the filters it applies, the page size, destroyed ones too. */
export type CatalogueQuery = Omit<ListSessionsParams, "page">;

export interface CataloguePage {
  /** The page's records, admitted, in the service's order. */
  records: AdmittedSession[];
  /** Sessions in all, when the service says (the documented `total`). */
  total: number | null;
  /** The service says there are more past this page. */
  hasMore: boolean;
}

export interface ReadOptions {
  /** Most pages read. */
  maxPages?: number;
  redact?: RedactFn;
  signal?: AbortSignal;
}

/** Every page of the list the query selects, admitted; the return value says how it ended. */
export async function* readCatalogue(
  client: Pick<CatalogueClient, "listSessions">,
  query: CatalogueQuery,
  opts: ReadOptions = {},
): AsyncGenerator<CataloguePage, PagingEnd, undefined> {
  const redact = opts.redact ?? noRedaction;
  const walk = walkSessionPages(
    (p: ListSessionsParams, sig?: AbortSignal) => client.listSessions(p, sig),
    query,
    opts.maxPages !== undefined ? { maxPages: opts.maxPages } : {},
    opts.signal,
  );
  try {
    for (;;) {
      const r = await walk.next();
      if (r.done) return r.value;
      yield {
        records: r.value.sessions.map((x) => admitSession(x, redact)),
        total: r.value.total,
        hasMore: r.value.hasMore,
      };
    }
  } finally {
    // A reader that stops early (one page, a closed stdout) lets the walk go too.
    await walk.return({ complete: true, pages: 0 });
  }
}

/**
 * One whole pass for the catalogue. `onPage` sees the records read so far after each page
 * that has more after it (a load shows the first at once, then each as it comes). Resolves to the records in the service's order (a session a shifting list showed
 * twice keeps its first place, its newer fields) and how the walk ended.
 */
export async function readPass(
  client: Pick<CatalogueClient, "listSessions">,
  query: CatalogueQuery,
  opts: ReadOptions,
  onPage?: (soFar: AdmittedSession[], total: number | null) => void,
): Promise<{ got: AdmittedSession[]; end: PagingEnd; total: number | null }> {
  const pages = readCatalogue(client, query, opts);
  const got = new Map<string, AdmittedSession>();
  let total: number | null = null;
  for (;;) {
    const r = await pages.next();
    if (r.done) return { got: [...got.values()], end: r.value, total };
    for (const x of r.value.records) got.set(x.session_id, x);
    total = r.value.total ?? total;
    if (r.value.hasMore) onPage?.([...got.values()], total);
  }
}
