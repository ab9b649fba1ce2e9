import type { TimelineEntry } from "./entry.js";

/**
 * The undecoded slots of a scrollback (timelineBuffer.ts), column by column: an SSE item's
 * kind, data text, id, sequence number and receive time. The typed columns start small and
 * grow to the capacity, so thousands of idle panes cost little up front; a slot decoded or
 * overwritten lets go of its strings.
 */

/** SSE items a slot may hold undecoded (see timeline.ts for which ones are). */
export const LAZY_KINDS = ["process_output", "prompt_progress", "file_changed"] as const;
export type LazyKind = (typeof LAZY_KINDS)[number];
/** Index in LAZY_KINDS. */
export const OUTPUT = 0;
export const PROMPT = 1;
export const FILE = 2;

/**
 * The LAZY_KINDS index of an SSE event name, or -1. The three names differ in length, so one
 * comparison decides: the name is a fresh string cut from the stream, and comparing it with
 * each constant in turn took a visible share of a flood's time.
 */
export function lazyKindCode(event: string | undefined): number {
  if (event === undefined) return -1;
  switch (event.length) {
    case 14:
      return event === "process_output" ? OUTPUT : -1;
    case 15:
      return event === "prompt_progress" ? PROMPT : -1;
    case 12:
      return event === "file_changed" ? FILE : -1;
    default:
      return -1;
  }
}

/** Builds the entry of an undecoded slot, exactly as decoding it on arrival would have. */
export type Materialize = (
  kind: LazyKind,
  data: string,
  id: string | null,
  seq: number,
  at: number,
) => TimelineEntry;

export class LazySlots {
  readonly #capacity: number;
  #data: (string | undefined)[] = [];
  #ids: (string | null)[] = [];
  #kinds: Uint8Array;
  #seqs: Float64Array;
  #ats: Float64Array;

  constructor(capacity: number) {
    this.#capacity = capacity;
    const initial = Math.min(capacity, 64);
    this.#kinds = new Uint8Array(initial);
    this.#seqs = new Float64Array(initial);
    this.#ats = new Float64Array(initial);
  }

  /** Makes room for `slot` in the typed columns (doubling, up to the capacity). */
  reserve(slot: number): void {
    if (slot < this.#kinds.length) return;
    const size = Math.min(this.#capacity, Math.max(slot + 1, this.#kinds.length * 2));
    const kinds = new Uint8Array(size);
    kinds.set(this.#kinds);
    this.#kinds = kinds;
    const seqs = new Float64Array(size);
    seqs.set(this.#seqs);
    this.#seqs = seqs;
    const ats = new Float64Array(size);
    ats.set(this.#ats);
    this.#ats = ats;
  }

  write(
    slot: number,
    code: number,
    data: string,
    id: string | null,
    seq: number,
    at: number,
  ): void {
    this.#data[slot] = data;
    this.#ids[slot] = id;
    this.#kinds[slot] = code;
    this.#seqs[slot] = seq;
    this.#ats[slot] = at;
  }

  /** The slot's entry built from its columns, which then let go of its strings. */
  materialize(slot: number, make: Materialize): TimelineEntry {
    const made = this.decode(slot, make);
    this.release(slot);
    return made;
  }

  /** The slot's entry built from its columns, which keep their strings (nothing retained). */
  decode(slot: number, make: Materialize): TimelineEntry {
    return make(
      LAZY_KINDS[this.#kinds[slot] as number] as LazyKind,
      this.#data[slot] as string,
      this.#ids[slot] as string | null,
      this.#seqs[slot] as number,
      this.#ats[slot] as number,
    );
  }

  /** The slot holds a decoded entry now: its strings go. */
  release(slot: number): void {
    this.#data[slot] = undefined;
    this.#ids[slot] = null;
  }

  clear(): void {
    this.#data = [];
    this.#ids = [];
  }
}
