import { sameEventKey } from "../../protocol/sameEvent.js";
import {
  contentKey,
  type RecordedEvent,
  recordContentKey,
  storedData,
  type TextCleaner,
} from "./recordFormat.js";

/**
 * What the server's history repeats of the journal. A pane shows the journal first, then the
 * events a new subscription sends; the newest part of those is often already in the journal.
 * An event is a repeat when the journal holds the same event (the same id, or none, the same
 * name and the same cleaned data: see protocol/sameEvent.ts) not matched yet. An id alone
 * proves nothing (a server that restarted reuses its ids for new events); each journal event
 * absorbs one repeat only, so two identical lines that really happened twice both stay.
 */
export class JournalOverlap {
  private readonly events = new Map<string, number>();
  /** Repeats dropped so far. */
  dropped = 0;

  constructor(
    records: readonly RecordedEvent[],
    private readonly clean: TextCleaner,
  ) {
    for (const r of records) {
      if (r.event === "heartbeat") continue;
      const key = sameEventKey(r.event, r.id, recordContentKey(r));
      this.events.set(key, (this.events.get(key) ?? 0) + 1);
    }
  }

  get empty(): boolean {
    return this.events.size === 0;
  }

  /** Whether an incoming item repeats a journal event (counted in `dropped` when it does). */
  repeats(event: string | undefined, data: string, id: string | undefined): boolean {
    const name = event ?? "message";
    if (name === "heartbeat" || this.events.size === 0) return false;
    // The journal stored the id, the name and the data cleaned (see fileJournal.ts): compare
    // them so.
    const stored = this.clean(name, false);
    const key = sameEventKey(
      stored,
      id !== undefined && id !== "" ? this.clean(id, false) : null,
      contentKey(stored, storedData(stored, data, this.clean)),
    );
    const n = this.events.get(key) ?? 0;
    if (n === 0) return false;
    if (n === 1) this.events.delete(key);
    else this.events.set(key, n - 1);
    this.dropped++;
    return true;
  }
}
