/**
 * Errors of the credentials layer. They have the same shape as the client's typed errors
 * (message, stable exit code, one-line hint) so the CLI prints both the same way, but do not
 * import them: credentials sits beside the client, not above it. Messages never hold a key.
 */

/** The two ways out when no keychain can be used, named in every such error. */
export const KEYCHAIN_REMEDIES =
  "Set AGENT_SESSIONS_API_KEY for this shell, or run `agent-sessions login --insecure-storage` to keep the key in a plain-text file (mode 0600).";

export abstract class CredentialsError extends Error {
  abstract readonly code: string;
  abstract readonly exitCode: number;
  abstract readonly hint: string;
}

/** No key for the selected profile (nothing stored and no AGENT_SESSIONS_API_KEY). */
export class NoCredentialsError extends CredentialsError {
  readonly code: string = "no_credentials";
  readonly exitCode: number = 3;
  readonly hint: string;
  constructor(
    message: string,
    readonly profile: string,
    hint?: string,
  ) {
    super(message);
    this.name = "NoCredentialsError";
    this.hint =
      hint ??
      "Run `agent-sessions login` (add --profile to pick one) or set AGENT_SESSIONS_API_KEY.";
  }
}

/**
 * A profile was asked for by name (--profile, AGENT_SESSIONS_PROFILE) but the profiles file
 * has no such profile. A kind of NoCredentialsError, so the terminal UI offers its login
 * screen (which creates the profile) where the CLI says what exists.
 */
export class NoSuchProfileError extends NoCredentialsError {
  override readonly code = "no_such_profile";
  override readonly exitCode = 2;
  constructor(
    profile: string,
    readonly known: string[],
    from: string,
  ) {
    const list = known.length > 0 ? `profiles: ${known.join(", ")}` : "there are no profiles yet";
    const create = `agent-sessions login --profile ${profile} --base-url URL`;
    super(
      `no such profile ${profile} (from ${from}); ${list}`,
      profile,
      known.length > 0
        ? `Pick one of them (agent-sessions profiles), or create ${profile} with \`${create}\`.`
        : `Create it with \`${create}\`.`,
    );
    this.name = "NoSuchProfileError";
  }
}

/** The OS keychain cannot be used: no session bus, no Secret Service, locked, or it hung. */
export class KeychainUnavailableError extends CredentialsError {
  readonly code = "keychain_unavailable";
  readonly exitCode = 1;
  readonly hint = KEYCHAIN_REMEDIES;
  constructor(
    /** What went wrong, without the "keychain unavailable" preamble. */
    readonly reason: string,
  ) {
    super(`the OS keychain is unavailable: ${reason}`);
    this.name = "KeychainUnavailableError";
  }
}

/** No base URL is known for the profile; there is no built-in default service. */
export class MissingBaseUrlError extends CredentialsError {
  readonly code = "no_base_url";
  readonly exitCode = 2;
  readonly hint =
    "Pass --base-url URL, set AGENT_SESSIONS_BASE_URL, or log in once with `agent-sessions login --base-url URL`.";
  constructor(readonly profile: string) {
    super(`no base URL for profile ${profile}: there is no default service to talk to`);
    this.name = "MissingBaseUrlError";
  }
}

/** A profile name or base URL the user typed cannot be used. */
export class CredentialsUsageError extends CredentialsError {
  readonly code = "usage";
  readonly exitCode = 2;
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = "CredentialsUsageError";
  }
}

/** The config file exists but cannot be read, parsed or written. */
export class ConfigFileError extends CredentialsError {
  readonly code = "config_file";
  readonly exitCode = 1;
  readonly hint: string;
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = "ConfigFileError";
    this.hint = `Fix or remove ${path} (it holds profile names and base URLs, never a key).`;
  }
}

/** The plain-text key file exists but cannot be read or written. */
export class KeyFileError extends CredentialsError {
  readonly code = "key_file";
  readonly exitCode = 1;
  readonly hint: string;
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = "KeyFileError";
    this.hint = `Check the permissions of ${path}, or log in again.`;
  }
}
