import type { Command } from "commander";
import { ApiClient } from "../client/apiClient.js";
import type { RetryWait } from "../client/rateLimit.js";
import { resolveCredentials } from "../credentials/resolve.js";
import { err, registerSecret } from "./output.js";

/** Options every networked command accepts (set on the root program). */
export interface GlobalOptions {
  baseUrl?: string;
  profile?: string;
  org?: string;
  /** false with --no-journal. */
  journal?: boolean;
}

/** Retry and timeout tuning from the environment (documented in the README). */
export interface Tuning {
  backoffBaseMs?: number;
  maxAttempts?: number;
  timeoutMs?: number;
}

function envNumber(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) {
    err(`warning: ignoring ${name}=${JSON.stringify(raw)}: not a non-negative number`);
    return undefined;
  }
  return n;
}

export function tuningFromEnv(): Tuning {
  return {
    backoffBaseMs: envNumber("AGENT_SESSIONS_RETRY_BASE_MS"),
    maxAttempts: envNumber("AGENT_SESSIONS_MAX_ATTEMPTS"),
    timeoutMs: envNumber("AGENT_SESSIONS_TIMEOUT_MS"),
  };
}

export interface CommandContext {
  tuning: Tuning;
  client: ApiClient;
  baseUrl: string;
  apiKey: string;
  /** Sent as X-Organization-Id on every request and stream; null for none. */
  organizationId: string | null;
  profile: string;
  source: "env" | "keychain" | "insecure-file";
}

/**
 * Says on stderr why a request waits and for how long, so a retried failure is never a silent
 * pause ("retrying in 2.0 s (attempt 2/5): connection reset").
 */
function reportRetries(client: ApiClient): void {
  let last: RetryWait | null = null;
  client.rateLimit.subscribe(() => {
    const w = client.rateLimit.waiting;
    if (w === null || w === last) return;
    last = w;
    err(
      `${w.reason}: retrying in ${(w.delayMs / 1000).toFixed(1)} s (attempt ${w.attempt}/${w.maxAttempts})`,
    );
  });
}

/** The root program's options, whichever subcommand is running. */
export function globalOptions(cmd: Command): GlobalOptions {
  let root: Command = cmd;
  while (root.parent) root = root.parent;
  return root.opts<GlobalOptions>();
}

/**
 * Resolves the base URL and key (env var over stored key) and builds the one client the
 * command uses. Warnings (plain-text storage) go to stderr on every use.
 */
export async function commandContext(cmd: Command): Promise<CommandContext> {
  const g = globalOptions(cmd);
  const creds = await resolveCredentials({ profile: g.profile, baseUrl: g.baseUrl, org: g.org });
  registerSecret(creds.apiKey);
  for (const w of creds.warnings) err(`warning: ${w}`);
  const tuning = tuningFromEnv();
  const client = new ApiClient({
    baseUrl: creds.baseUrl,
    apiKey: creds.apiKey,
    ...(creds.organizationId !== null ? { organizationId: creds.organizationId } : {}),
    ...(tuning.backoffBaseMs !== undefined ? { backoffBaseMs: tuning.backoffBaseMs } : {}),
    ...(tuning.maxAttempts !== undefined ? { maxAttempts: tuning.maxAttempts } : {}),
    ...(tuning.timeoutMs !== undefined ? { timeoutMs: tuning.timeoutMs } : {}),
  });
  reportRetries(client);
  return {
    tuning,
    client,
    baseUrl: creds.baseUrl,
    apiKey: creds.apiKey,
    organizationId: creds.organizationId,
    profile: creds.profile,
    source: creds.source,
  };
}
