import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { ndjson, runCli, tempConfigHome } from "../helpers/cli.js";

/**
 * `watch --attention` (the built binary): only the transitions, from the list for every
 * session and from the streams of the sessions named; what already waited is not printed.
 */

let server: ReferenceServer;
const cfg = tempConfigHome();

beforeAll(async () => {
  server = await startServer({ seed: 42, paceMs: 0, heartbeatMs: 500, sessionCount: 4 });
});
afterAll(async () => {
  await server.close();
  cfg.cleanup();
});

function env(extra: Record<string, string> = {}) {
  return {
    XDG_CONFIG_HOME: cfg.dir,
    AGENT_SESSIONS_BASE_URL: server.url,
    AGENT_SESSIONS_API_KEY: server.key("owner"),
    AGENT_SESSIONS_REFRESH_MS: "1000",
    ...extra,
  };
}

/** Runs the command and calls `then` once it says it is watching. */
function whenWatching(args: string[], then: () => void) {
  return runCli(args, {
    env: env(),
    timeoutMs: 20_000,
    onSpawn: (child) => {
      let said = "";
      child.stderr?.on("data", (d: Buffer | string) => {
        said += d.toString();
        if (said.includes("for attention")) {
          said = "";
          then();
        }
      });
    },
  });
}

describe("watch --attention", () => {
  it("prints the transitions as JSON: a streamed session's pause at once, another's error from the list", async () => {
    const [a, , c, d] = server.sessionIds() as [string, string, string, string];
    // The seeded service starts the third session paused: that waits already, not a transition.
    expect(server.sessions().find((s) => s.id === c)?.state).toBe("paused");
    const r = await whenWatching(["watch", "--attention", "--json", "--max-events", "2", a], () => {
      // The stream tells of the pause when it is open by then; the next list read does anyway.
      server.setState(a, "paused");
      server.setState(d, "error");
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`watching 4 sessions for attention (streaming ${a})`);
    const lines = ndjson(r.stdout);
    expect(lines).toHaveLength(2);
    const byId = new Map(lines.map((l) => [l.session_id, l]));
    expect(byId.get(d)).toMatchObject({
      attention: "error",
      message: "session error",
      source: "list",
    });
    expect(byId.get(a)).toMatchObject({ attention: "paused", message: "session paused" });
    expect(String(byId.get(a)?.since)).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(byId.has(c)).toBe(false);
  });

  it("prints one human line per transition, and needs no session id", async () => {
    const b = server.sessionIds()[1] as string;
    const r = await whenWatching(["watch", "--attention", "--max-events", "1"], () =>
      server.setState(b, "destroyed"),
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${b} destroyed session destroyed\\n$`),
    );
  });

  it("without --attention, a session id is still required", async () => {
    const r = await runCli(["watch"], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("name at least one session to watch (or use --attention for all)");
  });
});
