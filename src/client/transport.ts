// undici's index loads all of undici (fetch, WebSocket, cache stores, mocks) and touches
// globalThis.Headers, which makes Node load its own copy of undici as well: together about a
// tenth of the start-up time. The client needs the Agent and the request API only, so it
// imports those files and adds the API to the dispatchers as the index does.
import type { Agent, Dispatcher } from "undici";
import dispatcherApi from "undici/lib/api/index.js";
import AgentClass from "undici/lib/dispatcher/agent.js";
import DispatcherClass from "undici/lib/dispatcher/dispatcher.js";
import { USER_AGENT } from "../version.js";

/** Where to talk to and as whom. The key lives only here and in request headers. */
export interface ConnectionConfig {
  baseUrl: string;
  apiKey: string;
  userAgent?: string;
  /** Sent as X-Organization-Id on every request and stream: scopes calls to that organization. */
  organizationId?: string;
  /** One keep-alive Agent per process; tests may pass their own. */
  dispatcher?: Dispatcher;
}

Object.assign(DispatcherClass.prototype, dispatcherApi);

let sharedAgent: Agent | null = null;

/** The process-wide keep-alive Agent (created on first use). */
export function defaultAgent(): Agent {
  if (!sharedAgent) {
    sharedAgent = new AgentClass({
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 60_000,
      // Every open event stream holds a connection of its own (HTTP/1.1): the cap must stay
      // above the number of streams a fleet opens, or the streams past it wait forever.
      connections: 1024,
    });
  }
  return sharedAgent;
}

/** Close the shared Agent so the process can exit promptly. */
export async function closeDefaultAgent(): Promise<void> {
  const a = sharedAgent;
  sharedAgent = null;
  if (a) await a.close();
}

/** Normalised origin of a base URL (no trailing slash, no path kept for the origin check). */
export function originOf(baseUrl: string): string {
  return new URL(baseUrl).origin;
}

/**
 * Absolute URL for an interface path under the base URL. A base URL may carry a path prefix
 * (https://host/prefix); the interface paths are appended to it.
 */
export function resolveUrl(baseUrl: string, path: string): URL {
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, "");
  return new URL(`${prefix}${path}`, base.origin);
}

/** Headers every request carries. */
export function baseHeaders(cfg: ConnectionConfig): Record<string, string> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${cfg.apiKey}`,
    "user-agent": cfg.userAgent ?? USER_AGENT,
  };
  if (cfg.organizationId) headers["x-organization-id"] = cfg.organizationId;
  return headers;
}
