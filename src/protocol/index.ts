export * from "./errors.js";
export * from "./events.js";
export * from "./git.js";
export * from "./history.js";
export * from "./rateLimit.js";
export * from "./resources.js";
export * from "./scopes.js";
export * from "./states.js";

import { GIT_PATHS } from "./git.js";

/** Paths of the interface, in one place for client and server. */
export const PATHS = {
  verify: "/api/cloud/auth/verify",
  me: "/api/v1/me",
  sessions: "/api/sessions",
  session: (id: string) => `/api/sessions/${encodeURIComponent(id)}`,
  events: (id: string) => `/api/cloud/sessions/${encodeURIComponent(id)}/events`,
  eventsAlt: (id: string) => `/api/sessions/${encodeURIComponent(id)}/events`,
  gitClone: GIT_PATHS.clone,
  gitCloneDocumented: GIT_PATHS.cloneDocumented,
  gitOperation: GIT_PATHS.operation,
  gitOperationDocumented: GIT_PATHS.operationDocumented,
} as const;
