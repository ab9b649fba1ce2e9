/**
 * Scopes, legacy names and role ceilings. Shared by the reference service (which enforces
 * them) and the client (which explains them), so both sides agree on one table.
 *
 * The interface lists the scopes and says legacy names are "expanded" and that effective
 * scopes are limited by the owner's role ceiling; the exact expansion and ceilings are not
 * shown, so these tables are this project's documented choice (see docs/reference-service.md).
 */

export const MODERN_SCOPES = [
  "sessions:read",
  "sessions:write",
  "sessions:prompt",
  "sessions:terminal",
  "integrations:read",
  "integrations:write",
] as const;
export type ModernScope = (typeof MODERN_SCOPES)[number];

export const LEGACY_SCOPES = ["read", "deploy", "delete", "admin"] as const;
export type LegacyScope = (typeof LEGACY_SCOPES)[number];

export const ROLES = ["owner", "admin", "member"] as const;
export type Role = (typeof ROLES)[number];

/** What each legacy name stands for once expanded. */
export const LEGACY_EXPANSION: Readonly<Record<LegacyScope, readonly ModernScope[]>> = {
  read: ["sessions:read", "integrations:read"],
  deploy: ["sessions:read", "sessions:write", "sessions:prompt"],
  delete: ["sessions:write"],
  admin: [...MODERN_SCOPES],
};

/** The most a role may exercise, whatever its keys store. */
export const ROLE_CEILINGS: Readonly<Record<Role, readonly ModernScope[]>> = {
  owner: [...MODERN_SCOPES],
  admin: [...MODERN_SCOPES],
  member: ["sessions:read", "sessions:write", "sessions:prompt", "integrations:read"],
};

/** The scope each call needs (our reference service's choice where the interface is silent). */
export const REQUIRED_SCOPES = {
  verify: null,
  me: null,
  listSessions: "sessions:read",
  getSession: "sessions:read",
  sessionHistory: "sessions:read",
  events: "sessions:prompt",
  gitClone: "sessions:write",
  gitOperation: "sessions:write",
  // The real service documents these (prompt.mdx, prompt-cancel.mdx, approvals-*.mdx,
  // lifecycle.mdx).
  sendPrompt: "sessions:prompt",
  cancelPrompt: "sessions:prompt",
  listApprovals: "sessions:read",
  resolveApproval: "sessions:write",
  pause: "sessions:write",
  resume: "sessions:write",
  start: "sessions:write",
  githubInstallations: "integrations:read",
  githubRepos: "integrations:read",
  githubUserToken: "integrations:read",
  linearIntegrations: "integrations:read",
  slackIntegration: "integrations:read",
  updateLinearIntegration: "integrations:write",
  // Review and take home (files-*.mdx, workspace-state.mdx, prompt-rewind.mdx, v2-connect.mdx);
  // git status, diff and log are gitOperation (git-operation.mdx: sessions:write).
  listFiles: "sessions:read",
  readFile: "sessions:read",
  searchFiles: "sessions:read",
  workspaceState: "sessions:read",
  rewindPrompt: "sessions:write",
  connectPort: "sessions:write",
} as const satisfies Record<string, ModernScope | null>;

export function isLegacyScope(s: string): s is LegacyScope {
  return (LEGACY_SCOPES as readonly string[]).includes(s);
}

export function isRole(s: unknown): s is Role {
  return typeof s === "string" && (ROLES as readonly string[]).includes(s);
}

/** Stored scopes with legacy names replaced by what they stand for; order kept, no repeats. */
export function expandScopes(stored: readonly string[]): string[] {
  const out = new Set<string>();
  for (const s of stored) {
    if (isLegacyScope(s)) for (const m of LEGACY_EXPANSION[s]) out.add(m);
    else out.add(s);
  }
  return [...out];
}

/** Expanded stored scopes limited by the role's ceiling; a personal key (role null) has none. */
export function effectiveScopes(stored: readonly string[], role: Role | null): string[] {
  const expanded = expandScopes(stored);
  if (role === null) return expanded;
  const ceiling = new Set<string>(ROLE_CEILINGS[role]);
  return expanded.filter((s) => ceiling.has(s));
}

/** Scopes the stored set grants (once expanded) that the effective set does not: what the role took away. */
export function narrowedScopes(stored: readonly string[], effective: readonly string[]): string[] {
  const eff = new Set(effective);
  return expandScopes(stored).filter((s) => !eff.has(s));
}

export function hasScope(effective: readonly string[], needed: string | null): boolean {
  return needed === null || effective.includes(needed);
}
