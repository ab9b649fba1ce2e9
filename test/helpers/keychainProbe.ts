import { keychainGet } from "../../src/credentials/keychain.js";

/**
 * Why the OS keychain cannot be used here, or null when it can: on Linux a session bus must
 * be set, and a read of an entry nobody made (`account` under `service`) must be answered.
 * Suites that need the keychain skip with this reason, unless
 * AGENT_SESSIONS_REQUIRE_KEYCHAIN=1 makes it a failure.
 */
export async function keychainProblem(
  service: string,
  account = `probe-${process.pid}@http://127.0.0.1:1`,
): Promise<string | null> {
  if (process.platform === "linux" && !process.env.DBUS_SESSION_BUS_ADDRESS) {
    return "DBUS_SESSION_BUS_ADDRESS is not set (run under test/with-keyring.sh or dbus-run-session)";
  }
  try {
    await keychainGet(account, { service });
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}
