import type { Command } from "commander";
import { readConfig, selectProfile } from "../../credentials/profiles.js";
import { removeCredentials } from "../../credentials/store.js";
import { globalOptions } from "../globalOptions.js";
import { err, fail, out } from "../output.js";

/** `agent-sessions logout`: remove the profile's stored key; the profile stays. */
export async function runLogout(cmd: Command): Promise<void> {
  try {
    const profile = selectProfile(await readConfig(), globalOptions(cmd).profile);
    const result = await removeCredentials({ profile });
    if (result.removed.length === 0) {
      out(
        result.known
          ? `No key was stored for profile ${profile}; nothing to remove.`
          : `There is no profile ${profile}; nothing to remove.`,
      );
    }
    for (const where of result.removed) {
      out(`Logged out of profile ${profile}: removed the key from ${where}.`);
    }
    if ((process.env.AGENT_SESSIONS_API_KEY ?? "").trim() !== "") {
      err(
        "warning: AGENT_SESSIONS_API_KEY is still set in this environment; commands keep using it until you unset it",
      );
    }
  } catch (e) {
    fail(e);
  }
}
