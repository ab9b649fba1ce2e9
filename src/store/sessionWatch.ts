import type { ApiClient } from "../client/apiClient.js";
import type { ConnectionConfig } from "../client/transport.js";
import { noRedaction, type RedactFn } from "../text/redact.js";
import {
  type ApprovalsBook,
  awaitingSourcesOf,
  createApprovalsBook,
  followAwaiting,
} from "./approvals/approvalsBook.js";
import { type AttentionStore, createAttentionStore } from "./attention/attentionStore.js";
import type { AttentionConfig } from "./attention/reasons.js";
import { LiveList, type LiveListOptions } from "./liveList.js";
import { createSessionsStore, type SessionsStore } from "./sessionsStore.js";
import { StreamsController, type StreamsControllerOptions } from "./streams/streamsController.js";
import { createStreamsStore, type StreamsStore } from "./streams/streamsStore.js";

/**
 * The chain every live view of the sessions stands on, built once here for the UI and for the
 * headless `attention` (and `watch --attention`): the catalogue (one reader of the list, one
 * map of records), the per-session streams and their controller, the live list (when the
 * catalogue is read again), and the attention queue over them. Everything reads through the
 * one client given, so through its one request budget.
 */

export interface SessionWatch {
  sessions: SessionsStore;
  streams: StreamsStore;
  controller: StreamsController;
  live: LiveList;
  /** The one approvals book, read only for the sessions that await one. */
  approvals: ApprovalsBook;
  attention: AttentionStore;
  /** Stops the live list, the queue and every stream; safe to call twice. */
  dispose(): Promise<void>;
}

export interface SessionWatchOptions {
  client: Pick<ApiClient, "listSessions" | "getSession" | "listApprovals" | "transport">;
  /** Where streams connect (the client's connection). */
  config: ConnectionConfig;
  redact?: RedactFn;
  /** Entries kept per session stream. */
  capacity: number;
  /** Sessions asked for per page. */
  pageSize?: number;
  /** The views show destroyed and error sessions from the start. */
  includeDestroyed?: boolean;
  /** Told of a list read that failed, as thrown. */
  onReadError?: (e: unknown) => void;
  /** The live list's settings (its cadence, when the window counts as idle). */
  live?: Pick<LiveListOptions, "baseMs" | "idleAfterMs">;
  /** The stream controller's other settings. */
  streams?: Omit<
    StreamsControllerOptions,
    "config" | "transport" | "store" | "sessions" | "onStateChange"
  >;
  /** Which attention reasons notify and show. */
  attention?: AttentionConfig;
  /** When the user last looked at a session, across restarts (the journal's). */
  lastSeen?: (sessionId: string) => number | null;
  onSeen?: (sessionId: string, at: number) => void;
}

export function createSessionWatch(o: SessionWatchOptions): SessionWatch {
  const redact = o.redact ?? noRedaction;
  const sessions = createSessionsStore(o.client, {
    redact,
    ...(o.pageSize !== undefined ? { pageSize: o.pageSize } : {}),
    ...(o.includeDestroyed ? { includeDestroyed: true } : {}),
    ...(o.onReadError ? { onReadError: o.onReadError } : {}),
  });
  const streams = createStreamsStore({ capacity: o.capacity, redact });
  const live = new LiveList({ sessions, budget: o.client.transport.budget, ...o.live });
  const controller = new StreamsController({
    ...o.streams,
    config: o.config,
    transport: o.client.transport,
    store: streams,
    sessions,
    // A state change on one stream: the others may have changed too, read the list soon.
    onStateChange: () => live.poke("state"),
  });
  // Read for the sessions whose record (or stream) says the agent awaits one; the panes, the
  // keys and the attention queue all read it.
  const approvals = createApprovalsBook({ api: o.client, redact });
  const offAwaiting = followAwaiting(approvals, awaitingSourcesOf({ sessions, streams }));
  const attention = createAttentionStore({
    sessions,
    streams,
    approvals,
    ...(o.attention ? { config: o.attention } : {}),
    ...(o.lastSeen ? { lastSeen: o.lastSeen } : {}),
    ...(o.onSeen ? { onSeen: o.onSeen } : {}),
  });
  let disposed: Promise<void> | null = null;
  return {
    sessions,
    streams,
    controller,
    live,
    approvals,
    attention,
    dispose() {
      disposed ??= (async () => {
        live.stop();
        offAwaiting();
        approvals.dispose();
        attention.dispose();
        await controller.closeAll();
        streams.getState().dispose();
      })();
      return disposed;
    },
  };
}
