import { KeychainUnavailableError, NoSuchProfileError } from "./errors.js";
import { deleteInsecureKey, insecureKeyExists, writeInsecureKey } from "./insecureFile.js";
import {
  KEYCHAIN_SERVICE,
  type KeychainOptions,
  keychainAccount,
  keychainDelete,
  keychainName,
  keychainSet,
} from "./keychain.js";
import { insecureKeyPath } from "./paths.js";
import {
  normalizeBaseUrl,
  readConfig,
  type StorageKind,
  updateConfig,
  writeConfig,
} from "./profiles.js";

/**
 * Storing and removing a profile's key (what `login` and `logout` do once the key is
 * verified), and keeping the profiles file in step. The key is written before the profile,
 * so a failure leaves the profiles file as it was.
 */

export interface SaveOptions {
  profile: string;
  /** Normalised base URL the key was verified against. */
  baseUrl: string;
  apiKey: string;
  /** The user's explicit opt-in to a plain-text file. */
  insecureStorage?: boolean;
  /** Organization to remember for the profile; undefined keeps what it had. */
  organizationId?: string;
  env?: NodeJS.ProcessEnv;
  keychain?: Omit<KeychainOptions, "env">;
}

export interface SaveResult {
  storage: StorageKind;
  /** Where the key now is, for humans: the keychain entry or the file path. */
  location: string;
  /** The file path when stored in plain text. */
  path: string | null;
  /** The profile became the default (it was the first, or the default pointed nowhere). */
  madeDefault: boolean;
  /** Lines for stderr (plain-text storage, repaired permissions, leftovers not removed). */
  warnings: string[];
  /** What was cleaned up from an earlier login of the same profile. */
  removed: string[];
}

export function keychainLocation(
  profile: string,
  baseUrl: string,
  service = KEYCHAIN_SERVICE,
): string {
  return `${keychainName()} (service "${service}", account "${keychainAccount(profile, baseUrl)}")`;
}

export async function saveCredentials(opts: SaveOptions): Promise<SaveResult> {
  const env = opts.env ?? process.env;
  const kc: KeychainOptions = { ...opts.keychain, env };
  const baseUrl = normalizeBaseUrl(opts.baseUrl);
  // A broken profiles file should stop us before a key is stored anywhere.
  const config = await readConfig(env);
  const previous = Object.hasOwn(config.profiles, opts.profile)
    ? config.profiles[opts.profile]
    : undefined;
  const warnings: string[] = [];
  const removed: string[] = [];

  let storage: StorageKind;
  let location: string;
  let path: string | null = null;
  if (opts.insecureStorage) {
    const written = await writeInsecureKey(opts.profile, opts.apiKey, env);
    storage = "insecure-file";
    path = written.path;
    location = `plain-text file ${written.path}`;
    warnings.push(...written.warnings);
  } else {
    await keychainSet(keychainAccount(opts.profile, baseUrl), opts.apiKey, kc);
    storage = "keychain";
    location = keychainLocation(opts.profile, baseUrl, kc.service);
    // The key is safe in the keychain now; a plain-text copy must not outlive that.
    if (await deleteInsecureKey(opts.profile, env)) {
      removed.push(`plain-text file ${insecureKeyPath(opts.profile, env)}`);
    }
  }

  // An earlier keychain entry under another account (other origin, or now plain text) is
  // stale; removing it is best effort, because the new key is already stored.
  if (previous?.storage === "keychain") {
    const oldAccount = keychainAccount(opts.profile, previous.base_url);
    const newAccount = keychainAccount(opts.profile, baseUrl);
    if (storage !== "keychain" || oldAccount !== newAccount) {
      try {
        if (await keychainDelete(oldAccount, kc)) {
          removed.push(keychainLocation(opts.profile, previous.base_url, kc.service));
        }
      } catch (e) {
        const why = e instanceof KeychainUnavailableError ? e.reason : (e as Error).message;
        warnings.push(
          `the old keychain entry ${keychainLocation(opts.profile, previous.base_url, kc.service)} could not be removed: ${why}`,
        );
      }
    }
  }

  config.profiles[opts.profile] = {
    ...previous,
    base_url: baseUrl,
    storage,
    ...(opts.organizationId !== undefined ? { organization_id: opts.organizationId } : {}),
  };
  const defaultMissing =
    !config.default_profile || !Object.hasOwn(config.profiles, config.default_profile);
  if (defaultMissing) config.default_profile = opts.profile;
  await writeConfig(config, env);
  return { storage, location, path, madeDefault: defaultMissing, warnings, removed };
}

export interface RemoveOptions {
  profile: string;
  env?: NodeJS.ProcessEnv;
  keychain?: Omit<KeychainOptions, "env">;
}

