import { ApiClient } from "../../client/apiClient.js";
import { createActionsStore } from "../../store/actionsStore.js";
import type { JournalStatusStore } from "../../store/history/journal.js";
import { createIdentityStore } from "../../store/identityStore.js";
import { createRateLimitStore } from "../../store/rateLimitStore.js";
import { createSessionsStore } from "../../store/sessionsStore.js";
import { StreamsController } from "../../store/streamsController.js";
import { createStreamsStore } from "../../store/streamsStore.js";
import { maskKey } from "../../text/format.js";
import type { AppServices } from "../../ui/services.js";
import type { Tuning } from "../context.js";
import type { FileJournal } from "../journal/fileJournal.js";

export interface ServicesHandle {
  services: AppServices;
  /** Closes every stream and store subscription; safe to call twice. */
  dispose(): Promise<void>;
}

/**
 * Everything the UI is given for one verified key: the client, the stores and the stream
 * controller. Network and session logic live here and below, never in components.
 */
export function buildServices(
  conn: { baseUrl: string; apiKey: string },
  opts: {
    scrollback?: number;
    tuning?: Tuning;
    /** The journal panes show first and record into; absent or null: none. */
    journal?: FileJournal | null;
    /** What the UI says about the journal (on, off, failed). */
    journalStatus?: JournalStatusStore;
  } = {},
): ServicesHandle {
  const scrollback = opts.scrollback ?? 5000;
  const journal = opts.journal ?? null;
  const tuning = opts.tuning ?? {};
  const client = new ApiClient({
    baseUrl: conn.baseUrl,
    apiKey: conn.apiKey,
    ...(tuning.backoffBaseMs !== undefined ? { backoffBaseMs: tuning.backoffBaseMs } : {}),
    ...(tuning.maxAttempts !== undefined ? { maxAttempts: tuning.maxAttempts } : {}),
    ...(tuning.timeoutMs !== undefined ? { timeoutMs: tuning.timeoutMs } : {}),
  });
  const streams = createStreamsStore({ capacity: scrollback });
  const sessions = createSessionsStore(client);
  const controller = new StreamsController({
    config: { baseUrl: conn.baseUrl, apiKey: conn.apiKey },
    store: streams,
    sessions,
    // Never more history than the scrollback holds.
    history: scrollback,
    ...(journal ? { journal } : {}),
    ...(tuning.backoffBaseMs !== undefined
      ? { subscribeOptions: { backoffBaseMs: tuning.backoffBaseMs } }
      : {}),
  });
  const rateLimit = createRateLimitStore(client.rateLimit);
  const services: AppServices = {
    api: client,
    identity: createIdentityStore(),
    sessions,
    streams,
    streamControl: controller,
    actions: createActionsStore(),
    rateLimit,
    maskedKey: maskKey(conn.apiKey),
    ...(opts.journalStatus ? { journal: opts.journalStatus } : {}),
  };
  let disposed: Promise<void> | null = null;
  return {
    services,
    dispose() {
      disposed ??= (async () => {
        services.actions.getState().cancel();
        await controller.closeAll();
        await journal?.dispose();
        streams.getState().dispose();
        rateLimit.dispose();
      })();
      return disposed;
    },
  };
}
