import type { StreamNotice, StreamStatus } from "../../client/eventStream.js";
import type { SessionEvent } from "../../protocol/events.js";
import { heldOverlap, type LogSequence, logSequence } from "../history/historyOverlap.js";
import type { TextCleaner } from "../history/recordFormat.js";
import type { StreamMeta } from "./sessionStream.js";
import type { StreamAdmission } from "./streamAdmission.js";

/**
 * What a stream opened before its history was read sends meanwhile, held in order (items,
 * comments, notices, decoded events, and statuses from the first that would draw a line) until
 * the history's divider is drawn; then the items the history already holds are dropped and
 * the rest admitted as if they had just arrived.
 */

type HeldItem = {
  kind: "item";
  event: string | undefined;
  data: string;
  id: string | undefined;
  at: number;
};

export type Held =
  | HeldItem
  | { kind: "event"; ev: SessionEvent }
  | { kind: "notice"; notice: StreamNotice }
  | { kind: "comment"; text: string }
  | { kind: "status"; status: StreamStatus; meta: StreamMeta | undefined };

export class HeldItems {
  #held: Held[] = [];
  /** Statuses are held too from the first that draws a line (see holdsStatus). */
  #holdStatuses = false;

  push(h: Held): void {
    // A notice's "live" comes next, and must follow it.
    if (h.kind === "notice") this.#holdStatuses = true;
    this.#held.push(h);
  }

  /**
   * Whether a status is held: once one would draw a line (a stream that stops or drops at
   * once says so below the history, not above it); till then the title says it is
   * connecting, live.
   */
  holdsStatus(status: StreamStatus): boolean {
    if (this.#holdStatuses || status.state === "reconnecting" || status.state === "stopped") {
      this.#holdStatuses = true;
    }
    return this.#holdStatuses;
  }

  /**
   * Drops the held items the history already holds (heldOverlap); returns how many, not
   * counting heartbeats.
   */
  dropRepeats(history: LogSequence, clean: TextCleaner | undefined): number {
    const items = this.#held.filter((h): h is HeldItem => h.kind === "item");
    const drop = heldOverlap(
      history,
      logSequence(
        items.map((h) => ({ event: h.event ?? "message", data: h.data })),
        clean,
      ),
    );
    if (drop === 0) return 0;
    let n = 0;
    this.#held = this.#held.filter((h) => h.kind !== "item" || n++ >= drop);
    return items.slice(0, drop).filter((h) => h.event !== "heartbeat").length;
  }

  /** Admits what was held, in order. */
  drainInto(admit: StreamAdmission): void {
    for (const h of this.#held) {
      if (h.kind === "item") admit.item(h.event, h.data, h.id, h.at);
      else if (h.kind === "event") admit.event(h.ev);
      else if (h.kind === "notice") admit.notice(h.notice);
      else if (h.kind === "status") admit.status(h.status, h.meta);
      else admit.comment(h.text);
    }
    this.#held = [];
  }
}
