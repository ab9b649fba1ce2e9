import { sameEventKey } from "../../protocol/sameEvent.js";
import {
  parseRecordLine,
  type RecordedEvent,
  recordContentKey,
  recordTime,
} from "./recordFormat.js";

/**
 * A recording to replay: the events of one or more NDJSON files (journal, `watch --json`,
 * the pane's `e` export), each with its session and a time, in the order they happened.
 */

export interface ReplayEvent {
  sessionId: string;
  event: string;
  id: string | null;
  data: string;
  /** When it was received (ms since epoch). */
  at: number;
}

export interface Recording {
  /** Every event, oldest first (ties keep file order). */
  events: ReplayEvent[];
  /** Sessions in the order they first appear. */
  sessions: string[];
  start: number;
  end: number;
  /** What was skipped, one line each. */
  warnings: string[];
}

export interface RecordingFile {
  /** The file's name: the session of lines that do not say theirs. */
  name: string;
  text: string;
}

/** A recording with no times at all is laid out one second apart from this moment. */
const UNTIMED_BASE = Date.UTC(2000, 0, 1);

const EXPORT_NAME = /^agent-sessions-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z(?:-\d+)?\.ndjson$/;
const JOURNAL_NAME = /^(ses_[A-Za-z0-9_-]+?)(?:\.1)?\.ndjson$/;

/** The session a file's name stands for: an export's or a journal file's. */
export function sessionOfFileName(name: string): string | null {
  const base = name.split(/[\\/]/).pop() ?? name;
  return EXPORT_NAME.exec(base)?.[1] ?? JOURNAL_NAME.exec(base)?.[1] ?? null;
}

export function buildRecording(
  files: readonly RecordingFile[],
  opts: { session?: string } = {},
): Recording {
  const warnings: string[] = [];
  const all: { e: ReplayEvent; order: number }[] = [];
  let order = 0;
  for (const f of files) {
    const fallback = opts.session ?? sessionOfFileName(f.name) ?? "ses_replay";
    const fromFile: { r: RecordedEvent; at: number | null }[] = [];
    let bad = 0;
    for (const line of f.text.split("\n")) {
      const p = parseRecordLine(line);
      if (p.kind === "bad") bad++;
      if (p.kind === "event") fromFile.push({ r: p.record, at: recordTime(p.record) });
    }
    if (bad > 0) warnings.push(`${f.name}: ${bad} unreadable line${bad === 1 ? "" : "s"} skipped`);
    // A line without a time takes the one before it (or, first in its file, the next one).
    let known: number | null = fromFile.find((x) => x.at !== null)?.at ?? null;
    fromFile.forEach((x, i) => {
      if (x.at !== null) known = x.at;
      const at = known ?? UNTIMED_BASE + i * 1000;
      all.push({
        e: {
          sessionId: opts.session ?? x.r.sessionId ?? fallback,
          event: x.r.event,
          id: x.r.id,
          data: x.r.data,
          at,
        },
        order: order++,
      });
    });
  }
  all.sort((a, b) => a.e.at - b.e.at || a.order - b.order);
  // Two files may hold the same events (a journal and an export of the same pane): an event
  // with an id is played once when another has the same session, id, name and data (see
  // protocol/sameEvent.ts). The same id with other data is another event (a server that
  // restarted reuses its ids), and is played.
  const seenEvents = new Set<string>();
  const events: ReplayEvent[] = [];
  let repeats = 0;
  for (const { e } of all) {
    if (e.id !== null) {
      const key = `${e.sessionId}\n${sameEventKey(e.event, e.id, recordContentKey(e))}`;
      if (seenEvents.has(key)) {
        repeats++;
        continue;
      }
      seenEvents.add(key);
    }
    events.push(e);
  }
  if (repeats > 0) {
    warnings.push(
      `${repeats} event${repeats === 1 ? "" : "s"} found twice (same session, id and data), played once`,
    );
  }
  const sessions: string[] = [];
  const seen = new Set<string>();
  for (const e of events) {
    if (!seen.has(e.sessionId)) {
      seen.add(e.sessionId);
      sessions.push(e.sessionId);
    }
  }
  const start = events[0]?.at ?? UNTIMED_BASE;
  const end = events.at(-1)?.at ?? start;
  return { events, sessions, start, end, warnings };
}
