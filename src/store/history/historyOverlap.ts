import { recordInText } from "../../protocol/values.js";
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
 * - heldOverlap: what the history holds of the stream's first items (held while it was read).
 *   `items`: how many of them (from their start) the history's newest entries already hold,
 *   the longest run at the start of those items that equals the history's end; they are
 *   dropped. `ahead`: when every held entry is found, in order, in the history but short of
 *   its end (the newest such place), how many history entries follow them; the history was
 *   answered after the stream sent them, and the stream has yet to send those (it lags, or it
 *   resumes after a drop and replays them). The pane then holds on (heldItems.ts, a few
 *   seconds at most) until the stream's items reach the history's end, and `items` drops
 *   them all; if one differs first, or nothing comes, the held items are shown (the match
 *   may be an old line happening again), not hidden. The first held entry may be the end of
 *   a longer log entry (the stream opened mid-sentence), the last one the start of one (the
 *   agent's words still coming). More than MAX_AHEAD entries after them: not waited for.
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
      return { key: `out\n${outputKey(payloadText(o).text, clean)}` };
    case "file_changed":
      return { key: `file\n${c(String(o.action ?? ""))}\n${c(String(o.path ?? ""))}` };
    case "state_changed":
      return { key: `state\n${c(String(o.state ?? ""))}` };
    default:
      return { key: `${event}\n${c(JSON.stringify(withoutTimes(o)))}` };
  }
}

/**
 * An output's text as compared. Output of no known shape is shown as its payload's compact
 * JSON, and the history sends that JSON back as text: both are read as objects and compared
 * by their fields, times left out, the strings cleaned (an escape inside a JSON string is the
 * six characters `\u001b` in the history's text, the character itself on the stream). A
 * history may keep a payload of a shape the client reads ({fd, output}, {line}, …) as its
 * JSON text too: an object with a text the client reads from it is compared by that text, as
 * the stream's payload is (a tool that printed such JSON reads the same either way).
 */
function outputKey(text: string, clean: TextCleaner): string {
  const o = recordInText(text);
  if (o === null) return norm(clean(text, true));
  const inner = payloadText(o);
  if (!inner.compact) return norm(clean(inner.text, true));
  return JSON.stringify(withoutTimes(o), (_k, v) =>
    typeof v === "string" ? norm(clean(v, true)) : v,
  );
}

/** One item as a log entry (see logKeyOf). */
export type LogKey = ReturnType<typeof logKeyOf>;

/** The items as log entries, the agent's words joined until something else comes. */
export function logSequence(items: readonly LogItem[], clean?: TextCleaner): LogSequence {
  return logSequenceOf(items.map((item) => logKeyOf(item.event, item.data, clean)));
}

/** logSequence of items already read as log entries (logKeyOf), one per item. */
export function logSequenceOf(items: readonly LogKey[]): LogSequence {
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
  items.forEach((k, i) => {
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

/** History entries after the held ones beyond which they are not waited for. */
const MAX_AHEAD = 64;

/** What the history holds of the held items (see the module comment). */
export interface HeldOverlap {
  /** Held items (from their start) the history's end already holds. */
  items: number;
  /** History entries the stream has yet to send after the held ones; 0 when none. */
  ahead: number;
}

export function heldOverlap(history: LogSequence, held: LogSequence): HeldOverlap {
  return { items: heldAtEnd(history.keys, held), ahead: heldAhead(history.keys, held.keys) };
}

/** The agent's words of a log entry, or null for any other entry. */
function wordsOf(key: string): string | null {
  return key.startsWith(TEXT) && key.length > TEXT.length ? key.slice(TEXT.length) : null;
}

/**
 * Whether held entry `dk` is history entry `hk`: the same, or, for the first held entry, the
 * end of the history's words (the stream opened mid-sentence).
 */
function sameEntry(hk: string, dk: string, first: boolean): boolean {
  if (hk === dk) return true;
  const w = wordsOf(dk);
  return first && w !== null && hk.startsWith(TEXT) && hk.endsWith(w);
}

/** The held items the history's end holds: the longest run of held entries equal to it. */
function heldAtEnd(h: readonly string[], held: LogSequence): number {
  const d = held.keys;
  for (let k = Math.min(h.length, d.length); k >= 1; k--) {
    let same = true;
    for (let i = 0; i < k && same; i++) {
      same = sameEntry(h[h.length - k + i] as string, d[i] as string, i === 0);
    }
    if (same) return (held.ends[k - 1] as number) + 1;
  }
  return 0;
}

/**
 * History entries after every held entry, found in order in the history (its newest place),
 * counting the rest of a last entry of words still coming; 0 when they reach its end, are not
 * all found, or more than MAX_AHEAD follow.
 */
function heldAhead(h: readonly string[], d: readonly string[]): number {
  const n = d.length;
  if (n === 0) return 0;
  const last = wordsOf(d[n - 1] as string);
  for (let p = h.length - n; p >= 0 && h.length - (p + n) <= MAX_AHEAD; p--) {
    let same = true;
    let partial = false;
    for (let i = 0; i < n && same; i++) {
      const hk = h[p + i] as string;
      same = sameEntry(hk, d[i] as string, i === 0);
      // The agent's words, sent a few at a time: the history's entry may go on.
      if (!same && i === n - 1 && last !== null && hk.startsWith(TEXT)) {
        same = partial = hk.slice(TEXT.length).startsWith(last);
      }
    }
    if (same) return h.length - (p + n) + (partial ? 1 : 0);
  }
  return 0;
}
