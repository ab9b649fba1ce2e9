import { createStore, type StoreApi } from "zustand/vanilla";
import type { RecordedEvent, TextCleaner } from "./recordFormat.js";

/**
 * What the stream controller needs of a journal: the events of a session seen in earlier
 * runs, and a cheap way to hand it every item received. The file-backed journal lives with
 * the CLI (src/cli/journal); the store knows only this.
 */

export interface JournalLoad {
  /** Oldest first; heartbeats included (they tell until when someone watched). */
  records: RecordedEvent[];
  /** What could not be read and was skipped, one line each (shown in the pane). */
  warnings: string[];
  /** Until when the session was last watched (the newest line's time), or null. */
  watchedUntil: number | null;
}

export interface SessionJournal {
  /** Never rejects: a journal that cannot be read loads empty and says why in `status`. */
  load(sessionId: string): Promise<JournalLoad>;
  /**
   * Every item received, on the hot path: this only queues (bounded); cleaning and writing
   * happen later, in batches, off the event path.
   */
  record(
    sessionId: string,
    event: string | undefined,
    data: string,
    id: string | undefined,
    at: number,
  ): void;
  /** The session's pane closed: write what is queued, and that it was watched until now. */
  closeSession(sessionId: string): void;
  /** How the journal cleans text; also used to spot repeats of what it stored. */
  readonly clean: TextCleaner;
  readonly status: JournalStatusStore;
}

export interface JournalStatus {
  /** "on": writing; "off": turned off by the user; "failed": it could not write or read. */
  state: "on" | "off" | "failed";
  /** Where the journal lives; when it failed, the path it could not write. */
  dir: string | null;
  /** Why it is not on (one short line, e.g. "no space left on device (ENOSPC)"). */
  reason: string | null;
}

export type JournalStatusStore = StoreApi<JournalStatus>;

export function createJournalStatus(initial: JournalStatus): JournalStatusStore {
  return createStore<JournalStatus>()(() => initial);
}
