/**
 * What one session took in since the store's last flush, in order, each with its receive
 * time: SSE items kept undecoded (kind code, data, id) and other things (decoded events,
 * status and meta changes). The columns are flat and kept from one batch to the next, so
 * queuing allocates nothing; at a million items a second, per-item objects and arrays
 * regrown every frame would be most of what the garbage collector has to copy.
 */
/** Columns up to this many entries are kept for the next batch (a few frames at full rate). */
const KEEP_ENTRIES = 65_536;

export class ItemQueue<T extends object> {
  /** Two slots per entry: the data text (undecoded item) or the thing; the item's id. */
  private refs: (T | string | null)[] = [];
  /** Per entry: the undecoded item's kind code, or OTHER. */
  private codes = new Uint8Array(64);
  private ats = new Float64Array(64);
  private n = 0;

  /** The code of entries that are not undecoded items. */
  static readonly OTHER = 255;

  get length(): number {
    return this.n;
  }

  private room(): number {
    const i = this.n;
    if (i === this.codes.length) {
      const codes = new Uint8Array(i * 2);
      codes.set(this.codes);
      this.codes = codes;
      const ats = new Float64Array(i * 2);
      ats.set(this.ats);
      this.ats = ats;
    }
    this.n = i + 1;
    return i;
  }

  pushItem(code: number, data: string, id: string | null, at: number): void {
    const i = this.room();
    this.codes[i] = code;
    this.ats[i] = at;
    this.refs[2 * i] = data;
    this.refs[2 * i + 1] = id;
  }

  push(thing: T, at: number): void {
    const i = this.room();
    this.codes[i] = ItemQueue.OTHER;
    this.ats[i] = at;
    this.refs[2 * i] = thing;
    this.refs[2 * i + 1] = null;
  }

  code(i: number): number {
    return this.codes[i] as number;
  }

  at(i: number): number {
    return this.ats[i] as number;
  }

  /** The data text of an undecoded item. */
  data(i: number): string {
    return this.refs[2 * i] as string;
  }

  /** The id of an undecoded item. */
  id(i: number): string | null {
    return this.refs[2 * i + 1] as string | null;
  }

  thing(i: number): T {
    return this.refs[2 * i] as T;
  }

  /** Empty it; the references are dropped so nothing queued outlives its batch. */
  clear(): void {
    if (this.n > KEEP_ENTRIES) {
      // After an unusual burst, give the memory back instead of keeping it for good.
      this.refs = [];
      this.codes = new Uint8Array(64);
      this.ats = new Float64Array(64);
    } else this.refs.fill(null, 0, 2 * this.n);
    this.n = 0;
  }
}
