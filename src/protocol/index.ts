export * from "./approvals.js";
export * from "./errors.js";
export * from "./eventNames.js";
export * from "./events.js";
export * from "./git.js";
export * from "./gitReview.js";
export * from "./history.js";
export * from "./ids.js";
export * from "./integrations.js";
export * from "./launchLimit.js";
export * from "./prompt.js";
export * from "./rateLimit.js";
export * from "./resources.js";
export * from "./review.js";
export * from "./scopes.js";
export * from "./sessionRecord.js";
export * from "./states.js";
export * from "./unifiedDiff.js";
export * from "./values.js";

import { GIT_PATHS } from "./git.js";
import { pathSegment } from "./ids.js";

/**
 * Paths of the interface, in one place for client and server. An id that could leave its
 * path segment (see ids.ts) throws instead of making a path.
 */
export const PATHS = {
  verify: "/api/cloud/auth/verify",
  me: "/api/v1/me",
  sessions: "/api/sessions",
  session: (id: string) => `/api/sessions/${pathSegment(id)}`,
  events: (id: string) => `/api/cloud/sessions/${pathSegment(id)}/events`,
  eventsAlt: (id: string) => `/api/sessions/${pathSegment(id)}/events`,
  /** The documented history of a session (the real service's; see history.ts). */
  sessionHistory: (id: string) => `/api/sessions/${pathSegment(id)}/history`,
  prompt: (id: string) => `/api/sessions/${pathSegment(id)}/prompt`,
  promptCancel: (id: string) => `/api/sessions/${pathSegment(id)}/prompt/cancel`,
  approvals: (id: string) => `/api/sessions/${pathSegment(id)}/approvals`,
  resolveApproval: (id: string, approvalId: string) =>
    `/api/sessions/${pathSegment(id)}/approvals/${pathSegment(approvalId)}/resolve`,
  lifecycle: (id: string, action: "pause" | "resume" | "start") =>
    `/api/sessions/${pathSegment(id)}/${action}`,
  gitClone: GIT_PATHS.clone,
  gitCloneDocumented: GIT_PATHS.cloneDocumented,
  gitOperation: GIT_PATHS.operation,
  gitOperationDocumented: GIT_PATHS.operationDocumented,
} as const;
