import { afterAll, afterEach, describe, expect, it } from "vitest";
import { runCli, tempConfigHome } from "../helpers/cli.js";
import {
  json,
  type ScriptedServer,
  startScriptedServer,
  unusedPort,
} from "../helpers/scriptedHttpServer.js";

/**
 * What a user sees when the network is the problem: the CLI says what happened (refused,
 * not found, TLS, dropped) and retries only what can succeed on a second try.
 */

const KEY = "ask_cli_network_0123456789";
const cfg = tempConfigHome();
afterAll(() => cfg.cleanup());
let srv: ScriptedServer | null = null;

afterEach(async () => {
  await srv?.close();
  srv = null;
});

/**
 * A first backoff of one minute: a command that retried would outlive runCli's bound and fail
 * the test, so "no retry" is proved by the run ending, not by a clock.
 */
const NO_PATIENCE = { AGENT_SESSIONS_RETRY_BASE_MS: "60000", AGENT_SESSIONS_MAX_ATTEMPTS: "5" };

describe("network failures in the CLI", () => {
  it("--base-url to a loopback port nothing listens on fails at once, exit 6, saying refused", async () => {
    const port = await unusedPort();
    const r = await runCli(["--base-url", `http://127.0.0.1:${port}`, "whoami"], {
      env: { XDG_CONFIG_HOME: cfg.dir, AGENT_SESSIONS_API_KEY: KEY, ...NO_PATIENCE },
      timeoutMs: 10_000,
    });
    expect(r.code).toBe(6);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /^error: .*could not reach http:\/\/127\.0\.0\.1:\d+ \(connection refused/m,
    );
    expect(r.stderr).toMatch(/^hint: Nothing is listening there/m);
    expect(r.stderr).not.toMatch(/retrying/);
    expect(r.stderr).not.toContain(KEY);
  });

  it("https to a port that speaks plain http is a TLS error, not retried", async () => {
    srv = await startScriptedServer();
    const r = await runCli(["sessions"], {
      env: {
        XDG_CONFIG_HOME: cfg.dir,
        AGENT_SESSIONS_API_KEY: KEY,
        AGENT_SESSIONS_BASE_URL: srv.url.replace("http:", "https:"),
        ...NO_PATIENCE,
      },
      timeoutMs: 10_000,
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/error: .*TLS/);
    expect(r.stderr).toMatch(/hint: .*certificate/);
    expect(srv.seen).toHaveLength(0);
  });

  it("a dropped connection is retried, and each wait is said on stderr", async () => {
    srv = await startScriptedServer();
    srv.reply((req) => req.socket.destroy());
    srv.reply(json(200, { sessions: [], next_cursor: null }));
    const r = await runCli(["sessions", "--json"], {
      env: {
        XDG_CONFIG_HOME: cfg.dir,
        AGENT_SESSIONS_API_KEY: KEY,
        AGENT_SESSIONS_BASE_URL: srv.url,
        AGENT_SESSIONS_RETRY_BASE_MS: "10",
      },
    });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe("[]");
    expect(r.stderr).toMatch(
      /^connection closed by the service: retrying in \d+ ms \(attempt 2\/5\)$/m,
    );
    expect(srv.seen).toHaveLength(2);
  });
});
