import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { CLI, runCli, tempConfigHome } from "../helpers/cli.js";
import { cleanEnvCommand, TmuxServer, tmuxForSuite } from "../helpers/tmux.js";

/**
 * `agent-sessions sessions` as a table a person reads on a terminal: it fits the terminal,
 * names what it left out, shows the whole of it with --wide, and reads times as "5m ago";
 * piped, it is for scripts: every column, tab-separated, whole, the service's timestamps.
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
  it("piped (sessions | cat): every column, tab-separated, never cut; --wide changes nothing there", async () => {
    const piped = await runCli(["sessions"], { env: env() });
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toContain("left out");
    const lines = piped.stdout.trimEnd().split("\n");
    const header = (lines[0] as string).split("\t");
    expect(header).toEqual([
      "SESSION",
      "STATE",
      "NAME",
      "AGENT",
      "TEMPLATE",
      "VISIBILITY",
      "REPO",
      "LAST ACTIVITY",
      "UPDATED",
      "SANDBOX",
    ]);
    const records = server.sessions();
    expect(lines).toHaveLength(records.length + 1);
    for (const line of lines.slice(1)) {
      const cells = line.split("\t");
      expect(cells).toHaveLength(header.length);
      const r = records.find((x) => x.id === cells[0]);
      expect(r, `a row for ${cells[0]}`).toBeDefined();
      // Whole: the name and the sandbox URL as the service sent them, no … anywhere.
      expect(cells[2]).toBe(r?.name);
      expect(cells[9]).toBe(r?.sandbox_url);
      // Not a terminal: timestamps as the service sent them.
      expect(cells[8]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    }
    expect(piped.stdout).not.toContain("…");
    expect(piped.stdout).not.toMatch(/ {2}/);

    const wide = await runCli(["sessions", "--wide"], { env: env() });
    expect(wide.stdout).toBe(piped.stdout);

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

  it.runIf(haveTmux)(
    "on a terminal --absolute-time reads times as the service's ISO 8601 timestamps, as piped output does",
    async () => {
      const tmux = new TmuxServer();
      try {
        const pane = await tmux.start(
          "sessions",
          `${cleanEnvCommand({ ...env(), PATH: process.env.PATH, HOME: home.dir }, [process.execPath, CLI, "sessions", "--absolute-time", "--wide"])}; sleep 30`,
          { width: 250, height: 20 },
        );
        const screen = await pane.waitForText("sessions ·");
        expect(screen).toMatch(/^SESSION\s+STATE\s+NAME/m);
        expect(screen).toMatch(/ \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
        expect(screen).not.toMatch(/ (just now|\d+s ago|\d+m ago)/);
      } finally {
        await tmux.kill();
      }
    },
  );
});
