import { ApiClient } from "../../client/apiClient.js";
import { createActionsStore } from "../../store/actionsStore.js";
import { createIdentityStore } from "../../store/identityStore.js";
import { createRateLimitStore } from "../../store/rateLimitStore.js";
import { createSessionsStore } from "../../store/sessionsStore.js";
import { StreamsController } from "../../store/streamsController.js";
import { createStreamsStore } from "../../store/streamsStore.js";
import { maskKey } from "../../text/format.js";
import { keyRedactor } from "../../text/redact.js";
import type { AppServices } from "../../ui/services.js";
import type { Tuning } from "../context.js";

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
  opts: { scrollback?: number; tuning?: Tuning } = {},
): ServicesHandle {
  const tuning = opts.tuning ?? {};
  const client = new ApiClient({
    baseUrl: conn.baseUrl,
    apiKey: conn.apiKey,
    ...(tuning.backoffBaseMs !== undefined ? { backoffBaseMs: tuning.backoffBaseMs } : {}),
    ...(tuning.maxAttempts !== undefined ? { maxAttempts: tuning.maxAttempts } : {}),
    ...(tuning.timeoutMs !== undefined ? { timeoutMs: tuning.timeoutMs } : {}),
  });
  // Whatever the service sends, the key is hidden where it enters the stores (and again from
  // every frame, see frameGuard.ts).
  const { redact } = keyRedactor(conn.apiKey);
  const streams = createStreamsStore({ capacity: opts.scrollback ?? 5000, redact });
  const sessions = createSessionsStore(client, { redact });
  const controller = new StreamsController({
    config: { baseUrl: conn.baseUrl, apiKey: conn.apiKey },
    store: streams,
    sessions,
    ...(tuning.backoffBaseMs !== undefined
      ? { subscribeOptions: { backoffBaseMs: tuning.backoffBaseMs } }
      : {}),
  });
  const rateLimit = createRateLimitStore(client.rateLimit);
  const services: AppServices = {
    api: client,
    identity: createIdentityStore({ redact }),
    sessions,
    streams,
    streamControl: controller,
    actions: createActionsStore({ redact }),
    rateLimit,
    maskedKey: maskKey(conn.apiKey),
  };
  let disposed: Promise<void> | null = null;
  return {
    services,
    dispose() {
      disposed ??= (async () => {
        services.actions.getState().cancel();
        await controller.closeAll();
        streams.getState().dispose();
        rateLimit.dispose();
      })();
      return disposed;
    },
  };
}
