import { MissingScopeError } from "../../client/errors.js";
import {
  type StreamStatus,
  type SubscribeOptions,
  type Subscription,
  subscribeToSession,
} from "../../client/eventStream.js";
import type { ConnectionConfig, Transport } from "../../client/transport.js";
import type { LogSequence } from "../history/historyOverlap.js";
import { AHEAD_WAIT_MS, HeldItems } from "./heldItems.js";
import {
  type AdmissionOptions,
  BURST_IDLE_MS,
  type LiveMode,
  StreamAdmission,
} from "./streamAdmission.js";

/**
 * One session's event stream: the subscription (its connection, reconnects and watchdog live
 * in the SSE client) and what its statuses mean here. With a mode, what it sends is admitted
 * at once (streamAdmission.ts); with none it is held (heldItems.ts) until the history is read
 * and `release` says how to read it. Released before it is live, after a history, it holds
 * again from when it goes live until its first burst is compared with the history's end (a
 * server that sends recent events on open, or resumes from an older event id, sends them
 * again). A stream refused for want of sessions:prompt hands the session over to following
 * its record.
 */

export interface LiveStreamOptions extends AdmissionOptions {
  config: ConnectionConfig;
  /** The API client's transport: streams share its budget and publish their waits there. */
  transport?: Transport;
  /** Passed through to every subscription. */
  subscribeOptions?: Pick<
    SubscribeOptions,
    | "maxEventBytes"
    | "backoffBaseMs"
    | "maxDelayMs"
    | "maxAttempts"
    | "watchdog"
    | "headersTimeoutMs"
  >;
  /** Injected in tests; defaults to the real SSE client. */
  subscribe?: (opts: SubscribeOptions) => Subscription;
}

/** The history just drawn, as the stream's first burst is compared with it. */
export interface HistoryEnd {
  log: LogSequence;
  /** Its last entry's time, when it has one (showHistory's newestAt). */
  newestAt: number | null;
}

/** What the stream asks of whoever keeps the session's subscriptions. */
export interface LiveStreamHooks {
  /** Where the stream resumes (the last event id seen), or null. */
  lastEventId: string | null;
  /** True while `sub` is the session's open subscription. */
  isCurrent(sub: Subscription): boolean;
  /** The subscription stopped: let go of it (keeping its resume point). */
  forget(sub: Subscription): void;
  /** The key cannot have live events: follow the session's record instead. */
  follow(): void;
}

/**
 * Longest a pane waits for its stream to be live before reading the history anyway (a stream
 * paced by the request budget, or one that cannot connect); then it says what may be lost.
 */
const HISTORY_WAIT_MS = 3000;

