import type { StreamNotice, StreamStatus } from "../../client/eventStream.js";
import type { SessionEvent } from "../../protocol/events.js";
import {
  heldOverlap,
  type LogKey,
  type LogSequence,
  logKeyOf,
  logSequenceOf,
} from "../history/historyOverlap.js";
import type { TextCleaner } from "../history/recordFormat.js";
import type { StreamMeta } from "./sessionStream.js";
import { BURST_IDLE_MS, type StreamAdmission } from "./streamAdmission.js";

/**
 * What a stream opened before its history was read sends meanwhile, held in order (items,
 * comments, notices, decoded events, and statuses from the first that would draw a line) until
 * the history's divider is drawn; then the items the history already holds are dropped (what
 * they say of the session now still counts) and the rest admitted as if they had just
 * arrived. A history answered after the stream sent its items may hold more than they do: it
 * is held on a little longer for the stream to send those too (settle). A stream that has
 * sent nothing by then is held the same way after the history (its statuses shown as they
 * come): a server that sends recent events on open, or resumes from an older event id, may
 * send the history's end again, and a stream behind the service's record may send it late.
 */

/**
 * Longest the held items wait, once the history is read, for the stream to send what the
 * history holds after them: a stream that dropped resumes after its backoff (1 s at first).
 */
export const AHEAD_WAIT_MS = 3000;

type HeldItem = {
  kind: "item";
  event: string | undefined;
  data: string;
  id: string | undefined;
  at: number;
  /** The item as a log entry, once read (logKeyOf). */
  key?: LogKey;
};

export type Held =
  | HeldItem
  /** An item the history shows already: not shown again (see StreamAdmission.repeated). */
  | { kind: "repeat"; item: HeldItem }
  | { kind: "event"; ev: SessionEvent }
  | { kind: "notice"; notice: StreamNotice }
  | { kind: "comment"; text: string }
  | { kind: "status"; status: StreamStatus; meta: StreamMeta | undefined };

export class HeldItems {
  #held: Held[] = [];
  /** Statuses are held too from the first that draws a line (see holdsStatus). */
  #holdStatuses = false;
  /** Statuses are never held (the history is drawn already: they follow it). */
  readonly #statusesPass: boolean;
  /** The stream stopped: nothing more will come. */
  #stopped = false;
  /** Wakes settle's wait (an item came, the stream stopped, or the wait is over). */
  #wake: (() => void) | null = null;

  constructor(opts: { statusesPass?: boolean } = {}) {
    this.#statusesPass = opts.statusesPass ?? false;
  }

  push(h: Held): void {
    // A notice's "live" comes next, and must follow it.
    if (h.kind === "notice") this.#holdStatuses = true;
    this.#held.push(h);
    if (h.kind === "item") this.#wake?.();
  }

  /** Whether the stream sent an item. */
  hasItems(): boolean {
    return this.#items().length > 0;
  }

  /** The stream stopped: settle waits no more. */
  stop(): void {
    this.#stopped = true;
    this.#wake?.();
  }

  /**
   * Whether a status is held: once one would draw a line (a stream that stops or drops at
   * once says so below the history, not above it); till then the title says it is
   * connecting, live.
   */
  holdsStatus(status: StreamStatus): boolean {
    if (this.#statusesPass) return false;
    if (this.#holdStatuses || status.state === "reconnecting" || status.state === "stopped") {
      this.#holdStatuses = true;
    }
    return this.#holdStatuses;
  }

  /**
   * Drops the held items the history already holds; returns how many, not counting
   * heartbeats. While every held entry is found in the history short of its end (heldOverlap's
   * `ahead`), first waits for the stream to send the rest: until its items reach the history's
   * end, one differs, the stream stops, or AHEAD_WAIT_MS passed. A burst the stream sends on
   * going live (`burst`) is first given `firstWithinMs` to send its first item, and the rest
   * is waited for only while it keeps coming (an item within BURST_IDLE_MS of the last): a
   * later item is news, even when the history holds the same words further back.
   */
  async settle(
    history: LogSequence,
    clean: TextCleaner | undefined,
    burst?: { firstWithinMs: number },
  ): Promise<number> {
    const ahead = () => heldOverlap(history, this.#log(clean)).ahead > 0;
    if (!burst) await this.#waitWhile(AHEAD_WAIT_MS, ahead);
    else {
      if (burst.firstWithinMs > 0) {
        await this.#waitWhile(burst.firstWithinMs, () => !this.hasItems());
      }
      const until = performance.now() + AHEAD_WAIT_MS;
      let seen = -1;
      while (this.#items().length !== seen && performance.now() < until) {
        seen = this.#items().length;
        const idle = Math.min(BURST_IDLE_MS, until - performance.now());
        await this.#waitWhile(idle, () => ahead() && this.#items().length === seen);
      }
    }
    return this.#dropRepeats(history, clean);
  }

  /**
   * Waits while `waiting()` holds, checked again as each item comes: until it no longer holds,
   * the stream stops, or `ms` passed.
   */
  async #waitWhile(ms: number, waiting: () => boolean): Promise<void> {
    if (this.#stopped || !waiting()) return;
    let over = false;
    const timer = setTimeout(() => {
      over = true;
      this.#wake?.();
    }, ms);
    timer.unref?.();
    while (!over && !this.#stopped && waiting()) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = null;
    }
    clearTimeout(timer);
  }

  #items(): HeldItem[] {
    return this.#held.filter((h): h is HeldItem => h.kind === "item");
  }

  /** The held items as log entries (each item read once). */
  #log(clean: TextCleaner | undefined): LogSequence {
    return logSequenceOf(
      this.#items().map((h) => {
        if (h.key === undefined) h.key = logKeyOf(h.event ?? "message", h.data, clean);
        return h.key;
      }),
    );
  }

  #dropRepeats(history: LogSequence, clean: TextCleaner | undefined): number {
    const drop = heldOverlap(history, this.#log(clean)).items;
    if (drop === 0) return 0;
    let n = 0;
    let shown = 0;
    this.#held = this.#held.map((h) => {
      if (h.kind !== "item" || n++ >= drop) return h;
      if (h.event !== "heartbeat") shown++;
      return { kind: "repeat", item: h };
    });
    return shown;
  }

  /** Admits what was held, in order. */
  drainInto(admit: StreamAdmission): void {
    for (const h of this.#held) {
      if (h.kind === "item") admit.item(h.event, h.data, h.id, h.at);
      else if (h.kind === "repeat") admit.repeated(h.item.event, h.item.data, h.item.id);
      else if (h.kind === "event") admit.event(h.ev);
      else if (h.kind === "notice") admit.notice(h.notice);
      else if (h.kind === "status") admit.status(h.status, h.meta);
      else admit.comment(h.text);
    }
    this.#held = [];
  }
}
