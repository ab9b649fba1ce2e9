import type { Command } from "commander";
import { configPath } from "../../credentials/paths.js";
import { listProfiles, type ProfileListing } from "../../credentials/store.js";
import { sanitize } from "../../text/sanitize.js";
import { fail, out, printJson, table } from "../output.js";

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

export function registerProfilesCommand(program: Command): void {
  program
    .command("profiles")
    .description("list the profiles: default, base URL and where each key is stored")
    .option("--json", "print one JSON object")
    .action(async (opts: { json?: boolean }) => {
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
    });
}
