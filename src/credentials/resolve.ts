import type { OrganizationSource } from "../client/routes.js";
import { isLoopbackHost } from "../protocol/loopback.js";
import {
  ConfigFileError,
  CredentialsUsageError,
  MissingBaseUrlError,
  NoCredentialsError,
  NoSuchProfileError,
} from "./errors.js";
import { readInsecureKey } from "./insecureFile.js";
import { type KeychainOptions, keychainAccount, keychainGet, keychainName } from "./keychain.js";
import {
  normalizeBaseUrl,
  originOfBaseUrl,
  type Profile,
  type ProfilesConfig,
  readConfig,
  selectProfile,
} from "./profiles.js";

export type KeySource = "env" | "keychain" | "insecure-file";

export interface ResolvedCredentials {
  profile: string;
  baseUrl: string;
  /** Sent as X-Organization-Id: --org, AGENT_SESSIONS_ORG, or the profile's; null for none. */
  organizationId: string | null;
  /** Where organizationId came from (null when none was given). */
  organizationFrom: OrganizationSource | null;
  apiKey: string;
  source: KeySource;
  /** Lines for stderr, without a "warning:" prefix (plain-text storage, plain http, …). */
  warnings: string[];
}

export interface ResolveOptions {
  profile?: string;
  baseUrl?: string;
  /** --org: wins over AGENT_SESSIONS_ORG and the profile's organization. */
  org?: string;
  env?: NodeJS.ProcessEnv;
  keychain?: Omit<KeychainOptions, "env">;
}

export interface ResolvedTarget {
  profile: string;
  baseUrl: string;
  organizationId: string | null;
  organizationFrom: OrganizationSource | null;
  config: ProfilesConfig;
  /** The profile's entry in the config file, if it has one. */
  stored: Profile | undefined;
  /** Lines for stderr, without a "warning:" prefix (a profiles file that was ignored). */
  warnings: string[];
  /**
   * The profile was named by the user (option, environment or the file's default), so a
   * missing one is "no such profile" rather than "not logged in yet". Null for the built-in
   * "default".
   */
  namedBy: string | null;
}

/** AGENT_SESSIONS_API_KEY when it is set to anything but blanks. */
function keyFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const v = env.AGENT_SESSIONS_API_KEY;
  return v !== undefined && v.trim() !== "" ? v : undefined;
}

/**
 * The profiles file, except that a broken one does not stop a run that needs nothing from it:
 * when the base URL and the key both come from outside it, it is ignored with a warning.
 */
async function readConfigFor(
  opts: ResolveOptions,
  env: NodeJS.ProcessEnv,
  warnings: string[],
): Promise<ProfilesConfig> {
  try {
    return await readConfig(env);
  } catch (e) {
    const baseUrlGiven = Boolean(opts.baseUrl || env.AGENT_SESSIONS_BASE_URL);
    if (!(e instanceof ConfigFileError) || !baseUrlGiven || keyFromEnv(env) === undefined) throw e;
    warnings.push(
      `ignoring the profiles file (${e.message}); the base URL and AGENT_SESSIONS_API_KEY come from outside it. ${e.hint}`,
    );
    return { default_profile: null, profiles: {} };
  }
}

function profileNamedBy(
  config: ProfilesConfig,
  requested: string | undefined,
  env: NodeJS.ProcessEnv,
): string | null {
  if (requested) return "--profile";
  if (env.AGENT_SESSIONS_PROFILE) return "AGENT_SESSIONS_PROFILE";
  if (config.default_profile) return "the default_profile of the profiles file";
  return null;
}

/**
 * Which profile and base URL a command talks to. Profile: option, AGENT_SESSIONS_PROFILE,
 * the configured default, "default". Base URL: option, AGENT_SESSIONS_BASE_URL, the
 * profile's; there is no built-in default service, so none of them is an error.
 */
export async function resolveTarget(opts: ResolveOptions = {}): Promise<ResolvedTarget> {
  const env = opts.env ?? process.env;
  const warnings: string[] = [];
  const config = await readConfigFor(opts, env, warnings);
  const profile = selectProfile(config, opts.profile, env);
  const stored = Object.hasOwn(config.profiles, profile) ? config.profiles[profile] : undefined;
  const namedBy = profileNamedBy(config, opts.profile, env);
  const raw = opts.baseUrl || env.AGENT_SESSIONS_BASE_URL || stored?.base_url;
  if (!raw) {
    if (namedBy !== null && stored === undefined) {
      throw new NoSuchProfileError(profile, Object.keys(config.profiles).sort(), namedBy);
    }
    throw new MissingBaseUrlError(profile);
  }
  const org = opts.org ?? (env.AGENT_SESSIONS_ORG || undefined) ?? stored?.organization_id;
  const from: OrganizationSource =
    opts.org !== undefined
      ? "--org"
      : env.AGENT_SESSIONS_ORG
        ? "AGENT_SESSIONS_ORG"
        : "the profile";
  const organizationId = org === undefined ? null : checkOrganizationId(org, from);
  return {
    profile,
    baseUrl: normalizeBaseUrl(raw),
    organizationId,
    organizationFrom: organizationId === null ? null : from,
    config,
    stored,
    warnings,
    namedBy,
  };
}