export class LiveStream {
  readonly sub: Subscription;
  /** Resolves once the stream is live, failed or stopped, or after HISTORY_WAIT_MS (held). */
  readonly ready: Promise<void>;
  readonly #opts: LiveStreamOptions;
  readonly #hooks: LiveStreamHooks;
  readonly #admit: StreamAdmission;
  #sub: Subscription | null = null;
  #held: HeldItems | null;
  /**
   * Released after a history before the stream sent anything: its first burst is held again
   * (in `#held`) until compared with the history.
   */
  #late: {
    history: LogSequence;
    /** How long after going live its first item is waited for. */
    firstWithinMs: number;
    settling?: boolean;
  } | null = null;
  #heldFollow = false;
  #live = false;
  #liveAt: number | null = null;
  /** The server's clock when the stream went live (its `Date`), if it said. */
  #liveServerAt: number | null = null;
  #readOnly = false;
  #stopped = false;
  #resolveReady: () => void = () => {};

  constructor(
    opts: LiveStreamOptions,
    sessionId: string,
    mode: LiveMode | null,
    hooks: LiveStreamHooks,
  ) {
    this.#opts = opts;
    this.#hooks = hooks;
    this.#admit = new StreamAdmission(opts, sessionId, () => this.#sub);
    this.#held = mode === null ? new HeldItems() : null;
    this.ready = new Promise<void>((resolve) => {
      this.#resolveReady = resolve;
    });
    if (mode === null) {
      const waitTimer = setTimeout(() => this.#resolveReady(), HISTORY_WAIT_MS);
      waitTimer.unref?.();
      void this.ready.then(() => clearTimeout(waitTimer));
    } else this.#admit.setMode(mode);
    const subscribe = opts.subscribe ?? subscribeToSession;
    this.#sub = subscribe({
      ...opts.subscribeOptions,
      config: opts.config,
      ...(opts.transport ? { transport: opts.transport } : {}),
      sessionId,
      lastEventId: hooks.lastEventId,
      onComment: (text) => {
        if (this.#held) this.#held.push({ kind: "comment", text });
        else this.#admit.comment(text);
      },
      onItem: (event, data, id, at) => {
        if (this.#held) this.#held.push({ kind: "item", event, data, id, at });
        else this.#admit.item(event, data, id, at);
      },
      onEvent: (ev) => {
        if (this.#held) this.#held.push({ kind: "event", ev });
        else this.#admit.event(ev);
      },
      onNotice: (notice) => {
        if (this.#held) this.#held.push({ kind: "notice", notice });
        else this.#admit.notice(notice);
      },
      onStatus: (status) => this.#status(status),
    });
    this.sub = this.#sub;
  }

  /** Whether the stream is live now. */
  live(): boolean {
    return this.#live;
  }

  /**
   * Drops the held items the history already holds, once the stream has sent what the history
   * holds after them (HeldItems.settle); returns how many, heartbeats aside.
   */
  settle(history: LogSequence): Promise<number> {
    return this.#held ? this.#held.settle(history, this.#opts.journal?.clean) : Promise.resolve(0);
  }

  /**
   * Admits what was held, read as the mode says, and what comes from now on. With the history
   * just shown and nothing from the stream yet, its first burst is held again until compared
   * with the history's end: from going live when it is not live yet, for BURST_IDLE_MS after
   * going live when it went live only just now, and for AHEAD_WAIT_MS when it has been live
   * longer and may lag (#mayLag; only its first burst: what comes after a pause is news).
   * The history and its divider are not kept waiting for it.
   */
  release(mode: LiveMode, past?: HistoryEnd): void {
    const held = this.#held;
    if (!held) return;
    this.#held = null;
    this.#admit.setMode(mode);
    const sent = held.hasItems();
    held.drainInto(this.#admit);
    if (this.#heldFollow) {
      this.#hooks.follow();
      return;
    }
    const since = this.#live && this.#liveAt !== null ? this.#now() - this.#liveAt : 0;
    // Live for a while and silent: a stream behind the service's record (one that polls it)
    // may still send what the history just showed, unless the history's newest entry is
    // older than the stream by the server's own clock.
    const lagging = this.#live && since >= BURST_IDLE_MS;
    const history = past?.log;
    if (history && !sent && !this.#stopped && (!lagging || this.#mayLag(past.newestAt))) {
      // Its first burst in AHEAD_WAIT_MS is compared with the history too; it is live
      // already, and said so at once.
      const firstWithinMs = lagging ? AHEAD_WAIT_MS : BURST_IDLE_MS - since;
      this.#late = { history, firstWithinMs };
      this.#held = new HeldItems({ statusesPass: true });
      if (lagging) this.#admit.live(this.#liveAt ?? this.#now());
      if (this.#live) void this.#settleLate();
      return;
    }
    if (this.#live) this.#admit.live(this.#liveAt ?? this.#now());
  }

  /**
   * Whether a stream live since before the history was read may yet send the history's
   * newest entry: not when that entry is older than the stream's opening, both by the
   * server's clock (the entry's time, the stream's `Date`, to the second); yes when either
   * is unknown.
   */
  #mayLag(newestAt: number | null): boolean {
    return newestAt === null || this.#liveServerAt === null || newestAt >= this.#liveServerAt;
  }

  /**
   * The late hold's end: once the stream is live (or stopped), its first burst is compared with
   * the history; what the history holds is dropped, the rest admitted. When the stream reached
   * back into the history, nothing fell between them.
   */
  async #settleLate(): Promise<void> {
    const late = this.#late;
    const held = this.#held;
    if (!late || !held || late.settling) return;
    late.settling = true;
    const dropped = await held.settle(late.history, this.#opts.journal?.clean, {
      firstWithinMs: this.#stopped ? 0 : late.firstWithinMs,
    });
    if (this.#late !== late) return;
    if (dropped > 0) this.#admit.closeGap();
    // What may be missing is said above what came after it.
    if (this.#live) this.#admit.live(this.#liveAt ?? this.#now());
    this.#endLate();
  }

  /** Ends the late hold: what it holds is admitted as it is. */
  #endLate(): void {
    const held = this.#held;
    if (!this.#late || !held) return;
    this.#late = null;
    this.#held = null;
    held.drainInto(this.#admit);
  }

  #now(): number {
    return (this.#opts.now ?? Date.now)();
  }

  #status(status: StreamStatus): void {
    const sub = this.#sub;
    if (status.state === "stopped" && needsPromptScope(status.error)) this.#readOnly = true;
    if (status.state === "reconnecting" || status.state === "stopped") this.#admit.endHistory();
    if (status.state !== "connecting") this.#resolveReady();
    if (status.state === "stopped") {
      this.#stopped = true;
      this.#held?.stop();
    }
    if (this.#readOnly) {
      // The key cannot have live events: the record is followed instead, said once (after
      // the history, when the stream was held for it).
      if (sub && this.#hooks.isCurrent(sub)) {
        this.#hooks.forget(sub);
        // Held again after the history (never live): nothing of it to compare, the record next.
        if (this.#late) this.#endLate();
        if (this.#held) this.#heldFollow = true;
        else this.#hooks.follow();
      }
      return;
    }
    if (status.state === "live") {
      this.#live = true;
      this.#liveAt = this.#now();
      this.#liveServerAt = status.serverTime ?? null;
      if (!this.#held) this.#admit.live(this.#liveAt);
    } else if (status.state !== "connecting") this.#live = false;
    const meta = sub
      ? {
          lastEventId: sub.lastEventId,
          heartbeatIntervalMs: sub.heartbeatIntervalMs,
          watchdogMs: sub.watchdogMs,
        }
      : undefined;
    if (this.#held?.holdsStatus(status)) this.#held.push({ kind: "status", status, meta });
    else this.#admit.status(status, meta);
    if (this.#late && (status.state === "live" || status.state === "stopped")) {
      void this.#settleLate();
    }
    if (status.state === "stopped" && sub && this.#hooks.isCurrent(sub)) this.#hooks.forget(sub);
  }
}

/** A stream refused for want of sessions:prompt (a 403 naming it). */
function needsPromptScope(error: unknown): boolean {
  if (!(error instanceof MissingScopeError)) return false;
  return error.requiredScope === "sessions:prompt" || error.message.includes("sessions:prompt");
}
