/**
 * The visibilities the service documents (the list's `visibility` filter takes these). A light
 * module of its own: the command line's definitions check `--visibility` before anything is
 * sent, and must not load the schemas (zod) to do it.
 */
export const VISIBILITIES = ["private", "team"] as const;
