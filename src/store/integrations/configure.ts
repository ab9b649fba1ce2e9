import { CONFIGURING_ROLES } from "../../protocol/integrations.js";
import type { ApiKeyInfo } from "../../protocol/resources.js";
import { hasScope, isRole, REQUIRED_SCOPES } from "../../protocol/scopes.js";

/**
 * Who may configure an integration from a terminal: an organization's admin or owner whose
 * key's effective scopes hold integrations:write. One decision for the CLI and the UI; the
 * service stays the authority (its 403 is shown whole when it disagrees).
 */

export const CONFIGURE_SCOPE = REQUIRED_SCOPES.updateLinearIntegration;

export interface ConfigureRefusal {
  /** What is missing: the role, or the scope. */
  missing: "role" | "scope";
  message: string;
  /** The scope it needs, when the scope is what is missing. */
  scope: string | null;
  hint: string;
}

/** Why this key may not configure integrations, or null when it may. */
export function configureRefusal(
  key: Pick<ApiKeyInfo, "role" | "effective_scopes">,
): ConfigureRefusal | null {
  const roles = CONFIGURING_ROLES.join(" or ");
  if (key.role === null || key.role === undefined) {
    return {
      missing: "role",
      message: `Configuring integrations needs an organization role (${roles}); this is a personal key`,
      scope: null,
      hint: `Use an organization key whose owner is ${roles}.`,
    };
  }
  if (!isRole(key.role) || !CONFIGURING_ROLES.includes(key.role)) {
    return {
      missing: "role",
      message: `Configuring integrations needs the role ${roles}; this key's owner is ${key.role}`,
      scope: null,
      hint: `Ask an ${roles} of the organization to change it, or to change your role.`,
    };
  }
  if (!hasScope(key.effective_scopes, CONFIGURE_SCOPE)) {
    return {
      missing: "scope",
      message: `Configuring integrations needs ${CONFIGURE_SCOPE}; the key's effective scopes lack it`,
      scope: CONFIGURE_SCOPE,
      hint: `Use a key whose effective scopes include ${CONFIGURE_SCOPE} (see agent-sessions whoami).`,
    };
  }
  return null;
}
