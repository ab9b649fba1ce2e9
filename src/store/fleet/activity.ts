import { payloadText } from "../../text/payloadText.js";
import { sanitize } from "../../text/sanitize.js";

/**
 * What the fleet view shows of each streamed session besides its state: events per minute
 * over the last ten minutes (the sparkline), when the last event came, the current step
 * (the newest line of prompt text; before any, the newest line of process output, read by
 * payloadText like panes and `watch` read it) and the files it changed. Fed with every SSE item as it
 * arrives (StreamsController's onItem), it does almost nothing per item: prompt items are
 * kept as they came (a few of the newest) and read only when a row shows them, and only
 * file changes, rare next to output, are parsed at once. Bounded per session and in sessions.
 */

export const SPARK_MINUTES = 10;
const MINUTE = 60_000;
/** Newest prompt items kept undecoded for the current step. */
const PROMPT_ITEMS = 8;
/** Distinct paths kept per session. */
const MAX_FILES = 2_000;
/** Sessions tracked; the least recently active goes first. */
const MAX_SESSIONS = 2_000;

export interface ChangedFile {
  action: string;
  at: number;
}

class Activity {
  /** Events per minute: minute number and count, a ring of SPARK_MINUTES slots. */
  readonly minutes = new Float64Array(SPARK_MINUTES).fill(-1);
  readonly counts = new Uint32Array(SPARK_MINUTES);
  lastEventAt: number | null = null;
  /** Prompt items not read yet, as they came. */
  prompts: string[] = [];
  /** The tail of the prompt text read so far, and the step it makes (read once each). */
  text = "";
  step: string | null = null;
  /** The newest process output item not read yet, as it came, and the line read from it. */
  output: string | null = null;
  outputStep: string | null = null;
  readonly files = new Map<string, ChangedFile>();
}

/**
 * Marks, among the prompt items, where one message of the agent ended (a tool ran between
 * them): the next text starts a line of its own instead of being glued to the last word
 * ("…of ses_doc044Working on step 152"). Not JSON, so never mistaken for an item.
 */
const MESSAGE_END = "\n";

/** Prompt text kept for the current step: enough for a sentence or two. */
const STEP_TEXT = 600;

/** A step this short has just begun: the sentence before it is shown with it. */
const SHORT_STEP = 24;

/**
 * The sentence being written (with the one before while it is short): prompt text streams in
 * fragments, so the newest line usually starts mid-sentence.
 */
function lastSentence(line: string): string {
  const parts = line.split(/(?<=[.!?])\s+/).filter(Boolean);
  if (parts.length <= 1) return line;
  const last = parts[parts.length - 1] as string;
  if (last.length >= SHORT_STEP) return last;
  return `${parts[parts.length - 2]} ${last}`;
}

function oneLine(s: string): string {
  return sanitize(s).replace(/\s+/g, " ").trim();
}

export class ActivityTracker {
  readonly #sessions = new Map<string, Activity>();
  readonly #listeners = new Set<() => void>();
  #filesVersion = 0;

  /** Increments whenever a session's changed files change (overlap detection follows it). */
  get filesVersion(): number {
    return this.#filesVersion;
  }

  /** Told when changed files change. */
  subscribe(fn: () => void): () => void {
    this.#listeners.add(fn);
    return () => {
      this.#listeners.delete(fn);
    };
  }

