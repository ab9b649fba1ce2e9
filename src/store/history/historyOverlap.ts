import { payloadText } from "../../text/payloadText.js";
import type { TextCleaner } from "./recordFormat.js";

/**
 * What a session's documented history repeats of what a pane already has, compared in the
 * log's own terms. The history is the agent's log (protocol/history.ts): its entries are not
 * the events the stream sent (the agent's words come as one `assistant_text` entry where the
 * stream sent them a few words at a time; output, file and state changes carry other fields
 * and no ids), so the same-event rule (protocol/sameEvent.ts) cannot find them. Here both
 * sides are reduced to what a log keeps: the agent's words joined into one entry until
 * something else happens, a prompt of another type by its type and text, output by its text,
 * a file change by its action and path, a state change by its state; text is cleaned as the
 * journal cleans it, its colours and runs of white space ignored. Timestamps and ids are not
 * compared.
 *
 * Two questions are answered with it, both leaning towards showing an entry twice rather
 * than hiding one that was not seen:
 *
 * - journalAnchor: where in the history the journal ends. The newest run of the journal's
 *   last entries found in the history, as long as it can be (ties: the earliest place, so
 *   less is skipped); everything in the history up to it is what the journal showed already.
 *   No run at all: nothing is skipped.
 * - heldOverlap: how many of the stream's first items (held while the history was read) the
 *   history's newest entries already hold: the longest run at the start of those items that
 *   equals the history's end (its first entry may be the end of a longer log entry, when the
 *   stream opened mid-sentence).
 */

export interface LogItem {
  event: string;
  data: string;
}

/** The items as log entries: their keys, and the index of the last item each one covers. */
export interface LogSequence {
  readonly keys: readonly string[];
  readonly ends: readonly number[];
}

const TEXT = "text\n";
const CSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

function norm(text: string): string {
  return text.replace(CSI, "").replace(/\s+/g, " ").trim();
}

/** Fields of a payload that say when, not what: never compared. */
const TIME_FIELDS = new Set(["ts", "timestamp", "created_at", "time", "received_at"]);

function withoutTimes(d: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) if (!TIME_FIELDS.has(k)) out[k] = v;
  return out;
}

/** The agent's own words: joined with their neighbours into one log entry. */
const WORD_TYPES = new Set(["text", "assistant", "assistant_text"]);

/**
 * One item as a log entry: `{text}` for the agent's words (to be joined), `{key}` for
 * anything else, null for what a log does not keep (heartbeats).
 */
export function logKeyOf(
  event: string,
  data: string,
  clean: TextCleaner = (t) => t,
): { text: string } | { key: string } | null {
  if (event === "heartbeat") return null;
  const c = (t: string, sgr = false) => norm(clean(t, sgr));
  let d: unknown;
  try {
    d = JSON.parse(data);
  } catch {
    return { key: `${event}\n!${c(data)}` };
  }
  if (d === null || typeof d !== "object" || Array.isArray(d)) {
    return { key: `${event}\n${c(JSON.stringify(d) ?? "")}` };
  }
  const o = d as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  switch (event) {
    case "prompt_progress": {
      const type = str(o.type) ?? "text";
      const content = str(o.content) ?? str(o.text);
      if (content === null) return { key: `prompt:${type}\n${c(JSON.stringify(withoutTimes(o)))}` };
      if (WORD_TYPES.has(type)) return { text: clean(content, false) };
      return { key: `prompt:${type}\n${c(content)}` };
    }
    case "process_output":
      return { key: `out\n${c(payloadText(o).text, true)}` };
    case "file_changed":
      return { key: `file\n${c(String(o.action ?? ""))}\n${c(String(o.path ?? ""))}` };
    case "state_changed":
      return { key: `state\n${c(String(o.state ?? ""))}` };
    default:
      return { key: `${event}\n${c(JSON.stringify(withoutTimes(o)))}` };
  }
}

/** The items as log entries, the agent's words joined until something else comes. */
export function logSequence(items: readonly LogItem[], clean?: TextCleaner): LogSequence {
  const keys: string[] = [];
  const ends: number[] = [];
  let words: string | null = null;
  let wordsEnd = -1;
  const flush = () => {
    if (words === null) return;
    const text = norm(words);
    words = null;
    // Empty words join the entry that follows.
    if (text === "") return;
    keys.push(`${TEXT}${text}`);
    ends.push(wordsEnd);
  };
  items.forEach((item, i) => {
    const k = logKeyOf(item.event, item.data, clean);
    if (k === null) return;
    if ("text" in k) {
      words = (words ?? "") + k.text;
      wordsEnd = i;
      return;
    }
    flush();
    keys.push(k.key);
    ends.push(i);
  });
  flush();
  return { keys, ends };
}

/** How far back from its end the journal is looked for in the history. */
const JOURNAL_SLACK = 8;
/** Longest run compared: enough to tell one place from another. */
const MAX_RUN = 64;

/**
 * The index of the last history item the journal already showed (see the module comment), or
 * -1 when the journal's end is not found in the history.
 */
export function journalAnchor(journal: LogSequence, history: LogSequence): number {
  const j = journal.keys;
  const h = history.keys;
  if (j.length === 0 || h.length === 0) return -1;
  const at = new Map<string, number[]>();
  h.forEach((k, p) => {
    const list = at.get(k);
    if (list) list.push(p);
    else at.set(k, [p]);
  });
  let best = { run: 0, e: -1, p: -1 };
  for (let e = j.length - 1; e >= Math.max(0, j.length - 1 - JOURNAL_SLACK); e--) {
    for (const p of at.get(j[e] as string) ?? []) {
      let run = 1;
      while (run < MAX_RUN && e - run >= 0 && p - run >= 0 && j[e - run] === h[p - run]) run++;
      const better =
        run > best.run ||
        (run === best.run && e > best.e) ||
        (run === best.run && e === best.e && p < best.p);
      if (better) best = { run, e, p };
    }
  }
  return best.run > 0 ? (history.ends[best.p] as number) : -1;
}

/**
 * How many of the held items (from their start) the history's end already holds: the items
 * of the longest run of held entries equal to the history's last ones (see the module
 * comment); 0 when none.
 */
export function heldOverlap(history: LogSequence, held: LogSequence): number {
  const h = history.keys;
  const d = held.keys;
  for (let k = Math.min(h.length, d.length); k >= 1; k--) {
    let same = true;
    for (let i = 0; i < k && same; i++) {
      const hk = h[h.length - k + i] as string;
      const dk = d[i] as string;
      if (hk === dk) continue;
      // The stream may have opened in the middle of the agent's words: its first entry is the
      // end of the history's.
      same =
        i === 0 &&
        hk.startsWith(TEXT) &&
        dk.startsWith(TEXT) &&
        dk.length > TEXT.length &&
        hk.endsWith(dk.slice(TEXT.length));
    }
    if (same) return (held.ends[k - 1] as number) + 1;
  }
  return 0;
}
