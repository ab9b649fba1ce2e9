import {
  type StreamStatus,
  type SubscribeOptions,
  type Subscription,
  subscribeToSession,
} from "../../client/eventStream.js";
import type { ConnectionConfig } from "../../client/transport.js";
import type { SessionEvent } from "../../protocol/events.js";
import type { SessionsStore } from "../sessionsStore.js";
import type { StreamsState, StreamsStore } from "./streamsStore.js";

/**
 * Opens and closes session streams and pours what they deliver into the streams store. Plain
 * TypeScript, no React: the panes only select from the store.
 */

export interface StreamsControllerOptions {
  config: ConnectionConfig;
  store: StreamsStore;
  /** When given, a session's live state_changed also updates its row in the list. */
  sessions?: SessionsStore;
  /** Told of every state change a stream brings (the live list refreshes soon after one). */
  onStateChange?: (sessionId: string, state: string) => void;
  /** Sees every SSE item as it arrives, before the store (the fleet's per-session activity). */
  onItem?: (sessionId: string, event: string | undefined, data: string, at: number) => void;
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

export interface CloseOptions {
  /** Keep the session's scrollback in the store (the slice shows "stopped"). Default false. */
  keep?: boolean;
}

export class StreamsController {
  readonly #opts: StreamsControllerOptions;
  readonly #subs = new Map<string, Subscription>();
  /** Resume points of streams closed earlier, so reopening continues where it stopped. */
  readonly #resume = new Map<string, string>();

  constructor(opts: StreamsControllerOptions) {
    this.#opts = opts;
  }

  /** Ids with a subscription that has not stopped. */
  get openIds(): string[] {
    return [...this.#subs.keys()];
  }

  isOpen(sessionId: string): boolean {
    return this.#subs.has(sessionId);
  }

  subscription(sessionId: string): Subscription | undefined {
    return this.#subs.get(sessionId);
  }

  /**
   * Start streaming a session (no-op when already streaming). A session streamed before, or
   * whose slice is still in the store, resumes from its last event id.
   */
  openStream(sessionId: string): void {
    if (this.#subs.has(sessionId)) return;
    const { store, config } = this.#opts;
    const state = store.getState();
    state.ensure(sessionId, { state: "connecting", attempt: 0 });
    const lastEventId =
      store.getState().sessions[sessionId]?.lastEventId ?? this.#resume.get(sessionId) ?? null;
    const subscribe = this.#opts.subscribe ?? subscribeToSession;
    let sub: Subscription | null = null;
    const sessions = this.#opts.sessions;
    const afterEvent = (s: StreamsState, ev: SessionEvent) => {
      if (ev.kind === "heartbeat" && sub) {
        s.pushMeta(sessionId, {
          lastActivityAt: sub.lastActivityAt,
          heartbeatIntervalMs: sub.heartbeatIntervalMs,
          watchdogMs: sub.watchdogMs,
        });
      } else if (ev.kind === "state_changed") {
        sessions?.getState().patchSession(sessionId, { state: ev.data.state });
        this.#opts.onStateChange?.(sessionId, ev.data.state);
      }
    };
    sub = subscribe({
      ...this.#opts.subscribeOptions,
      config,
      sessionId,
      lastEventId,
      // Items go to the store undecoded: it decodes only what a pane will show, and returns
      // the events it decoded at once (heartbeats, state changes among them).
      onItem: (event, data, id, at) => {
        this.#opts.onItem?.(sessionId, event, data, at);
        const s = store.getState();
        const ev = s.pushItem(sessionId, event, data, id, at);
        if (ev !== null) afterEvent(s, ev);
      },
      onEvent: (ev) => {
        const s = store.getState();
        s.pushEvent(sessionId, ev);
        afterEvent(s, ev);
      },
      onNotice: (notice) => {
        store.getState().pushNotice(sessionId, notice);
        // Events may be missing: the record says what state the session is in now.
        if (notice.kind === "gap" && sessions) void this.#reread(sessionId, sessions);
      },
      onStatus: (status: StreamStatus) => {
        store.getState().pushStatus(
          sessionId,
          status,
          sub
            ? {
                lastEventId: sub.lastEventId,
                heartbeatIntervalMs: sub.heartbeatIntervalMs,
                watchdogMs: sub.watchdogMs,
              }
            : undefined,
        );
        if (status.state === "stopped" && sub && this.#subs.get(sessionId) === sub) {
          this.#forget(sessionId, sub);
        }
      },
    });
    this.#subs.set(sessionId, sub);
  }

  /** Stop streaming a session and, unless `keep`, drop its slice from the store. */
  closeStream(sessionId: string, opts: CloseOptions = {}): void {
    const sub = this.#subs.get(sessionId);
    if (sub) {
      this.#forget(sessionId, sub);
      sub.close();
    }
    if (!opts.keep) {
      const state = this.#opts.store.getState();
      const last = state.sessions[sessionId]?.lastEventId;
      if (last) this.#resume.set(sessionId, last);
      state.remove(sessionId);
    }
  }

  /** Close every stream and wait until each has stopped; slices are kept for a last look. */
  async closeAll(): Promise<void> {
    const subs = [...this.#subs.entries()];
    for (const [id, sub] of subs) {
      this.#forget(id, sub);
      sub.close();
    }
    await Promise.all(subs.map(([, sub]) => sub.done));
    this.#opts.store.getState().flushNow();
  }

  async #reread(sessionId: string, sessions: SessionsStore): Promise<void> {
    const record = await sessions.getState().refreshSession(sessionId);
    const state = typeof record?.state === "string" ? record.state : null;
    if (state !== null) this.#opts.store.getState().pushMeta(sessionId, { sessionState: state });
  }

  #forget(sessionId: string, sub: Subscription): void {
    if (this.#subs.get(sessionId) !== sub) return;
    this.#subs.delete(sessionId);
    if (sub.lastEventId) this.#resume.set(sessionId, sub.lastEventId);
  }
}
