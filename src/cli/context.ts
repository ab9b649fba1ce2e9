import type { Command } from "commander";
import type { ApiClient } from "../client/apiClient.js";
import type { RateLimitTracker, RetryWait } from "../client/rateLimit.js";
import type { OrganizationSource } from "../client/routes.js";
import { resolveCredentials } from "../credentials/resolve.js";
import { fileRouteStore } from "../credentials/routeCache.js";
import { formatDuration, formatSeconds } from "../text/format.js";
import { createClient, type Tuning } from "./clientFactory.js";
import { tuningFromEnv } from "./envTuning.js";
import { globalOptions } from "./globalOptions.js";
import { err, registerSecret, stdoutClosed } from "./output.js";

export interface CommandContext {
  tuning: Tuning;
  client: ApiClient;
  baseUrl: string;
  apiKey: string;
  /**
   * Sent as X-Organization-Id on every request and stream (--org, AGENT_SESSIONS_ORG, the
   * profile); null for none given, when an organization key's own organization is sent.
   */
  organizationId: string | null;
  organizationFrom: OrganizationSource | null;
  profile: string;
  source: "env" | "keychain" | "insecure-file";
}

/**
 * The organization options of every client the CLI makes: the one given and where it came
 * from, else the key's own (an organization key's organization_id from verify, remembered).
 */
export function orgOptions(c: {
  organizationId?: string | null;
  organizationFrom?: OrganizationSource | null;
}): { organizationId?: string; organizationFrom?: OrganizationSource; keyOrganization: true } {
  return {
    ...(c.organizationId ? { organizationId: c.organizationId } : {}),
    ...(c.organizationId && c.organizationFrom ? { organizationFrom: c.organizationFrom } : {}),
    keyOrganization: true,
  };
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
  const client = createClient(
    { baseUrl: creds.baseUrl, apiKey: creds.apiKey, ...orgOptions(creds) },
    // A reader that went away (`| head`) cancels whatever the command still had in flight;
    // what it learns about the service (its mount, git's path) is kept for the next run.
    { tuning, signal: stdoutClosed, routeStore: fileRouteStore() },
  );
  announceWaits(client.rateLimit);
  return {
    tuning,
    client,
    baseUrl: creds.baseUrl,
    apiKey: creds.apiKey,
    organizationId: creds.organizationId,
    organizationFrom: creds.organizationFrom,
    profile: creds.profile,
    source: creds.source,
  };
}

/**
 * Why a request waits, for how long, and what the server asked for: "rate limited (HTTP 429):
 * retrying in 60 s (attempt 2/5)", "connection reset: retrying in 2.0 s (attempt 2/5)". The
 * reason names the cause (see RetryCause), whichever it is: one line for every kind of wait.
 */
export function describeWait(w: RetryWait): string {
  const secs = formatSeconds(w.delayMs);
  if (w.cause.kind === "budget") return `${w.reason}: waiting ${secs}`;
  const asked =
    w.requestedMs !== undefined && w.requestedMs !== null && w.requestedMs > w.delayMs + 999
      ? `; the service asked for ${formatDuration(w.requestedMs)}, waiting at most ${secs}`
      : "";
  return `${w.reason}: retrying in ${secs} (attempt ${w.attempt}/${w.maxAttempts})${asked}`;
}

/**
 * A headless command that waits says so on stderr, once per wait, as the UI shows its
 * countdown: a script's user sees why nothing happens for a minute, and why (a rate limit, a
 * service error, a dropped connection), so a retried failure is never a silent pause.
 */
export function announceWaits(tracker: RateLimitTracker, now = Date.now): () => void {
  const told = new WeakSet<RetryWait>();
  // Pacing repeats on every page of a long listing: said again only when it grows, or after
  // a quiet while, so stderr tells of it without a line per request.
  let pacing: { at: number; delayMs: number } | null = null;
  return tracker.subscribe(() => {
    const w = tracker.waiting;
    if (w === null || told.has(w)) return;
    told.add(w);
    if (w.cause.kind === "budget") {
      const t = now();
      if (pacing && t - pacing.at < PACING_QUIET_MS && w.delayMs <= 2 * pacing.delayMs) return;
      pacing = { at: t, delayMs: w.delayMs };
    }
    err(describeWait(w));
  });
}

/** After this long without saying it, a pacing wait is said again. */
const PACING_QUIET_MS = 30_000;