export interface RemoveResult {
  /** Descriptions of what was removed; empty when nothing was stored. */
  removed: string[];
  /** The profile is in the profiles file (its base URL stays there after logout). */
  known: boolean;
}

/**
 * Removes the profile's stored key from wherever it is. The profile itself (name, base URL)
 * stays so the next login needs no --base-url. A keychain that cannot be reached is an
 * error: the key may still be in it.
 */
export async function removeCredentials(opts: RemoveOptions): Promise<RemoveResult> {
  const env = opts.env ?? process.env;
  const config = await readConfig(env);
  const entry = Object.hasOwn(config.profiles, opts.profile)
    ? config.profiles[opts.profile]
    : undefined;
  const removed: string[] = [];

  if (await deleteInsecureKey(opts.profile, env)) {
    removed.push(`plain-text file ${insecureKeyPath(opts.profile, env)}`);
  }
  if (entry?.storage === "keychain") {
    const kc: KeychainOptions = { ...opts.keychain, env };
    if (await keychainDelete(keychainAccount(opts.profile, entry.base_url), kc)) {
      removed.push(keychainLocation(opts.profile, entry.base_url, kc.service));
    }
  }
  if (entry?.storage) {
    delete entry.storage;
    await writeConfig(config, env);
  }
  return { removed, known: entry !== undefined };
}

/** Makes an existing profile the default one; returns the previous default. */
export async function setDefaultProfile(
  profile: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ previous: string | null }> {
  let previous: string | null = null;
  await updateConfig((config) => {
    if (!Object.hasOwn(config.profiles, profile)) {
      throw new NoSuchProfileError(
        profile,
        Object.keys(config.profiles).sort(),
        "the command line",
      );
    }
    previous = config.default_profile;
    config.default_profile = profile;
  }, env);
  return { previous };
}

export interface DeleteResult {
  /** Where its key was removed from (keychain entry, plain-text file); may be empty. */
  removed: string[];
  /** It was the default profile; there is no default now. */
  wasDefault: boolean;
}

/**
 * Deletes a profile: its stored key first (keychain and plain-text file), then its entry in
 * the profiles file. A keychain that cannot be reached stops it before the entry goes, so the
 * key is never left behind without a profile pointing at it.
 */
export async function deleteProfile(opts: RemoveOptions): Promise<DeleteResult> {
  const env = opts.env ?? process.env;
  const config = await readConfig(env);
  if (!Object.hasOwn(config.profiles, opts.profile)) {
    throw new NoSuchProfileError(
      opts.profile,
      Object.keys(config.profiles).sort(),
      "the command line",
    );
  }
  const { removed } = await removeCredentials(opts);
  let wasDefault = false;
  await updateConfig((c) => {
    delete c.profiles[opts.profile];
    if (c.default_profile === opts.profile) {
      c.default_profile = null;
      wasDefault = true;
    }
  }, env);
  return { removed, wasDefault };
}

export interface ProfileListing {
  name: string;
  isDefault: boolean;
  /** The profile a command would use now (AGENT_SESSIONS_PROFILE, else the default). */
  isActive: boolean;
  baseUrl: string;
  storage: StorageKind | null;
  /** Keychain entry or file path; null when no key is stored. */
  location: string | null;
  /** AGENT_SESSIONS_API_KEY is set, so it is used instead of this profile's stored key. */
  envOverride: boolean;
}

/** Every profile as recorded in the profiles file (the keychain itself is not queried). */
export async function listProfiles(env: NodeJS.ProcessEnv = process.env): Promise<{
  profiles: ProfileListing[];
  defaultProfile: string | null;
  activeProfile: string;
  envOverride: boolean;
}> {
  const config = await readConfig(env);
  const envOverride = (env.AGENT_SESSIONS_API_KEY ?? "").trim() !== "";
  const activeProfile = env.AGENT_SESSIONS_PROFILE || config.default_profile || "default";
  const profiles: ProfileListing[] = [];
  for (const [name, p] of Object.entries(config.profiles).sort(([a], [b]) => a.localeCompare(b))) {
    let location: string | null = null;
    if (p.storage === "keychain") location = keychainLocation(name, p.base_url);
    else if (p.storage === "insecure-file") {
      location = (await insecureKeyExists(name, env))
        ? insecureKeyPath(name, env)
        : `${insecureKeyPath(name, env)} (missing)`;
    }
    profiles.push({
      name,
      isDefault: name === config.default_profile,
      isActive: name === activeProfile,
      baseUrl: p.base_url,
      storage: p.storage ?? null,
      location,
      envOverride,
    });
  }
  return { profiles, defaultProfile: config.default_profile, activeProfile, envOverride };
}
