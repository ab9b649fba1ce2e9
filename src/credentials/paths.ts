import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/**
 * Where our files live: `$XDG_CONFIG_HOME/agent-sessions/`, else `~/.config/agent-sessions/`.
 * The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
 */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), ".config");
  return join(base, "agent-sessions");
}

/**
 * Where our state lives (the journal): `$XDG_STATE_HOME/agent-sessions/`, else
 * `~/.local/state/agent-sessions/`; a relative XDG_STATE_HOME is ignored, as for config.
 */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), ".local", "state");
  return join(base, "agent-sessions");
}

/** The profiles file: names, base URLs, the default profile and where each key is kept. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), "config.json");
}

/** Folder of the plain-text key files (only used after `login --insecure-storage`). */
export function insecureKeyDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), "credentials");
}

/** The plain-text key file of one profile. Profile names are validated to be file-name safe. */
export function insecureKeyPath(profile: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(insecureKeyDir(env), `${profile}.key`);
}

/**
 * Where what we learn about services is cached (their routes, a key's organization):
 * `$XDG_CACHE_HOME/agent-sessions/`, else `~/.cache/agent-sessions/`; a relative
 * XDG_CACHE_HOME is ignored, as for config.
 */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), ".cache");
  return join(base, "agent-sessions");
}
