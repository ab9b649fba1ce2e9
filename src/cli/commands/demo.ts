import { attentionConfigFrom } from "../../store/attention/reasons.js";
import { DEMO_PACE_MS } from "../definitions/demoPace.js";
import { err, fail, registerSecret } from "../output.js";
import { hasTerminal } from "../terminalCheck.js";
import { watchSessions } from "./watch.js";

export interface DemoOptions {
  headless?: boolean;
  paceMs?: number;
  maxEvents?: number;
  seed?: number;
  /** "manual": the simulated sessions stand still until stepped (tests). */
  clock?: "system" | "manual";
}

/** The terminal UI against the in-process service: no keychain, no config file. */
async function demoUi(baseUrl: string, apiKey: string, ids: string[]): Promise<number> {
  const [{ buildServices }, { runTui }] = await Promise.all([
    import("../tui/buildServices.js"),
    import("../tui/runTui.js"),
  ]);
  // No config file here: AGENT_SESSIONS_ATTENTION alone chooses what the queue notifies.
  const attention = attentionConfigFrom(process.env, undefined);
  if (attention.warning) err(`warning: ${attention.warning}`);
  const handle = buildServices({ baseUrl, apiKey }, { attention: attention.config });
  return runTui({
    profile: "demo",
    baseUrl,
    services: handle.services,
    initialSessions: ids.slice(0, 2),
    notify: { bell: false, osc: false, oscKind: "9", tmux: false },
    cleanup: () => handle.dispose(),
  });
}

/**
 * `agent-sessions demo`: starts the reference service in-process on a random loopback port
 * with lively sessions and follows them with an owner key. Touches neither the keychain nor
 * the config file.
 */
export async function runDemo(opts: DemoOptions): Promise<void> {
  const { startServer } = await import("../../server/index.js");
  const server = await startServer({
    paceMs: opts.paceMs ?? DEMO_PACE_MS,
    heartbeatMs: 2000,
    demoApprovals: true,
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.clock !== undefined ? { clock: opts.clock } : {}),
  });
  try {
    const ids = server.sessionIds().slice(0, 3);
    registerSecret(server.key("owner"));
    if (!opts.headless && hasTerminal()) {
      process.exitCode = await demoUi(server.url, server.key("owner"), ids);
      return;
    }
    err(`demo: reference service on ${server.url}; following ${ids.join(", ")} (Ctrl-C to stop)`);
    process.exitCode = await watchSessions(
      ids,
      opts.maxEvents !== undefined ? { maxEvents: opts.maxEvents } : {},
      { baseUrl: server.url, apiKey: server.key("owner"), tuning: {} },
    );
  } catch (e) {
    fail(e);
  } finally {
    await server.close();
  }
}
