import { MALFORMED_RAW_LIMIT } from "../../protocol/events.js";
import { type HistoryItem, historyItem, type SessionHistory } from "../../protocol/history.js";
import { formatTimeSpan } from "../../text/format.js";
import { journalAnchor, type LogSequence, logSequence } from "../history/historyOverlap.js";
import type { JournalLoad, SessionJournal } from "../history/journal.js";
import type { StreamsState } from "./streamsStore.js";

/**
 * What a pane shows of a session's past before its live events: the journal's events with
 * the gap marker after them, then the server's history without what the journal holds. Plain
 * functions of the streams store's state (streamsController.ts calls them when a pane opens).
 */

/** Puts a journal's events in the timeline with the gap marker after them; returns how many. */
export function showJournal(
  s: StreamsState,
  sessionId: string,
  load: JournalLoad,
  now: number,
): number {
  s.pushPhase(sessionId, "journal");
  let shown = 0;
  for (const r of load.records) {
    // A heartbeat only marks that someone watched; an old one must not age the title.
    if (r.event === "heartbeat") continue;
    s.pushItem(sessionId, r.event, r.data, r.id ?? undefined, r.at ?? now);
    shown++;
  }
  for (const w of load.warnings) s.pushMarker(sessionId, "notice", w);
  if (load.watchedUntil !== null && (shown > 0 || load.warnings.length > 0)) {
    s.pushMarker(
      sessionId,
      "unwatched",
      `not watched from ${formatTimeSpan(load.watchedUntil, now)}`,
    );
  }
  s.pushPhase(sessionId, "history");
  return shown;
}

/**
 * The server's history in the timeline as the items live events of the same kind would be:
 * at most the scrollback's worth, the newest, so a huge answer converts no more than that.
 * What the journal shown above already holds is skipped: the history up to where the
 * journal ends (journalAnchor), counted as repeats where the journal has the same entry and
 * as older entries where it does not (a journal cut short, or one that missed them).
 */
export function showHistory(
  s: StreamsState,
  sessionId: string,
  past: SessionHistory,
  journalLog: LogSequence | null,
  o: {
    now: number;
    journal: SessionJournal | undefined;
    cap: number;
    /** Told of each item shown, as the stream's items are (activity, the overlap marks). */
    onItem?:
      | ((sessionId: string, event: string | undefined, data: string, at: number) => void)
      | undefined;
  },
): {
  shown: number;
  repeats: number;
  older: number;
  log: LogSequence;
  /** The time of the history's last entry, when it has one. */
  newestAt: number | null;
} {
  const { now, journal, cap } = o;
  const entries = past.events;
  const first = Math.max(0, entries.length - cap);
  if (first > 0) {
    s.pushMarker(
      sessionId,
      "notice",
      `${first} older entr${first === 1 ? "y" : "ies"} of the session's history not shown (the scrollback holds ${cap})`,
    );
  }
  const items: (HistoryItem & { ok: true })[] = [];
  const bad: { at: number; item: HistoryItem & { ok: false } }[] = [];
  for (let i = first; i < entries.length; i++) {
    const item = historyItem(entries[i]);
    if (item.ok) items.push(item);
    else bad.push({ at: items.length, item });
  }
  const log = logSequence(items, journal?.clean);
  const through = journalLog ? journalAnchor(journalLog, log) : -1;
  const inJournal = new Set(journalLog?.keys ?? []);
  let repeats = 0;
  let older = 0;
  if (through >= 0) {
    log.keys.forEach((k, n) => {
      if ((log.ends[n] as number) > through) return;
      const covered = (log.ends[n] as number) - (n > 0 ? (log.ends[n - 1] as number) : -1);
      if (inJournal.has(k)) repeats += covered;
      else older += covered;
    });
  }
  let shown = 0;
  let b = 0;
  let olderBad = 0;
  const pushBad = (upTo: number) => {
    for (; b < bad.length && (bad[b]?.at ?? 0) <= upTo; b++) {
      const { at, item } = bad[b] as (typeof bad)[number];
      // Before where the journal ends: shown in an earlier run (the journal keeps no
      // malformed entries), out of place here.
      if (at <= through) {
        olderBad++;
        continue;
      }
      s.pushEvent(sessionId, {
        kind: "malformed",
        event: "history",
        id: null,
        raw:
          item.raw.length > MALFORMED_RAW_LIMIT
            ? `${item.raw.slice(0, MALFORMED_RAW_LIMIT)}…`
            : item.raw,
        error: item.error,
      });
      shown++;
    }
  };
  items.forEach((item, i) => {
    pushBad(i);
    if (i <= through) return;
    const at = item.at ?? now;
    journal?.record(sessionId, item.event, item.data, undefined, at);
    s.pushItem(sessionId, item.event, item.data, undefined, at);
    // An event sent while the history was read comes through here (its live copy is dropped
    // as a repeat): it counts for the activity and the overlap marks as a live one does.
    o.onItem?.(sessionId, item.event, item.data, at);
    shown++;
  });
  pushBad(Number.POSITIVE_INFINITY);
  // Items skipped without a log entry of their own (empty words) count with the repeats.
  const skipped = through + 1;
  if (repeats + older < skipped) repeats = skipped - older;
  return { shown, repeats, older: older + olderBad, log, newestAt: items.at(-1)?.at ?? null };
}

/**
 * The divider's words: what is above it, and what was left out (repeats of the journal,
 * older history entries than where the journal ends, live events the history already held).
 */
export function dividerText(
  fromJournal: number,
  fromServer: number,
  repeats: number,
  lead = "live from here",
  older = 0,
  liveRepeats = 0,
): string {
  const above: string[] = [];
  if (fromJournal > 0) above.push(`${fromJournal} from the journal`);
  if (fromServer > 0) above.push(`${fromServer} from the server`);
  if (repeats > 0)
    above.push(`${repeats} repeat${repeats === 1 ? "" : "s"} of the journal skipped`);
  if (older > 0)
    above.push(
      `${older} older entr${older === 1 ? "y" : "ies"} of the history than the journal's end skipped`,
    );
  if (liveRepeats > 0)
    above.push(
      `${liveRepeats} live event${liveRepeats === 1 ? "" : "s"} the history already held skipped`,
    );
  return above.length > 0 ? `${lead} · above: ${above.join(", ")}` : lead;
}
