import { hash } from "node:crypto";

/**
 * When an event received again is one the client already has: the same id, the same event
 * name and the same data. Nothing else makes it a repeat: not its id alone (a server that
 * restarted, or one that numbers per connection, sends ids it used before with new events),
 * and never its id's number (an id is an opaque string). Losing an event is worse than
 * showing one twice, so anything short of all three matching is delivered.
 *
 * The stream's replay window (client/eventStream.ts), the journal's overlap with a server's
 * history (store/history/journalOverlap.ts) and the merging of recordings
 * (store/history/recording.ts) all decide by this one rule.
 */

/** The name an event goes by: WHATWG's default when it has no `event:` field. */
export function eventName(event: string | undefined): string {
  return event === undefined || event === "" ? "message" : event;
}

/**
 * A key equal for two events exactly when they are the same event by the rule above, for
 * data that is held whole anyway (a journal's or a recording's records). `data` is whatever
 * form both sides hold it in (raw text, or the journal's cleaned and re-serialized JSON).
 */
export function sameEventKey(event: string | undefined, id: string | null, data: string): string {
  // Lengths first: no choice of name, id and data can make two different triples one key.
  const name = eventName(event);
  const i = id ?? "";
  return `${name.length}:${i.length}:${id === null ? "-" : "+"}${name}${i}${data}`;
}

/**
 * Data up to this many characters is kept whole to be compared exactly: the ring stores a
 * reference to the string the event already is (no copy, no hashing on the hot path). Longer
 * data is kept as its length and SHA-256.
 */
export const WHOLE_DATA_CHARS = 1024;

/** What the client keeps of a longer event's data: its length and SHA-256 digest. */
class DataDigest {
  constructor(
    readonly length: number,
    readonly sha256: string,
  ) {}
}

type DataPrint = string | DataDigest;

function dataPrint(data: string): DataPrint {
  if (data.length <= WHOLE_DATA_CHARS) return data;
  // A cryptographic hash: an accidental (or even a crafted) collision, which would drop a
  // new event as a replay, is out of reach. Computed only for the rare long event.
  return new DataDigest(data.length, hash("sha256", data, "base64"));
}

function samePrint(kept: DataPrint, data: string): boolean {
  if (typeof kept === "string") return kept === data;
  return kept.length === data.length && kept.sha256 === hash("sha256", data, "base64");
}

/**
 * The last `size` events that had an id (size a power of two), oldest overwritten first, and
 * after a reconnection the window in which a server may be sending some of them again.
 *
 * The window opens when a connection does. An event in it is a replay when it is the same
 * event (id, name, data) as one in the ring, later in the ring than the replay before it
 * (a server sends its history in order). The first event that is not ends the window: from
 * there on everything is delivered. Events without an id do not end it (a server may send
 * heartbeats between replayed events); they cannot be replays.
 */
export class RecentEvents {
  private readonly ids: (string | undefined)[];
  private readonly names: string[];
  private readonly prints: DataPrint[];
  private readonly mask: number;
  /** Next slot to write: also the oldest event once the ring is full. */
  private pos = 0;
  /** While a window is open: each id's places in the ring, counted from the oldest. */
  private window: Map<string, number[]> | null = null;
  /** The place of the last replay in this window (-1 before the first). */
  private after = -1;
  /** Replays dropped in the current window. */
  dropped = 0;

  constructor(size: number) {
    if (size <= 0 || (size & (size - 1)) !== 0) throw new Error("size must be a power of two");
    this.mask = size - 1;
    this.ids = new Array(size);
    this.names = new Array(size);
    this.prints = new Array(size);
  }

  get windowOpen(): boolean {
    return this.window !== null;
  }

  /** A connection opened: what it sends first may be events the client already has. */
  openWindow(): void {
    const byId = new Map<string, number[]>();
    const size = this.mask + 1;
    for (let i = 0; i < size; i++) {
      const id = this.ids[(this.pos + i) & this.mask];
      if (id === undefined) continue;
      const places = byId.get(id);
      if (places) places.push(i);
      else byId.set(id, [i]);
    }
    this.window = byId;
    this.after = -1;
    this.dropped = 0;
  }

  /** Closes the window; returns how many replays it dropped. */
  closeWindow(): number {
    const n = this.dropped;
    this.window = null;
    this.dropped = 0;
    return n;
  }

  /**
   * An event with a non-empty id has arrived: true when it is a replay (drop it; counted in
   * `dropped`). Otherwise it is new: the window closes and it joins the ring.
   */
  isReplay(event: string | undefined, id: string, data: string): boolean {
    const w = this.window;
    if (w !== null) {
      const places = w.get(id);
      if (places !== undefined) {
        const name = eventName(event);
        for (const i of places) {
          if (i <= this.after) continue;
          const slot = (this.pos + i) & this.mask;
          if (this.names[slot] === name && samePrint(this.prints[slot] as DataPrint, data)) {
            this.after = i;
            this.dropped++;
            return true;
          }
        }
      }
      // The first new event ends the replay: from here on the server sends what is new.
      this.window = null;
    }
    const slot = this.pos;
    this.ids[slot] = id;
    this.names[slot] = eventName(event);
    this.prints[slot] = dataPrint(data);
    this.pos = (slot + 1) & this.mask;
    return false;
  }
}
