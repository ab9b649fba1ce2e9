import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { CLI, runCli, tempConfigHome } from "../helpers/cli.js";
import { cleanEnvCommand, TmuxServer, tmuxForSuite } from "../helpers/tmux.js";

/**
 * `agent-sessions sessions` as a table a person reads: it fits the terminal (100 columns when
 * not a terminal), names what it left out, shows the whole of it with --wide, and reads
 * times as "5m ago" on a terminal while --json keeps the service's timestamps.
 */

const home = tempConfigHome();
let server: ReferenceServer;

beforeAll(async () => {
  server = await startServer({ seed: 11, paceMs: 0, sessionCount: 6 });
});
afterAll(async () => {
  await server.close();
  home.cleanup();
});

const env = () => ({
  XDG_CONFIG_HOME: home.dir,
  AGENT_SESSIONS_BASE_URL: server.url,
  AGENT_SESSIONS_API_KEY: server.key("owner"),
});

const widest = (text: string) => Math.max(...text.split("\n").map((l) => Array.from(l).length));

describe("sessions table", () => {
  it("fits 100 columns when not a terminal, says what it left out; --wide is whole", async () => {
    const fitted = await runCli(["sessions"], { env: env() });
    expect(fitted.code).toBe(0);
    expect(widest(fitted.stdout)).toBeLessThanOrEqual(100);
    expect(fitted.stderr).toMatch(
      /\(sandbox.* left out to fit 100 columns: --wide shows every column\)/,
    );
    for (const id of server.sessionIds()) expect(fitted.stdout).toContain(id);
    // Not a terminal: timestamps as the service sent them.
    expect(fitted.stdout).toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);

    const wide = await runCli(["sessions", "--wide"], { env: env() });
    expect(wide.code).toBe(0);
    expect(widest(wide.stdout)).toBeGreaterThan(100);
    expect(wide.stdout.split("\n")[0]).toMatch(/VISIBILITY .*SANDBOX$/);
    expect(wide.stdout).toContain("https://");
    expect(wide.stderr).not.toContain("left out");

    const json = await runCli(["sessions", "--json"], { env: env() });
    const rows = JSON.parse(json.stdout) as { updated_at?: string; created_at?: string }[];
    expect(rows[0]?.updated_at ?? rows[0]?.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  const haveTmux = tmuxForSuite("sessions table terminal test") !== null;
  it.runIf(haveTmux)(
    "on a terminal it fits the terminal's width and reads times as how long ago",
    async () => {
      expect(existsSync(CLI), "run npm run build first").toBe(true);
      const tmux = new TmuxServer();
      try {
        const pane = await tmux.start(
          "sessions",
          `${cleanEnvCommand({ ...env(), PATH: process.env.PATH, HOME: home.dir }, [process.execPath, CLI, "sessions"])}; sleep 30`,
          { width: 80, height: 20 },
        );
        const screen = await pane.waitForText("left out to fit 80 columns");
        const table = screen.slice(0, screen.indexOf("("));
        expect(widest(table)).toBeLessThanOrEqual(80);
        expect(table).toMatch(/^SESSION\s+STATE\s+NAME/m);
        expect(table).toMatch(/ (just now|\d+s ago|\d+m ago)$/m);
        expect(table).not.toMatch(/\d{4}-\d\d-\d\dT/);
      } finally {
        await tmux.kill();
      }
    },
  );
});