  #of(sessionId: string): Activity {
    let a = this.#sessions.get(sessionId);
    if (a) return a;
    a = new Activity();
    if (this.#sessions.size >= MAX_SESSIONS) {
      let oldest: string | null = null;
      let oldestAt = Number.POSITIVE_INFINITY;
      for (const [id, x] of this.#sessions) {
        const t = x.lastEventAt ?? 0;
        if (t < oldestAt) {
          oldestAt = t;
          oldest = id;
        }
      }
      if (oldest !== null) this.#sessions.delete(oldest);
    }
    this.#sessions.set(sessionId, a);
    return a;
  }

  /** One SSE item of a session (heartbeats are not activity). */
  note(sessionId: string, event: string | undefined, data: string, at: number): void {
    if (event === "heartbeat") return;
    const a = this.#of(sessionId);
    a.lastEventAt = at;
    const minute = Math.floor(at / MINUTE);
    const slot = minute % SPARK_MINUTES;
    if (a.minutes[slot] !== minute) {
      a.minutes[slot] = minute;
      a.counts[slot] = 0;
    }
    a.counts[slot] = (a.counts[slot] as number) + 1;
    if (event === "prompt_progress") {
      a.prompts.push(data);
      // Unread for long: only the newest can matter for the step.
      if (a.prompts.length > PROMPT_ITEMS * 2) {
        a.prompts = a.prompts.slice(-PROMPT_ITEMS);
        a.text = "";
      }
    } else if (event === "process_output") {
      a.output = data;
      // A tool's output comes between two messages of the agent: their text is not one line.
      if (a.prompts.at(-1) !== MESSAGE_END) a.prompts.push(MESSAGE_END);
    } else if (event === "file_changed") this.#file(a, data, at);
  }

  #file(a: Activity, data: string, at: number): void {
    let path: string | null = null;
    let action = "changed";
    try {
      const o = JSON.parse(data) as { path?: unknown; action?: unknown };
      if (typeof o.path === "string") path = oneLine(o.path).slice(0, 1024);
      if (typeof o.action === "string") action = oneLine(o.action).slice(0, 32) || action;
    } catch {
      return;
    }
    if (!path) return;
    a.files.delete(path);
    a.files.set(path, { action, at });
    if (a.files.size > MAX_FILES) {
      const first = a.files.keys().next().value;
      if (first !== undefined) a.files.delete(first);
    }
    this.#filesVersion++;
    for (const fn of [...this.#listeners]) fn();
  }

  /** Events in each of the last SPARK_MINUTES minutes up to `now`, oldest first. */
  perMinute(sessionId: string, now: number): number[] | null {
    const a = this.#sessions.get(sessionId);
    if (!a) return null;
    const current = Math.floor(now / MINUTE);
    const out: number[] = [];
    for (let m = current - SPARK_MINUTES + 1; m <= current; m++) {
      const slot = ((m % SPARK_MINUTES) + SPARK_MINUTES) % SPARK_MINUTES;
      out.push(a.minutes[slot] === m ? (a.counts[slot] as number) : 0);
    }
    return out;
  }

  lastEventAt(sessionId: string): number | null {
    return this.#sessions.get(sessionId)?.lastEventAt ?? null;
  }

  /**
   * The sentence being written: from the newest line of prompt text, one line, sanitized;
   * null when none came. Each prompt item is read once, when the step is next asked for.
   */
  currentStep(sessionId: string): string | null {
    const a = this.#sessions.get(sessionId);
    if (!a) return null;
    return promptStep(a) ?? outputStep(a);
  }

  /** The paths the session changed (newest last), with their last action. */
  files(sessionId: string): ReadonlyMap<string, ChangedFile> | null {
    return this.#sessions.get(sessionId)?.files ?? null;
  }
}

/** The newest line of process output (its text field; a payload without one adds none). */
function outputStep(a: Activity): string | null {
  if (a.output === null) return a.outputStep;
  const raw = a.output;
  a.output = null;
  try {
    const shown = payloadText(JSON.parse(raw));
    if (shown.compact) return a.outputStep;
    const lines = sanitize(shown.text.slice(-STEP_TEXT)).split("\n");
    for (let i = lines.length - 1; i >= 0; i--) {
      const l = (lines[i] as string).replace(/\s+/g, " ").trim();
      if (l) {
        a.outputStep = l;
        break;
      }
    }
  } catch {
    // a malformed item adds nothing to the step
  }
  return a.outputStep;
}

/** The sentence being written, from the prompt text read since it was last asked for. */
function promptStep(a: Activity): string | null {
  if (a.prompts.length === 0) return a.step;
  let text = a.text;
  const endMessage = () => {
    if (text !== "" && !text.endsWith("\n")) text += "\n";
  };
  for (const raw of a.prompts) {
    if (raw === MESSAGE_END) {
      endMessage();
      continue;
    }
    try {
      const o = JSON.parse(raw) as { type?: unknown; content?: unknown };
      // Only the agent's text makes a step; a tool call, its result or the end of the
      // prompt ends the message before it.
      if (o.type !== undefined && o.type !== "text") endMessage();
      else if (typeof o.content === "string") text += o.content;
    } catch {
      // a malformed fragment adds nothing to the step
    }
  }
  a.prompts = [];
  a.text = text.length > STEP_TEXT ? text.slice(-STEP_TEXT) : text;
  const lines = sanitize(a.text)
    .split("\n")
    .map((l) => l.trim());
  let step: string | null = null;
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i];
    if (l) {
      step = lastSentence(l.replace(/\s+/g, " "));
      break;
    }
  }
  a.step = step;
  return step;
}
