import { readFile } from "node:fs/promises";
import * as z from "../protocol/schema.js";
import { ConfigFileError, CredentialsUsageError } from "./errors.js";
import { configPath } from "./paths.js";
import { writePrivateFileAtomic } from "./privateFile.js";

/**
 * The profiles file (`config.json`, mode 0600): profile names, their base URLs, the default
 * profile and where each profile's key is kept. It never holds a key. Fields we do not know
 * are kept on rewrite, so a newer version's settings survive an older one's login.
 */

export const STORAGE_KINDS = ["keychain", "insecure-file"] as const;
export type StorageKind = (typeof STORAGE_KINDS)[number];

const ProfileSchema = z.looseObject({
  base_url: z.string(),
  /** Absent once logged out: the profile keeps its base URL but has no stored key. */
  storage: z.optional(z.enum(STORAGE_KINDS)),
  /** Organization the profile's requests are scoped to (sent as X-Organization-Id). */
  organization_id: z.optional(z.string()),
});
export type Profile = z.infer<typeof ProfileSchema>;

const ConfigSchema = z.looseObject({
  default_profile: z._default(z.nullable(z.string()), null),
  profiles: z._default(z.record(z.string(), ProfileSchema), {}),
});
export type ProfilesConfig = z.infer<typeof ConfigSchema>;

export const DEFAULT_PROFILE = "default";

// Profile names become file names (credentials/<name>.key) and keychain accounts.
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function validateProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new CredentialsUsageError(
      `invalid profile name ${JSON.stringify(name.slice(0, 80))}`,
      "Use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit.",
    );
  }
  return name;
}

/**
 * A base URL as we store and compare it: http(s) only, no user info, query or fragment, no
 * trailing slash. A path prefix is kept (the interface paths are appended to it).
 */
export function normalizeBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new CredentialsUsageError(
      `invalid base URL ${JSON.stringify(raw.slice(0, 200))}`,
      "Give a full URL such as https://agents.example.com.",
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CredentialsUsageError(
      `invalid base URL: ${url.protocol} is not http: or https:`,
      "Give a full URL such as https://agents.example.com.",
    );
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new CredentialsUsageError(
      "invalid base URL: user info, query and fragment are not allowed",
      "Give only scheme, host, port and an optional path prefix.",
    );
  }
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.origin}${path}`;
}

/** The origin a stored key belongs to; it is never sent anywhere else. */
export function originOfBaseUrl(baseUrl: string): string {
  return new URL(baseUrl).origin;
}

/** The profiles file, or an empty configuration when there is none yet. */
export async function readConfig(env: NodeJS.ProcessEnv = process.env): Promise<ProfilesConfig> {
  const path = configPath(env);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") {
      return { default_profile: null, profiles: {} };
    }
    throw new ConfigFileError(`cannot read ${path}: ${(e as Error).message}`, path);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigFileError(`${path} is not valid JSON`, path);
  }
  const parsed = ConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? issue.path.join(".") || "(top level)" : "(top level)";
    throw new ConfigFileError(`${path} has an unexpected shape at ${where}`, path);
  }
  return parsed.data;
}

export async function writeConfig(
  config: ProfilesConfig,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const path = configPath(env);
  try {
    await writePrivateFileAtomic(path, `${JSON.stringify(config, null, 2)}\n`);
  } catch (e) {
    throw new ConfigFileError(`cannot write ${path}: ${(e as Error).message}`, path);
  }
}

/** Read, change, write back. */
export async function updateConfig(
  change: (config: ProfilesConfig) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ProfilesConfig> {
  const config = await readConfig(env);
  change(config);
  await writeConfig(config, env);
  return config;
}

/**
 * The profile a command uses: the one asked for, else AGENT_SESSIONS_PROFILE, else the
 * configured default, else "default".
 */
export function selectProfile(
  config: ProfilesConfig,
  requested: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const name = requested || env.AGENT_SESSIONS_PROFILE || config.default_profile || DEFAULT_PROFILE;
  return validateProfileName(name);
}
