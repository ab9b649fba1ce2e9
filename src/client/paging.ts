import type { PageToken, SessionPage } from "../protocol/resources.js";

/**
 * The bounds of listing sessions page by page, and the one walk over the pages. A module of
 * its own, free of the HTTP code, so the command line can name the bounds in its help and
 * check `--limit` without loading the client.
 */

/** The documented limits of one page. */
export const PAGE_LIMIT = { min: 1, max: 100 } as const;

/** Most pages one walk over the list reads (walkSessionPages) unless told otherwise. */
export const DEFAULT_MAX_PAGES = 1000;

/** How a walk over every page ended. */
export type PagingEnd =
  | { complete: true; pages: number }
  /**
   * Stopped before the last page; the reason says why (a repeated cursor, an offset that does
   * not move, the same page again, more promised without a way to fetch it, the page cap).
   */
  | { complete: false; pages: number; reason: string };

/** One page of the list from where `page` says (the start when absent). */
export type ReadPage<P> = (
  p: P & { page?: PageToken },
  signal?: AbortSignal,
) => Promise<SessionPage>;

export interface WalkOptions {
  /** Stop after this many pages whatever the server says. Default DEFAULT_MAX_PAGES. */
  maxPages?: number;
  /** Where the first page starts (a page token from an earlier page); the start when absent. */
  from?: PageToken;
}

/**
 * Every page of the list until the server says there is no next one (cursor or offset paging
 * alike): the one paging loop of the client, whoever reads the list (the catalogue, the
 * headless `sessions --all`). Stops early after maxPages, when a cursor comes back that was
 * given before, when an offset does not move forward, or when a page holds only the sessions
 * of the page before (a server ignoring the offset): each would loop forever. The return value
 * says whether the listing was complete, so a caller can say so instead of presenting a cut
 * list as whole. Only the current and the previous page's ids are held.
 */
export async function* walkSessionPages<P extends object>(
  read: ReadPage<P>,
  params: P,
  opts: WalkOptions = {},
  signal?: AbortSignal,
): AsyncGenerator<SessionPage, PagingEnd, undefined> {
  const { maxPages = DEFAULT_MAX_PAGES, from } = opts;
  const seen = new Set<string>();
  let page: PageToken | undefined = from;
  let offset = from !== undefined && "offset" in from ? from.offset : 0;
  if (from !== undefined && "cursor" in from) seen.add(from.cursor);
  let previousIds: ReadonlySet<string> = new Set();
  const cut = (pages: number, reason: string): PagingEnd => ({ complete: false, pages, reason });
  for (let n = 1; ; n++) {
    const got = await read({ ...params, ...(page ? { page } : {}) }, signal);
    yield got;
    const ids = new Set<string>();
    for (const s of got.sessions) ids.add(s.session_id);
    let same = n > 1 && ids.size > 0;
    for (const id of ids) {
      if (!same) break;
      same = previousIds.has(id);
    }
    if (same) return cut(n, "the service sent the same page again");
    previousIds = ids;
    const next = got.next;
    if (next === null) {
      return got.hasMore
        ? cut(n, "the service says there are more sessions but gave no way to fetch them")
        : { complete: true, pages: n };
    }
    if ("cursor" in next) {
      if (seen.has(next.cursor)) {
        return cut(n, "the service repeated a page cursor it had already given");
      }
      seen.add(next.cursor);
    } else {
      if (next.offset <= offset) return cut(n, "the service's next offset does not move forward");
      if (got.total !== null && next.offset >= got.total) {
        return cut(
          n,
          `the service says there are more sessions past its own total of ${got.total}`,
        );
      }
      offset = next.offset;
    }
    if (n >= maxPages) return cut(n, `stopped at the limit of ${maxPages} pages`);
    page = next;
  }
}
