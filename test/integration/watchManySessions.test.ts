import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { CLI, tempConfigHome } from "../helpers/cli.js";

/**
 * Hundreds of sessions: every open event stream holds a connection of its own, so a cap on
 * connections below the number of streams left the streams past it waiting forever.
 */
describe("watch --json on more sessions than a small connection pool holds", () => {
  const SESSIONS = 150;
  const home = tempConfigHome();
  let server: ReferenceServer;

  beforeAll(async () => {
    server = await startServer({
      seed: 14,
      paceMs: 0,
      heartbeatMs: 60_000,
      sessionCount: SESSIONS,
    });
  });
  afterAll(async () => {
    await server?.close();
    home.cleanup();
  });

  it("has every stream live", async () => {
    const ids = server.sessionIds();
    expect(ids).toHaveLength(SESSIONS);
    const child = spawn(process.execPath, [CLI, "watch", "--json", ...ids], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home.dir,
        XDG_CONFIG_HOME: home.dir,
        AGENT_SESSIONS_BASE_URL: server.url,
        AGENT_SESSIONS_API_KEY: server.key("member"),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    const live = new Set<string>();
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    try {
      // Bounded wait for a condition: every session reported live on stderr.
      for (let i = 0; i < 300 && live.size < SESSIONS; i++) {
        await new Promise((r) => setTimeout(r, 50));
        for (const line of stderr.split("\n")) {
          try {
            const s = JSON.parse(line) as { session_id?: string; status?: string };
            if (s.status === "live" && s.session_id) live.add(s.session_id);
          } catch {
            // a partial line or a warning
          }
        }
      }
      expect(live.size).toBe(SESSIONS);
    } finally {
      child.kill("SIGINT");
      await exited;
    }
  });
});
