import { configPath } from "../../credentials/paths.js";
import { validateProfileName } from "../../credentials/profiles.js";
import {
  deleteProfile,
  listProfiles,
  type ProfileListing,
  setDefaultProfile,
} from "../../credentials/store.js";
import { sanitize } from "../../text/sanitize.js";
import { err, fail, out, printJson, table } from "../output.js";

function keyColumn(p: ProfileListing): string {
  switch (p.storage) {
    case "keychain":
      return p.location ?? "keychain";
    case "insecure-file":
      return `plain-text file ${p.location ?? ""}`;
    default:
      return "none (logged out)";
  }
}

function envOverrideNote(): void {
  if ((process.env.AGENT_SESSIONS_PROFILE ?? "") !== "") {
    err(
      "warning: AGENT_SESSIONS_PROFILE is set in this environment; it wins over the default profile until you unset it",
    );
  }
}

/** `agent-sessions profiles`: the profiles, their base URLs and where their keys are. */
export async function runProfiles(opts: { json?: boolean }): Promise<void> {
  try {
    const list = await listProfiles();
    const path = configPath();
    if (opts.json) {
      printJson({
        config_path: path,
        default_profile: list.defaultProfile,
        active_profile: list.activeProfile,
        env_override: list.envOverride,
        profiles: list.profiles.map((p) => ({
          name: p.name,
          default: p.isDefault,
          active: p.isActive,
          base_url: p.baseUrl,
          storage: p.storage,
          location: p.location,
          env_override: p.envOverride,
        })),
      });
      return;
    }
    if (list.profiles.length === 0) {
      out(`No profiles yet (${path}). Create one with: agent-sessions login --base-url URL`);
    } else {
      const rows = list.profiles.map((p) => [
        `${p.isActive ? ">" : " "}${p.isDefault ? "*" : " "}`,
        sanitize(p.name),
        sanitize(p.baseUrl),
        keyColumn(p),
      ]);
      out(table(["", "PROFILE", "BASE URL", "KEY STORED IN"], rows));
      out("");
      out(`* default profile   > profile in use now   (profiles file: ${path})`);
    }
    if (list.envOverride) {
      out(
        "AGENT_SESSIONS_API_KEY is set: it overrides the stored key of whichever profile a command uses.",
      );
    }
  } catch (e) {
    fail(e);
  }
}

/** `agent-sessions profiles use NAME`: make it the default profile. */
export async function runProfilesUse(name: string): Promise<void> {
  try {
    const profile = validateProfileName(name);
    const { previous } = await setDefaultProfile(profile);
    out(
      previous === profile
        ? `Profile ${profile} already is the default.`
        : `Default profile is now ${profile}${previous ? ` (was ${sanitize(previous)})` : ""}.`,
    );
    envOverrideNote();
  } catch (e) {
    fail(e);
  }
}

/** `agent-sessions profiles remove NAME`: its stored key and its entry. */
export async function runProfilesRemove(name: string): Promise<void> {
  try {
    const profile = validateProfileName(name);
    const result = await deleteProfile({ profile });
    for (const where of result.removed) out(`Removed the key of ${profile} from ${where}.`);
    out(`Removed profile ${profile}.`);
    if (result.wasDefault) {
      out("It was the default profile; choose another with: agent-sessions profiles use NAME");
    }
  } catch (e) {
    fail(e);
  }
}
