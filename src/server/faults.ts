/**
 * Fault injection: switches that make the reference service misbehave the way real networks
 * and proxies do, so the client's resilience can be tested and demonstrated.
 */

export interface FaultSettings {
  /** End each SSE response after N id-carrying events sent on it (then the client reconnects). */
  dropAfter: number | null;
  /** SSE: send headers (and nothing else, no heartbeats) then silence. */
  stall: boolean;
  /** Answer every request (incl. SSE) with this status (500/502/503/429) ... */
  failStatus: number | null;
  /** ... for this many requests (Infinity allowed) ... */
  failCount: number;
  /** ... with this Retry-After header value when status is 429 (or 503). */
  failRetryAfter: string | null;
  /** Every Nth simulated event has invalid JSON data. */
  malformedEvery: number | null;
  /** Every Nth simulated event is a data line of oversizedBytes with no terminator soon. */
  oversizedEvery: number | null;
  oversizedBytes: number;
  /** process_output text includes ANSI/OSC/BEL/C1 escape sequences, hostile ones included. */
  escapes: boolean;
  lineEnding: "lf" | "crlf" | "cr";
  /** Interleave ": comment" lines between and inside events. */
  comments: boolean;
  /** Send a `retry: N` field at stream start. */
  retryMs: number | null;
  /** Targeted failure: requests whose path matches answer with status, count times. */
  statusFor: { path: RegExp; status: number; count: number } | null;
  /** SSE without `id:` lines, as the real service documents its stream. */
  noEventIds: boolean;
  /** SSE: replay every kept event on every connection, whatever Last-Event-ID says. */
  ignoreLastEventId: boolean;
}

export interface FaultControl {
  set(patch: Partial<FaultSettings>): void;
  get(): FaultSettings;
  reset(): void;
}

export const DEFAULT_OVERSIZED_BYTES = 2 * 1024 * 1024;

export function defaultFaults(): FaultSettings {
  return {
    dropAfter: null,
    stall: false,
    failStatus: null,
    failCount: 0,
    failRetryAfter: null,
    malformedEvery: null,
    oversizedEvery: null,
    oversizedBytes: DEFAULT_OVERSIZED_BYTES,
    escapes: false,
    lineEnding: "lf",
    comments: false,
    retryMs: null,
    statusFor: null,
    noEventIds: false,
    ignoreLastEventId: false,
  };
}

function positiveOrNull(v: number | null, name: string): void {
  if (v !== null && !(Number.isInteger(v) && v >= 1)) {
    throw new RangeError(`${name} must be a positive integer or null`);
  }
}

function validate(f: FaultSettings): void {
  positiveOrNull(f.dropAfter, "dropAfter");
  positiveOrNull(f.malformedEvery, "malformedEvery");
  positiveOrNull(f.oversizedEvery, "oversizedEvery");
  if (f.failStatus !== null && !(Number.isInteger(f.failStatus) && f.failStatus >= 200)) {
    throw new RangeError("failStatus must be an HTTP status code or null");
  }
  if (!(f.failCount >= 0)) throw new RangeError("failCount must be >= 0");
  if (!(Number.isInteger(f.oversizedBytes) && f.oversizedBytes >= 1)) {
    throw new RangeError("oversizedBytes must be a positive integer");
  }
  if (!["lf", "crlf", "cr"].includes(f.lineEnding)) {
    throw new RangeError("lineEnding must be lf, crlf or cr");
  }
  if (f.retryMs !== null && !(Number.isInteger(f.retryMs) && f.retryMs >= 0)) {
    throw new RangeError("retryMs must be a non-negative integer or null");
  }
}

/** The mutable fault state plus the per-request decision that consumes the failure counters. */
export class Faults implements FaultControl {
  private current: FaultSettings;

  constructor(initial?: Partial<FaultSettings>) {
    this.current = { ...defaultFaults(), ...initial };
    validate(this.current);
  }

  set(patch: Partial<FaultSettings>): void {
    const next = { ...this.current, ...patch };
    validate(next);
    this.current = next;
  }

  get(): FaultSettings {
    return this.current;
  }

  reset(): void {
    this.current = defaultFaults();
  }

  /**
   * The status a request must be answered with instead of being served, or null. Each call
   * that returns a status uses up one of the configured failures.
   */
  takeInjectedStatus(pathname: string): { status: number; retryAfter: string | null } | null {
    const f = this.current;
    // A /g or /y pattern keeps lastIndex between test() calls; start each match afresh.
    if (f.statusFor) f.statusFor.path.lastIndex = 0;
    if (f.statusFor && f.statusFor.count > 0 && f.statusFor.path.test(pathname)) {
      const status = f.statusFor.status;
      this.current = { ...f, statusFor: { ...f.statusFor, count: f.statusFor.count - 1 } };
      return { status, retryAfter: retryAfterFor(status, f.failRetryAfter) };
    }
    if (f.failStatus !== null && f.failCount > 0) {
      this.current = { ...f, failCount: f.failCount - 1 };
      return { status: f.failStatus, retryAfter: retryAfterFor(f.failStatus, f.failRetryAfter) };
    }
    return null;
  }
}

function retryAfterFor(status: number, value: string | null): string | null {
  return status === 429 || status === 503 ? value : null;
}

/** Line terminator of the SSE wire format for a setting. */
export function lineTerminator(ending: FaultSettings["lineEnding"]): string {
  return ending === "crlf" ? "\r\n" : ending === "cr" ? "\r" : "\n";
}
