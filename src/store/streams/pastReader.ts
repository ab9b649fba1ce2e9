import type { SessionHistory } from "../../protocol/history.js";
import { cutText, sanitizeLine } from "../../text/sanitize.js";
import { type LogSequence, logSequence } from "../history/historyOverlap.js";
import type { SessionJournal } from "../history/journal.js";
import { JournalOverlap } from "../history/journalOverlap.js";
import type { LiveStream } from "./liveStream.js";
import { dividerText, showHistory, showJournal } from "./pastInPane.js";
import type { StreamsStore } from "./streamsStore.js";

/**
 * A pane's past, read before its live events: the journal, then the server's history, then
 * live; each step checks the pane is still wanted. With a history endpoint the stream opens
 * first and holds what it sends while the history is read (from when it is live, or a few
 * seconds at most), so an event that happens between reading the history and the stream's
 * start is in one of them: what the history already holds of it is dropped
 * (historyOverlap.ts), the rest follows the history. A history answered after the stream sent
 * its items, holding more after them, is waited on (HeldItems.settle) until the stream sends
 * those too, so nothing shows twice.
 */

export interface PastOptions {
  store: StreamsStore;
  /** Events seen in earlier runs, shown first. */
  journal?: SessionJournal;
  /** Reads a session's documented history; null when the server has no such endpoint. */
  fetchHistory?: (sessionId: string) => Promise<SessionHistory | null>;
  /** False when the key is known to lack sessions:prompt (no stream; the record followed). */
  liveAllowed?: () => boolean;
  /** Most entries of the server's history shown (default 5000). */
  history?: number;
  onItem?: (sessionId: string, event: string | undefined, data: string, at: number) => void;
  now?: () => number;
}

/** What reading the past asks of whoever keeps the session's streams. */
export interface PastSteps {
  /** Still wanted: the pane was neither closed nor opened again meanwhile. */
  wanted(): boolean;
  /** Opens the session's stream holding what it sends. */
  hold(): LiveStream;
  /** The past is read: the session is no longer loading. */
  done(): void;
  /** Opens the stream (or follows the record), reading its first burst as `streamHistory`. */
  goLive(overlap: JournalOverlap | null, fromJournal: number, streamHistory: boolean): void;
}

/** Timeline entries a history request leaves free for the gap marker and the divider. */
const MARKER_ROOM = 2;

/** History entries shown when no scrollback is given (the store's default capacity). */
const DEFAULT_HISTORY_ENTRIES = 5000;

interface JournalShown {
  shown: number;
  overlap: JournalOverlap | null;
  log: LogSequence | null;
}

/** Reads the journal and the history (the history only when `past`), then goes live. */
export async function readPast(
  opts: PastOptions,
  sessionId: string,
  past: boolean,
  steps: PastSteps,
): Promise<void> {
  const j = await readJournal(opts, sessionId, steps);
  if (j === null) return;
  // Live only (a fleet row): the journal is on disk and costs no request; the history does.
  if (!(past && opts.fetchHistory)) {
    if (!steps.wanted()) return;
    steps.done();
    steps.goLive(j.overlap, j.shown, opts.journal !== undefined || opts.history !== undefined);
    return;
  }
  const now = () => (opts.now ?? Date.now)();
  // Known to lack sessions:prompt: no stream to hold (the record is followed after).
  const held = opts.liveAllowed?.() === false ? null : steps.hold();
  if (held) await held.ready;
  if (!steps.wanted()) return;
  const readAt = now();
  const liveBefore = held?.live() ?? false;
  let history: SessionHistory | null = null;
  try {
    history = await opts.fetchHistory(sessionId);
  } catch (e) {
    if (!steps.wanted()) return;
    const why = failure(e);
    opts.store
      .getState()
      .pushMarker(
        sessionId,
        "notice",
        `The session's history could not be read (${why}): live events only.`,
      );
  }
  if (!steps.wanted()) return;
  if (history === null) {
    steps.done();
    // No history endpoint: a stream that sends recent events on open is read as before.
    const streamHistory = opts.journal !== undefined || opts.history !== undefined;
    if (held)
      held.release({ overlap: j.overlap, fromJournal: j.shown, streamHistory, gapFrom: null });
    else steps.goLive(j.overlap, j.shown, streamHistory);
    return;
  }
  const h = showHistory(opts.store.getState(), sessionId, history, j.log, {
    now: now(),
    journal: opts.journal,
    cap: Math.max(0, (opts.history ?? DEFAULT_HISTORY_ENTRIES) - MARKER_ROOM),
    onItem: opts.onItem,
  });
  // A history answered late may hold more than the stream sent yet: settle waits for it.
  const skipped = held ? await held.settle(h.log) : 0;
  if (!steps.wanted()) return;
  const s = opts.store.getState();
  const lead = opts.liveAllowed?.() === false ? "the record from here" : undefined;
  s.pushMarker(
    sessionId,
    "divider",
    dividerText(j.shown, h.shown, h.repeats, lead, h.older, skipped),
    { ifNotEmpty: true, at: now() },
  );
  s.pushPhase(sessionId, "live");
  // The pane's past is whole: drawn now, not at the next batch.
  s.flushNow();
  steps.done();
  if (held) {
    // Read before the stream was live: what came between may be in neither, unless what the
    // stream sent reached back into the history.
    const gapFrom = liveBefore || skipped > 0 ? null : readAt;
    held.release(
      { overlap: null, fromJournal: j.shown, streamHistory: false, gapFrom },
      { log: h.log, newestAt: h.newestAt },
    );
  } else steps.goLive(null, j.shown, false);
}

/** The journal's events in the pane; null when the pane went meanwhile. */
async function readJournal(
  opts: PastOptions,
  sessionId: string,
  steps: PastSteps,
): Promise<JournalShown | null> {
  const { journal } = opts;
  if (!journal) return { shown: 0, overlap: null, log: null };
  try {
    const load = await journal.load(sessionId);
    if (!steps.wanted()) return null;
    const shown = showJournal(opts.store.getState(), sessionId, load, (opts.now ?? Date.now)());
    const o = new JournalOverlap(load.records, journal.clean);
    return { shown, overlap: o.empty ? null : o, log: logSequence(load.records, journal.clean) };
  } catch (e) {
    // A journal that cannot be read must not hold the pane: it says why and goes on.
    if (!steps.wanted()) return null;
    opts.store
      .getState()
      .pushMarker(
        sessionId,
        "notice",
        `The journal could not be read (${failure(e)}): only what the server sends is shown.`,
      );
    return { shown: 0, overlap: null, log: null };
  }
}

/** Why a read failed, as one short safe line (an error's text may hold anything). */
function failure(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return cutText(sanitizeLine(text), 200) || "no reason given";
}
