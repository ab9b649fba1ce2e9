import { styleText } from "node:util";
import type { SessionEvent } from "../protocol/events.js";
import type { StreamRedaction } from "../text/redact.js";
import { foldLines, sanitize } from "../text/sanitize.js";
import { clock, eventText, KIND_TAGS } from "./eventFormat.js";

/**
 * The human form of `watch`: one line per event, except that prompt text, which agents send
 * a few words at a time, is joined into lines (up to a newline in the text, the width, another
 * event of the same session, or a pause). With several sessions each line starts with its
 * session id, in a colour of its own on a terminal, like stern.
 */

type Format = Parameters<typeof styleText>[0];

/** Colours told apart on dark and light terminals; the session's index picks one. */
const SESSION_COLORS: Format[] = ["cyan", "magenta", "yellow", "green", "blue", "red"];

/** Lines watch prints about a session besides its events. */
export type NoteTag = "gap" | "state";

const NOTE_COLORS: Record<NoteTag, Format> = { gap: "yellow", state: "magenta" };

const KIND_COLORS: Partial<Record<SessionEvent["kind"], Format>> = {
  prompt_progress: "cyan",
  file_changed: "yellow",
  state_changed: "magenta",
  heartbeat: "gray",
  unknown: "gray",
  malformed: "red",
};

export interface WatchPrinterOptions {
  /** The sessions watched, in the order given (their colours follow it). */
  sessionIds: string[];
  /** SGR colours (a terminal without NO_COLOR). */
  color: boolean;
  /** Widest line joined prompt text may make (the terminal's width, else 120). */
  width: number;
  /**
   * The session's stream redaction: the text of its lines, in order, passes it, so a key sent
   * a few characters an event (or cut by a wrap) is found across lines.
   */
  redaction: (sessionId: string) => StreamRedaction;
  /** A line to print: one of a session's events (or joined prompt text), or a note. */
  write: (line: string, kind: "event" | "note") => void;
  /** Print a pending prompt line after this long without more of it. Default 1500 ms. */
  idleFlushMs?: number;
}

interface PendingPrompt {
  at: number;
  text: string;
  timer: NodeJS.Timeout | null;
}

export class WatchPrinter {
  readonly #opts: WatchPrinterOptions;
  readonly #tagSessions: boolean;
  readonly #pending = new Map<string, PendingPrompt>();
  readonly #idleMs: number;

  constructor(opts: WatchPrinterOptions) {
    this.#opts = opts;
    this.#tagSessions = new Set(opts.sessionIds).size > 1;
    this.#idleMs = opts.idleFlushMs ?? 1500;
  }

  /** Print (or, for prompt text, gather) one event of one session. */
  event(sessionId: string, ev: SessionEvent, at: number): void {
    if (ev.kind === "prompt_progress" && ev.data.type === "text") {
      this.#promptText(sessionId, sanitize(ev.data.content), at);
      return;
    }
    this.flush(sessionId);
    this.#earlierFirst(sessionId, at);
    const text = this.#opts.redaction(sessionId).push(foldLines(eventText(ev, this.#opts.color)));
    const reset = this.#opts.color && text.includes("\u001b[") ? "\u001b[0m" : "";
    this.#opts.write(`${this.#prefix(sessionId, ev.kind, at)}${text}${reset}`, "event");
  }

  /**
   * Print a line about a session that is not one of its events (a gap marker, the state read
   * again), after what is gathered of its prompt line, with the same prefix as its events.
   */
  note(sessionId: string, tag: NoteTag, text: string, at: number): void {
    this.flush(sessionId);
    this.#earlierFirst(sessionId, at);
    this.#opts.write(`${this.#linePrefix(sessionId, tag, NOTE_COLORS[tag], at)}${text}`, "note");
  }

  /** Print what is gathered of a session's prompt line. */
  flush(sessionId: string): void {
    const p = this.#pending.get(sessionId);
    if (!p) return;
    this.#pending.delete(sessionId);
    if (p.timer) clearTimeout(p.timer);
    if (p.text.trim() !== "") this.#writePrompt(sessionId, p.at, p.text.trimEnd());
  }

  /** Print every gathered prompt line (before exiting). */
  flushAll(): void {
    for (const id of [...this.#pending.keys()]) this.flush(id);
  }

  #promptText(sessionId: string, text: string, at: number): void {
    const parts = text.split("\n");
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as string;
      let p = this.#pending.get(sessionId);
      if (part !== "") {
        if (!p) {
          p = { at, text: "", timer: null };
          this.#pending.set(sessionId, p);
        }
        p.text += part;
      }
      if (i < parts.length - 1) this.flush(sessionId);
      else if (p) {
        this.#wrap(sessionId, p);
        if (this.#pending.get(sessionId) === p) this.#armIdle(sessionId, p);
      }
    }
  }

  /** Prints whole lines' worth of words once the gathered text is wider than the room. */
  #wrap(sessionId: string, p: PendingPrompt): void {
    const room = Math.max(20, this.#opts.width - this.#prefixWidth(sessionId));
    while (p.text.length > room) {
      let cut = p.text.lastIndexOf(" ", room);
      if (cut <= 0) cut = room;
      this.#writePrompt(sessionId, p.at, p.text.slice(0, cut).trimEnd());
      p.text = p.text.slice(cut).trimStart();
    }
  }

  #armIdle(sessionId: string, p: PendingPrompt): void {
    if (p.timer) clearTimeout(p.timer);
    p.timer = setTimeout(() => {
      if (this.#pending.get(sessionId) === p) this.flush(sessionId);
    }, this.#idleMs);
    p.timer.unref();
  }

  /**
   * Lines in time order: before a line of `sessionId` at `at` is written, the prompt lines
   * other sessions began gathering before it are written (else a gathered line, stamped
   * with its first piece's time, would follow later lines of another session).
   */
  #earlierFirst(sessionId: string, at: number): void {
    for (const [id, p] of [...this.#pending]) {
      if (id !== sessionId && p.at < at) this.flush(id);
    }
  }

  #writePrompt(sessionId: string, at: number, text: string): void {
    this.#earlierFirst(sessionId, at);
    const shown = this.#opts.redaction(sessionId).push(text);
    this.#opts.write(`${this.#prefix(sessionId, "prompt_progress", at)}${shown}`, "event");
  }

  #prefixWidth(sessionId: string): number {
    return 9 + (this.#tagSessions ? sessionId.length + 1 : 0) + 7;
  }

  #prefix(sessionId: string, kind: SessionEvent["kind"], at: number): string {
    return this.#linePrefix(sessionId, KIND_TAGS[kind], KIND_COLORS[kind], at);
  }

  #linePrefix(sessionId: string, label: string, kindColor: Format | undefined, at: number): string {
    const tag = label.padEnd(6);
    const time = clock(at);
    if (!this.#opts.color) {
      return `${time} ${this.#tagSessions ? `${sessionId} ` : ""}${tag} `;
    }
    const style = (f: Format, s: string) => styleText(f, s, { validateStream: false });
    const index = Math.max(0, this.#opts.sessionIds.indexOf(sessionId));
    const session = this.#tagSessions
      ? `${style(SESSION_COLORS[index % SESSION_COLORS.length] as Format, sessionId)} `
      : "";
    return `${style("dim", time)} ${session}${kindColor ? style(kindColor, tag) : tag} `;
  }
}
