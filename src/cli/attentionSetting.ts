import { readConfig } from "../credentials/profiles.js";
import { type AttentionConfig, attentionConfigFrom } from "../store/attention/reasons.js";

/**
 * Which attention reasons notify (and which are shown at all): AGENT_SESSIONS_ATTENTION, else
 * the config file's `"attention"` (`"approval,failed,finished,stream"` or a list of the same
 * words), else the defaults. A bad value is a warning and the defaults, never a failure.
 */
export async function attentionSetting(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ config: AttentionConfig; warning: string | null }> {
  let fileValue: unknown;
  try {
    fileValue = (await readConfig(env)).attention;
  } catch {
    // An unreadable config file is reported by the commands that need it.
  }
  return attentionConfigFrom(env, fileValue);
}
