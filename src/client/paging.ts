/**
 * The bounds of listing sessions page by page. A module of its own, free of the HTTP code, so
 * the command line can name them in its help and check `--limit` without loading the client.
 */

/** The documented limits of one page. */
export const PAGE_LIMIT = { min: 1, max: 100 } as const;

/** Most pages one walk over the list reads (ApiClient.sessionPages) unless told otherwise. */
export const DEFAULT_MAX_PAGES = 1000;
