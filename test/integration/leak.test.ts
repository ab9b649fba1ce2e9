import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { runCli, tempConfigHome } from "../helpers/cli.js";
import { advanceUntilEvents, onStderr } from "../helpers/simulatedClock.js";

let server: ReferenceServer;
const cfg = tempConfigHome();

beforeAll(async () => {
  // The sessions work when the test advances the clock: once the watch below is live.
  server = await startServer({
    seed: 11,
    paceMs: 10,
    heartbeatMs: 100,
    sessionCount: 3,
    clock: "manual",
  });
});
afterAll(async () => {
  await server.close();
  cfg.cleanup();
});

/** Every file under a directory except the opted-in plain-text key store itself. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

describe("the full key appears nowhere", () => {
  it("in the output of login, whoami, sessions, watch and failing commands, nor in argv", async () => {
    const key = server.key("owner");
    const seen: string[] = [];
    const env = {
      XDG_CONFIG_HOME: cfg.dir,
      AGENT_SESSIONS_DEBUG: "1",
    };

    const login = await runCli(["login", "--base-url", server.url, "--insecure-storage"], {
      env,
      input: `${key}\n`,
    });
    expect(login.code).toBe(0);
    seen.push(login.stdout, login.stderr);

    const withKey = { ...env, AGENT_SESSIONS_API_KEY: key, AGENT_SESSIONS_BASE_URL: server.url };
    // Independent commands run side by side.
    const plain = await Promise.all(
      [["whoami"], ["whoami", "--json"], ["sessions"], ["profiles"]].map((args) =>
        runCli(args, { env: withKey }),
      ),
    );
    for (const r of plain) {
      expect(r.code).toBe(0);
      seen.push(r.stdout, r.stderr);
    }

    // A long-running watch: read its command line from /proc while it runs.
    const cmdlines: string[] = [];
    const first = server.sessionIds()[0] as string;
    const working = onStderr('"status":"live"', 1, () => advanceUntilEvents(server, [first], 30));
    const watch = await runCli(["watch", first, "--json", "--max-events", "30"], {
      env: withKey,
      onSpawn: (child) => {
        working(child);
        try {
          cmdlines.push(readFileSync(`/proc/${child.pid}/cmdline`, "utf8"));
        } catch {
          // not Linux: nothing to read
        }
      },
    });
    expect(watch.code).toBe(0);
    seen.push(watch.stdout, watch.stderr, ...cmdlines);

    // Failing commands: a 403, a 404, a network error, a usage error with the key pasted in.
    const failing = await Promise.all([
      runCli(["git", "push", first], {
        env: { ...withKey, AGENT_SESSIONS_API_KEY: server.key("readonly") },
      }),
      runCli(["watch", "ses_missing"], { env: withKey }),
      runCli(["sessions"], {
        env: {
          ...withKey,
          AGENT_SESSIONS_BASE_URL: "http://127.0.0.1:9",
          AGENT_SESSIONS_MAX_ATTEMPTS: "1",
        },
      }),
      runCli([`--token=${key}`, "whoami"], { env: withKey }),
      runCli(["whoami", key], { env: withKey }),
      runCli([key], { env: withKey }),
    ]);
    for (const r of failing) {
      expect(r.code).not.toBe(0);
      seen.push(r.stdout, r.stderr);
    }

    for (const text of seen) expect(text).not.toContain(key);
    const readonlyKey = server.key("readonly");
    for (const text of seen) expect(text).not.toContain(readonlyKey);

    // The config file and anything else written, except the opted-in plain-text key file.
    for (const f of filesUnder(cfg.dir)) {
      if (f.endsWith(".key") || f.includes(`${join("credentials", "")}`)) continue;
      expect(readFileSync(f, "utf8")).not.toContain(key);
    }
  });
});