/**
 * An organization id goes into a request header on every call: printable ASCII without
 * spaces, at most 200 characters, or it is refused here rather than failing obscurely later.
 */
export function checkOrganizationId(id: string, from: string): string {
  const v = id.trim();
  if (v === "" || v.length > 200 || !/^[\x21-\x7e]+$/.test(v)) {
    throw new CredentialsUsageError(
      `the organization id from ${from} is not usable: it must be 1-200 printable characters without spaces`,
      "Give the organization's id as the service shows it, e.g. org_abc123.",
    );
  }
  return v;
}

/** A warning when the key would cross the network unencrypted. */
export function plainHttpWarning(baseUrl: string): string | null {
  const url = new URL(baseUrl);
  if (url.protocol !== "http:" || isLoopbackHost(url.hostname)) return null;
  return `${url.origin} is plain http: the API key crosses the network unencrypted`;
}

/**
 * A key may be sent as an HTTP header only if it is printable ASCII without spaces; anything
 * else is a paste accident (a newline, a quote) that would fail obscurely later.
 */
export function checkKeyShape(apiKey: string, from: string): string {
  const key = apiKey.trim();
  if (key === "") {
    throw new CredentialsUsageError(
      `the API key from ${from} is empty`,
      "Paste the key itself (it is never shown).",
    );
  }
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new CredentialsUsageError(
      `the API key from ${from} contains spaces, control or non-ASCII characters`,
      "Paste only the key, on one line.",
    );
  }
  return key;
}

/**
 * The base URL and key a command uses. AGENT_SESSIONS_API_KEY wins over the stored key; a
 * stored key is only handed out for the origin it was verified against.
 */
export async function resolveCredentials(opts: ResolveOptions = {}): Promise<ResolvedCredentials> {
  const env = opts.env ?? process.env;
  const { profile, baseUrl, organizationId, organizationFrom, stored, config, namedBy, warnings } =
    await resolveTarget(opts);
  const http = plainHttpWarning(baseUrl);
  if (http) warnings.push(http);

  // What was resolved, with the key and where it came from.
  const found = (apiKey: string, source: "env" | "insecure-file" | "keychain") => ({
    profile,
    baseUrl,
    organizationId,
    organizationFrom,
    apiKey,
    source,
    warnings,
  });

  const fromEnv = keyFromEnv(env);
  if (fromEnv !== undefined) {
    return found(checkKeyShape(fromEnv, "AGENT_SESSIONS_API_KEY"), "env");
  }

  if (stored === undefined && namedBy !== null) {
    throw new NoSuchProfileError(profile, Object.keys(config.profiles).sort(), namedBy);
  }
  if (!stored?.storage) {
    throw new NoCredentialsError(
      `no API key for profile ${profile}: run \`agent-sessions login\` or set AGENT_SESSIONS_API_KEY`,
      profile,
    );
  }
  const storedOrigin = originOfBaseUrl(stored.base_url);
  const wantedOrigin = originOfBaseUrl(baseUrl);
  if (storedOrigin !== wantedOrigin) {
    throw new NoCredentialsError(
      `the key stored for profile ${profile} belongs to ${storedOrigin}; it is not sent to ${wantedOrigin}`,
      profile,
      `Log in for ${wantedOrigin} under its own profile (agent-sessions login --profile NAME --base-url URL), or set AGENT_SESSIONS_API_KEY.`,
    );
  }

  if (stored.storage === "insecure-file") {
    const fromFile = await readInsecureKey(profile, env);
    if (!fromFile) {
      throw new NoCredentialsError(
        `no API key for profile ${profile}: its plain-text key file is gone; run \`agent-sessions login\` or set AGENT_SESSIONS_API_KEY`,
        profile,
      );
    }
    warnings.push(...fromFile.warnings);
    return found(fromFile.apiKey, "insecure-file");
  }

  const apiKey = await keychainGet(keychainAccount(profile, stored.base_url), {
    ...opts.keychain,
    env,
  });
  if (apiKey === null) {
    throw new NoCredentialsError(
      `no API key for profile ${profile} in the ${keychainName()}: run \`agent-sessions login\` or set AGENT_SESSIONS_API_KEY`,
      profile,
    );
  }
  return found(apiKey, "keychain");
}
