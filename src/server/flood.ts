import type { NewEvent, SessionTable } from "./sessionTable.js";

const TICK_MS = 10;

export interface FloodResult {
  /** Events appended per session. */
  perSession: number;
  /** Events appended in total. */
  sent: number;
}

/**
 * Emits eventsPerSecond events to EACH of the sessions for durationMs, in one batch per session
 * per tick (so one socket write per subscriber per tick), catching up if the loop lags. Every
 * fourth event of a session is a prompt step, the others process output; the sessions are
 * out of step with one another (session i's steps come i events later), as real ones are, so
 * a view of many sessions changes at every tick rather than all at once every fourth.
 */
export class Flood {
  private timer: NodeJS.Timeout | null = null;
  private perSession = 0;
  private finish: (() => void) | null = null;
  readonly done: Promise<FloodResult>;

  constructor(
    private readonly store: SessionTable,
    private readonly sessionIds: readonly string[],
    private readonly eventsPerSecond: number,
    private readonly durationMs: number,
  ) {
    for (const id of sessionIds) {
      if (!store.get(id)) throw new Error(`flood: unknown session ${id}`);
    }
    if (!(eventsPerSecond > 0)) throw new RangeError("flood: eventsPerSecond must be > 0");
    const started = Date.now();
    this.done = new Promise((resolve) => {
      this.finish = () => {
        if (this.timer) clearInterval(this.timer);
        this.timer = null;
        this.finish = null;
        resolve({ perSession: this.perSession, sent: this.perSession * sessionIds.length });
      };
    });
    this.timer = setInterval(() => this.tick(started), TICK_MS);
  }

  private tick(started: number): void {
    const now = Date.now();
    const elapsed = Math.min(now - started, this.durationMs);
    const target = Math.floor((elapsed * this.eventsPerSecond) / 1000);
    const n = target - this.perSession;
    if (n > 0) {
      this.sessionIds.forEach((id, i) => {
        this.store.append(id, batch(this.perSession, n, now, i), now);
      });
      this.perSession = target;
    }
    if (now - started >= this.durationMs) this.finish?.();
  }

  stop(): void {
    this.finish?.();
  }
}

function batch(from: number, n: number, ts: number, phase: number): NewEvent[] {
  const out: NewEvent[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const k = from + i;
    // Built by hand: this is the hot path of the benchmarks, and the shapes are fixed.
    out[i] =
      (k + phase) % 4 === 3
        ? { event: "prompt_progress", data: `{"type":"text","content":"step ${k} ","ts":${ts}}` }
        : {
            event: "process_output",
            data: `{"stream":"stdout","text":"flood line ${k}: ok\\n","ts":${ts}}`,
          };
  }
  return out;
}
