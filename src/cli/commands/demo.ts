import type { Command } from "commander";
import { closeDefaultAgent } from "../../client/transport.js";
import { startServer } from "../../server/index.js";
import { err, fail } from "../output.js";
import { watchSessions } from "./watch.js";

interface DemoOptions {
  headless?: boolean;
  paceMs?: number;
}

/**
 * Starts the reference service in-process on a random loopback port with lively sessions and
 * follows them with an owner key. Touches neither the keychain nor the config file.
 */
export function registerDemoCommand(program: Command): void {
  program
    .command("demo")
    .description("run the reference service in-process and follow its simulated sessions")
    .option("--headless", "print events as lines instead of opening the terminal UI")
    .option("--pace-ms <ms>", "mean milliseconds between simulated events", (v) => Number(v), 250)
    .action(async (opts: DemoOptions) => {
      const server = await startServer({ paceMs: opts.paceMs ?? 250, heartbeatMs: 2000 });
      try {
        const ids = server.sessionIds().slice(0, 3);
        err(
          `demo: reference service on ${server.url}; following ${ids.join(", ")} (Ctrl-C to stop)`,
        );
        process.exitCode = await watchSessions(
          ids,
          {},
          { baseUrl: server.url, apiKey: server.key("owner"), tuning: {} },
        );
      } catch (e) {
        fail(e);
      } finally {
        await closeDefaultAgent();
        await server.close();
      }
    });
}
