import type { StreamLeases } from "../streams/streamLeases.js";

/**
 * The fleet view's streams: open for the sessions in view, up to a cap (default 50), each
 * opened through the request budget like any stream. Scrolling opens the newly visible ones
 * and, past the cap, closes those out of view the longest. Leaving the fleet keeps them for a
 * grace period (coming back, or the merged timeline, finds them open) and then lets them go.
 */

export const DEFAULT_FLEET_STREAMS = 50;
const DEFAULT_GRACE_MS = 120_000;

export interface FleetStreamsOptions {
  leases: Pick<StreamLeases, "lease" | "release">;
  cap?: number;
  graceMs?: number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (h: unknown) => void;
}

export class FleetStreams {
  readonly cap: number;
  readonly #o: FleetStreamsOptions;
  /** Held ids, by when they were last in view (a counter). */
  readonly #held = new Map<string, number>();
  #tick = 0;
  #grace: unknown = null;

  constructor(o: FleetStreamsOptions) {
    this.#o = o;
    this.cap = Math.max(0, Math.floor(o.cap ?? DEFAULT_FLEET_STREAMS));
  }

  get openIds(): string[] {
    return [...this.#held.keys()];
  }

  /**
   * The sessions on screen now, in order: the first `cap` of them get a stream. Rows scrolled
   * out of view keep theirs up to the cap; a session the view no longer lists at all (gone,
   * or hidden as destroyed) lets its stream go at once.
   */
  show(ids: readonly string[], listed?: ReadonlySet<string>): void {
    this.#cancelGrace();
    this.#tick++;
    if (listed) {
      for (const id of [...this.#held.keys()]) {
        if (listed.has(id)) continue;
        this.#held.delete(id);
        this.#o.leases.release(id, "fleet");
      }
    }
    const want = ids.slice(0, this.cap);
    for (const id of want) {
      if (!this.#held.has(id)) this.#o.leases.lease(id, "fleet");
      this.#held.set(id, this.#tick);
    }
    if (this.#held.size <= this.cap) return;
    // Past the cap: the ones out of view the longest go first.
    const out = [...this.#held].filter(([, t]) => t !== this.#tick).sort((a, b) => a[1] - b[1]);
    for (const [id] of out) {
      if (this.#held.size <= this.cap) break;
      this.#held.delete(id);
      this.#o.leases.release(id, "fleet");
    }
  }

  /** The fleet is not on screen: let the streams go after the grace period. */
  hide(): void {
    if (this.#grace !== null || this.#held.size === 0) return;
    const set = this.#o.setTimer ?? ((fn, ms) => setTimeout(fn, ms).unref());
    this.#grace = set(() => {
      this.#grace = null;
      this.releaseAll();
    }, this.#o.graceMs ?? DEFAULT_GRACE_MS);
  }

  releaseAll(): void {
    this.#cancelGrace();
    for (const id of [...this.#held.keys()]) this.#o.leases.release(id, "fleet");
    this.#held.clear();
  }

  #cancelGrace(): void {
    if (this.#grace === null) return;
    (this.#o.clearTimer ?? ((h) => clearTimeout(h as NodeJS.Timeout)))(this.#grace);
    this.#grace = null;
  }
}
