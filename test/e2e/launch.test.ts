import { existsSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { PROVISION_MS } from "../../src/server/launches.js";
import { CLI, tempConfigHome } from "../helpers/cli.js";
import { cleanEnvCommand, type TmuxPane, TmuxServer, tmuxForSuite } from "../helpers/tmux.js";
import { waitFor } from "../integration/serverTestUtils.js";

/**
 * Launching from the UI in a real terminal: the built binary in tmux against the reference
 * service (seeded, manual clock). The launch form is filled as a user would, the new session
 * appears at once marked as being created, and its pane follows it to its first answer once
 * the service has provisioned it.
 */

const TMUX = tmuxForSuite("launch end-to-end suite");
const SIZE = { width: 160, height: 44 };

describe.skipIf(!TMUX)(`launching from the UI in tmux (${TMUX ?? "no tmux"})`, () => {
  const tmux = new TmuxServer();
  const home = tempConfigHome();
  let server: ReferenceServer;
  const panes: TmuxPane[] = [];

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    server = await startServer({
      seed: 33,
      paceMs: 0,
      heartbeatMs: 500,
      promptStepMs: 60,
      sessionCount: 4,
      clock: "manual",
    });
    await tmux.run(["start-server", ";", "set-option", "-s", "exit-empty", "off"]);
  });

  afterEach(async () => {
    await Promise.all(panes.splice(0).map((p) => p.kill()));
  });

  afterAll(async () => {
    await tmux.kill();
    await server?.close();
    home.cleanup();
  });

  it("+ fills the launch form; the session is listed as creating and its pane follows it to its answer", async () => {
    const env: Record<string, string | undefined> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home.dir,
      LANG: "C.UTF-8",
      XDG_CONFIG_HOME: home.dir,
      AGENT_SESSIONS_BASE_URL: server.url,
      AGENT_SESSIONS_API_KEY: server.key("owner"),
      AGENT_SESSIONS_BELL: "0",
    };
    const app = cleanEnvCommand(env, [process.execPath, CLI, "--no-journal"]);
    const pane = await tmux.start("launch1", `${app}; echo "EXIT=$?"; exec sleep 600`, SIZE);
    panes.push(pane);
    await pane.waitForText(server.sessionIds()[0] as string);
    await pane.keys("+");
    await pane.waitForText("Launch a new session");
    await pane.type("Add a status page");
    await pane.keys("Tab");
    await pane.type("demo/app");
    await pane.keys("Tab");
    await pane.type("opencode");
    await pane.keys("Enter");
    let screen = await pane.waitFor("the launch's message", (s) =>
      /Launched ses_\w+: being created/.test(s),
    );
    const id = /Launched (ses_\w+)/.exec(screen)?.[1] as string;
    expect(server.sessions()[0]).toMatchObject({ id, agent: "opencode", github_repo: "demo/app" });
    // Listed at once, marked as being created, and its pane open on it.
    expect(screen).toMatch(new RegExp(`${id}.*creating`));
    expect(screen).toContain(`1 ${id}`);
    server.clock.advance(PROVISION_MS);
    screen = await pane.waitForText("the tests pass.", { timeoutMs: 15_000 });
    expect(screen).toMatch(/running/);
    // The answer's last words come a step before its end; then on_complete pauses it.
    await waitFor(
      () => server.sessions().find((s) => s.id === id)?.state === "paused",
      5_000,
      "the launched session paused by its on_complete",
    );
    await pane.keys("q");
    await pane.waitForText("EXIT=0");
  });
});
