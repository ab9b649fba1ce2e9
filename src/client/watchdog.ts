import { performance } from "node:perf_hooks";

export interface WatchdogBounds {
  /** Lowest silence bound, however fast heartbeats come. */
  floorMs: number;
  /** Highest silence bound, however slow heartbeats come. */
  ceilingMs: number;
  /** Bound before any heartbeat interval has been observed. */
  initialMs: number;
}

export const DEFAULT_WATCHDOG: WatchdogBounds = {
  floorMs: 5_000,
  ceilingMs: 120_000,
  initialMs: 45_000,
};

/** Heartbeat intervals remembered; the bound follows the longest of them. */
const INTERVAL_WINDOW = 5;

/**
 * The silence bound of a stream: 3 × the heartbeat interval observed so far, clamped. The
 * longest recent interval is used so that a heartbeat sent right after a reconnect (a short
 * interval) does not make the watchdog trip on the next regular one.
 */
export class HeartbeatEstimator {
  private readonly intervals: number[] = [];
  private lastBeatAt: number | null = null;

  constructor(private readonly bounds: WatchdogBounds) {}

  /** A new connection: the gap across a reconnect is not a heartbeat interval. */
  connectionStarted(): void {
    this.lastBeatAt = null;
  }

  /** A heartbeat arrived at monotonic time `at` (ms). Returns true when the bound changed. */
  beat(at: number): boolean {
    const before = this.boundMs;
    if (this.lastBeatAt !== null) {
      this.intervals.push(Math.max(0, at - this.lastBeatAt));
      if (this.intervals.length > INTERVAL_WINDOW) this.intervals.shift();
    }
    this.lastBeatAt = at;
    return this.boundMs !== before;
  }

  /** The observed heartbeat interval (longest recent one), or null before two heartbeats. */
  get intervalMs(): number | null {
    return this.intervals.length === 0 ? null : Math.max(...this.intervals);
  }

  get boundMs(): number {
    const interval = this.intervalMs;
    const { floorMs, ceilingMs, initialMs } = this.bounds;
    const raw = interval === null ? initialMs : 3 * interval;
    return Math.min(ceilingMs, Math.max(floorMs, raw));
  }
}

/**
 * Fires `onSilence` when no activity was recorded for `boundMs()`. Activity is recorded with
 * a timestamp only (no timer churn per chunk); the single timer re-arms itself for the
 * remaining time when it finds there was activity meanwhile. The timer is unref'd: the
 * socket it guards is what keeps the process alive.
 */
export class SilenceWatchdog {
  private timer: NodeJS.Timeout | null = null;
  private lastActivity = performance.now();

  constructor(
    private readonly boundMs: () => number,
    private readonly onSilence: (silentMs: number) => void,
  ) {}

  start(): void {
    this.lastActivity = performance.now();
    this.arm(this.boundMs());
  }

  activity(): void {
    this.lastActivity = performance.now();
  }

  /** The bound changed: re-arm so a shorter bound takes effect now, not after the old one. */
  reschedule(): void {
    if (this.timer === null) return;
    this.check();
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(ms: number): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.check(), Math.max(1, ms));
    this.timer.unref();
  }

  private check(): void {
    const silent = performance.now() - this.lastActivity;
    const bound = this.boundMs();
    if (silent >= bound) {
      this.stop();
      this.onSilence(silent);
      return;
    }
    this.arm(bound - silent);
  }
}
