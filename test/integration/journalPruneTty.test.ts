import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI, tempConfigHome } from "../helpers/cli.js";
import { cleanEnvCommand, TmuxServer, tmuxForSuite } from "../helpers/tmux.js";

/**
 * `journal prune` on a real terminal (tmux): it says what it would remove and asks; `n` keeps
 * every file, `y` removes them.
 */

const haveTmux = tmuxForSuite("journal prune terminal suite") !== null;

describe.skipIf(!haveTmux)("journal prune asks on a terminal", () => {
  let home: ReturnType<typeof tempConfigHome>;
  // A tmux server of its own per test (a new session on a socket just killed can meet it
  // still shutting down).
  let tmux: TmuxServer;

  beforeEach(() => {
    home = tempConfigHome();
    tmux = new TmuxServer();
  });
  afterEach(async () => {
    await tmux.kill();
    home.cleanup();
  });

  function journalFiles(): string[] {
    const dir = join(home.dir, "agent-sessions", "journal", "svc-1");
    mkdirSync(dir, { recursive: true });
    return ["ses_a.ndjson", "ses_b.ndjson"].map((name) => {
      const path = join(dir, name);
      writeFileSync(path, '{"event":"x","data":null}\n');
      return path;
    });
  }

  async function prune(answer: string): Promise<string> {
    expect(existsSync(CLI), "run npm run build first").toBe(true);
    const cmd = cleanEnvCommand(
      {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home.dir,
        XDG_CONFIG_HOME: home.dir,
        XDG_STATE_HOME: home.dir,
      },
      [process.execPath, CLI, "journal", "prune"],
    );
    const pane = await tmux.start("prune", `${cmd}; echo "EXIT=$?"; exec cat`, {
      width: 150,
      height: 20,
    });
    const asked = await pane.waitForText("Type y and Enter to remove");
    expect(asked).toMatch(/Remove 2 files \(\d+ B\) from .*\? Type y and Enter to remove/);
    await pane.type(answer);
    await pane.keys("Enter");
    return pane.waitForText("EXIT=");
  }

  it("answering n keeps every file", async () => {
    const files = journalFiles();
    const screen = await prune("n");
    expect(screen).toContain("journal: nothing removed");
    expect(screen).toContain("EXIT=0");
    expect(files.map((f) => existsSync(f))).toEqual([true, true]);
  });

  it("answering y removes them", async () => {
    const files = journalFiles();
    const screen = await prune("y");
    expect(screen).toMatch(/journal: removed 2 files \(\d+ B\) from /);
    expect(screen).toContain("EXIT=0");
    expect(files.map((f) => existsSync(f))).toEqual([false, false]);
  });
});
