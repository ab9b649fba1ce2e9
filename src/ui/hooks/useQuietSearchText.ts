import { useEffect } from "react";
import { type EntrySource, prepareSearch } from "../model/paneView.js";

/** How long a pane's scrollback must stay unchanged before its search text is built ahead. */
export const QUIET_SEARCH_MS = 1000;
/** Below this many entries a first search reads them within a frame: nothing is built ahead. */
const AHEAD_FROM_ENTRIES = 2048;

/**
 * A large scrollback that has stopped growing builds its search text in idle slices (the
 * search box would start it only when opened, and a search typed at once then read what was
 * not built yet in Enter's frame: 215 ms at 100,000 lines in B16). `version` changes whenever
 * the scrollback does; while it keeps changing (a busy stream) nothing is built.
 */
export function useQuietSearchText(buf: EntrySource | undefined, version: number): void {
  // biome-ignore lint/correctness/useExhaustiveDependencies: version marks the scrollback changing: each change restarts the wait
  useEffect(() => {
    if (!buf || buf.size < AHEAD_FROM_ENTRIES) return;
    const t = setTimeout(() => prepareSearch(buf), QUIET_SEARCH_MS);
    return () => clearTimeout(t);
  }, [buf, version]);
}
