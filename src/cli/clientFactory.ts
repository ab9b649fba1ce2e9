import { ApiClient } from "../client/apiClient.js";
import type { OrganizationSource, RouteStore } from "../client/routes.js";

/**
 * The one place a client of the service is made, for the UI, every headless command, login and
 * the sign-in screen: the connection, the organization options and the retry tuning from the
 * environment, applied the same way everywhere. Each client owns its transport and so its
 * request budget (a budget belongs to a client and its base URL; nothing is shared through
 * module state): everything one command or one UI run asks goes through the client made here.
 */

/** Retry and timeout tuning (read from the environment by context.ts) (documented in the README). */
export interface Tuning {
  backoffBaseMs?: number;
  maxAttempts?: number;
  timeoutMs?: number;
}

export interface ClientTarget {
  baseUrl: string;
  apiKey: string;
  organizationId?: string | null;
  organizationFrom?: OrganizationSource | null;
  /** Without organizationId, send an organization key's own organization (the CLI's way). */
  keyOrganization?: boolean;
}

export interface ClientSettings {
  /** Retries, backoff and timeout (AGENT_SESSIONS_RETRY_BASE_MS, …). */
  tuning?: Tuning;
  /** Ends whatever the client still has in flight (a reader gone, the UI quitting). */
  signal?: AbortSignal;
  /** Where what the client learns about the service (its mount, git's path) is kept. */
  routeStore?: RouteStore;
}

export function createClient(target: ClientTarget, settings: ClientSettings = {}): ApiClient {
  const tuning = settings.tuning ?? {};
  return new ApiClient({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    ...(target.organizationId ? { organizationId: target.organizationId } : {}),
    ...(target.organizationId && target.organizationFrom
      ? { organizationFrom: target.organizationFrom }
      : {}),
    ...(target.keyOrganization ? { keyOrganization: true } : {}),
    ...(settings.signal ? { signal: settings.signal } : {}),
    ...(settings.routeStore ? { routeStore: settings.routeStore } : {}),
    ...(tuning.backoffBaseMs !== undefined ? { backoffBaseMs: tuning.backoffBaseMs } : {}),
    ...(tuning.maxAttempts !== undefined ? { maxAttempts: tuning.maxAttempts } : {}),
    ...(tuning.timeoutMs !== undefined ? { timeoutMs: tuning.timeoutMs } : {}),
  });
}
