import type { OrganizationSource } from "../../client/routes.js";
import type { KeychainOptions } from "../../credentials/keychain.js";
import { saveCredentials } from "../../credentials/store.js";
import type { KeyStorage } from "../../ui/model/login.js";
import type { AppServices } from "../../ui/model/services.js";
import { createClient } from "../clientFactory.js";

/**
 * The login screen's sign-in, as the terminal UI does it: the service verifies the key, then
 * it is kept where the user chose (the keychain; this run only, in memory; or the plain-text
 * file, with the same warning as `login --insecure-storage`), and the services are built for
 * it. A key that cannot go to the keychain rejects with the keychain's error, so the screen
 * can offer the other two places.
 */

export interface SignInTarget {
  profile: string;
  baseUrl: string;
  organizationId: string | null;
  organizationFrom: OrganizationSource | null;
}

export interface SignInOptions {
  target: SignInTarget;
  /** Builds the services for a verified key. */
  open(conn: {
    baseUrl: string;
    apiKey: string;
    organizationId: string | null;
    organizationFrom: OrganizationSource | null;
    keyOrganization: true;
  }): Promise<AppServices>;
  /** A line for stderr once the UI has ended (where a plain-text key now is). */
  warn(line: string): void;
  /** A secret the output must never show. */
  secret(key: string): void;
  env?: NodeJS.ProcessEnv;
  keychain?: Omit<KeychainOptions, "env">;
}

export function signIn(
  opts: SignInOptions,
): (key: string, storage: KeyStorage) => Promise<AppServices> {
  const { target } = opts;
  return async (key, storage) => {
    opts.secret(key);
    const org = target.organizationId;
    const client = createClient({ baseUrl: target.baseUrl, apiKey: key, organizationId: org });
    // Only the key is checked here: the UI's own client is built below.
    await client.verify().finally(() => client.close());
    if (storage !== "memory") {
      const saved = await saveCredentials({
        profile: target.profile,
        baseUrl: target.baseUrl,
        apiKey: key,
        insecureStorage: storage === "insecure-file",
        ...(opts.env ? { env: opts.env } : {}),
        ...(opts.keychain ? { keychain: opts.keychain } : {}),
      });
      for (const w of saved.warnings) opts.warn(w);
    }
    return opts.open({
      baseUrl: target.baseUrl,
      apiKey: key,
      organizationId: org,
      organizationFrom: target.organizationFrom,
      keyOrganization: true,
    });
  };
}
