import type { Tuning } from "./clientFactory.js";
import { err } from "./output.js";

/**
 * The client's and the UI's settings from the environment (documented in the README). Apart
 * from the client (clientFactory's types only), so that the UI reads them before its first
 * frame without loading the client.
 */

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

/** The UI's own settings from the environment (documented in the README). */
export interface UiTuning {
  /** Most streams the fleet view keeps open (AGENT_SESSIONS_FLEET_STREAMS). */
  fleetStreams?: number;
  /** The live list's normal cadence in ms (AGENT_SESSIONS_REFRESH_MS). */
  refreshMs?: number;
}

export function uiTuningFromEnv(): UiTuning {
  const refresh = envNumber("AGENT_SESSIONS_REFRESH_MS");
  return {
    fleetStreams: envNumber("AGENT_SESSIONS_FLEET_STREAMS"),
    // Below a second a list refresh would be most of what the budget allows.
    refreshMs: refresh === undefined ? undefined : Math.max(1000, refresh),
  };
}

export function tuningFromEnv(): Tuning {
  return {
    backoffBaseMs: envNumber("AGENT_SESSIONS_RETRY_BASE_MS"),
    maxAttempts: envNumber("AGENT_SESSIONS_MAX_ATTEMPTS"),
    timeoutMs: envNumber("AGENT_SESSIONS_TIMEOUT_MS"),
  };
}
