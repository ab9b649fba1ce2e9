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
 * An event with an id is a repeat when the journal has that id; an id-less one when the
 * journal holds an event of the same name and cleaned data (a server's timestamp in the
 * payload makes that exact) not matched yet: each journal event absorbs one repeat only, so
 * two identical lines that really happened twice both stay.
 */
export class JournalOverlap {
  private readonly ids = new Set<string>();
  private readonly contents = new Map<string, number>();
  /** Repeats dropped so far. */
  dropped = 0;

  constructor(
    records: readonly RecordedEvent[],
    private readonly clean: TextCleaner,
  ) {
    for (const r of records) {
      if (r.event === "heartbeat") continue;
      if (r.id !== null) this.ids.add(r.id);
      else {
        const key = recordContentKey(r);
        this.contents.set(key, (this.contents.get(key) ?? 0) + 1);
      }
    }
  }

  get empty(): boolean {
    return this.ids.size === 0 && this.contents.size === 0;
  }

  /** Whether an incoming item repeats a journal event (counted in `dropped` when it does). */
  repeats(event: string | undefined, data: string, id: string | undefined): boolean {
    const name = event ?? "message";
    if (name === "heartbeat") return false;
    let hit = false;
    // The journal stored the id and the name cleaned (see fileJournal.ts): compare them so.
    if (id !== undefined && id !== "") hit = this.ids.has(this.clean(id, false));
    else if (this.contents.size > 0) {
      const stored = this.clean(name, false);
      const key = contentKey(stored, storedData(stored, data, this.clean));
      const n = this.contents.get(key) ?? 0;
      if (n > 0) {
        hit = true;
        if (n === 1) this.contents.delete(key);
        else this.contents.set(key, n - 1);
      }
    }
    if (hit) this.dropped++;
    return hit;
  }
}
