import { describe, expect, it } from "vitest";
import { PROVISION_MS } from "../../src/server/launches.js";
import { terminalOnReference, tmuxForSuite } from "../helpers/tmux.js";
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
  const suite = terminalOnReference({
    seed: 33,
    paceMs: 0,
    heartbeatMs: 500,
    promptStepMs: 60,
    sessionCount: 4,
    clock: "manual",
  });
  const { terminal } = suite;

  it("+ fills the launch form; the session is listed as creating and its pane follows it to its answer", async () => {
    const app = terminal.command(suite.server.url, suite.server.key("owner"), ["--no-journal"], {
      AGENT_SESSIONS_BELL: "0",
    });
    const pane = await terminal.openApp("launch1", app, SIZE);
    await pane.waitForText(suite.server.sessionIds()[0] as string);
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
    expect(suite.server.sessions()[0]).toMatchObject({
      id,
      agent: "opencode",
      github_repo: "demo/app",
    });
    // Listed at once, marked as being created, and its pane open on it.
    expect(screen).toMatch(new RegExp(`${id}.*creating`));
    expect(screen).toContain(`1 ${id}`);
    suite.server.clock.advance(PROVISION_MS);
    screen = await pane.waitForText("the tests pass.", { timeoutMs: 15_000 });
    expect(screen).toMatch(/running/);
    // The answer's last words come a step before its end; then on_complete pauses it.
    await waitFor(
      () => suite.server.sessions().find((s) => s.id === id)?.state === "paused",
      5_000,
      "the launched session paused by its on_complete",
    );
    await pane.keys("q");
    await pane.waitForText("EXIT=0");
  });
});
