import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { advanceUntil } from "../helpers/simulatedClock.js";
import { CliTerminal, tmuxForSuite } from "../helpers/tmux.js";

/**
 * Review and take home in a real terminal (the built binary's UI in tmux, started in a local
 * clone of the session's repository): the changes view opened on a session the agent has
 * worked in, moved hunk to hunk, and its diff applied into the local checkout after the
 * confirmation that names that checkout, its branch and the files.
 */

const TMUX = tmuxForSuite("review UI end-to-end suite");
const SIZE = { width: 140, height: 40 };

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
  });

describe.skipIf(!TMUX)(`review UI in tmux (${TMUX ?? "no tmux"})`, () => {
  const terminal = new CliTerminal();
  const local = mkdtempSync(join(tmpdir(), "as-review-home-"));
  let ref: ReferenceServer;
  let owner: ApiClient;
  let id: string;

  beforeAll(async () => {
    await terminal.start();
    ref = await startServer({ seed: 32, clock: "manual", sessionCount: 3 });
    owner = new ApiClient({ baseUrl: ref.url, apiKey: ref.key("owner"), maxAttempts: 3 });
    id = (ref.sessions().find((r) => r.state === "active") ?? ref.sessions()[0])?.id as string;
    await owner.git(id, { kind: "clone", repoUrl: "demo/app" });
    // The agent works until it has changed files it tracks (a diff to take home).
    const ws = join(ref.dataDir, "workspaces", id);
    let n = 0;
    await advanceUntil(
      ref,
      () => ++n % 10 === 0 && git(ws, "diff", "--name-only") !== "",
      "the agent changed a tracked file",
      { stepMs: 100, maxSteps: 5_000 },
    );
    if (ref.sessions().find((r) => r.id === id)?.state === "paused") await owner.resume(id);
    // The developer's own clone of the repository, where the UI is started.
    git(tmpdir(), "clone", "-q", join(ref.dataDir, "repos", "demo", "app.git"), join(local, "app"));
    git(join(local, "app"), "config", "user.email", "dev@example.invalid");
    git(join(local, "app"), "config", "user.name", "Dev");
  });

  afterAll(async () => {
    await terminal.stop();
    await owner?.close();
    await ref?.close();
    rmSync(local, { recursive: true, force: true });
  });

  it("opens the changes view, moves between hunks and applies the diff locally", async () => {
    const repo = join(local, "app");
    const app = terminal.command(ref.url, ref.key("owner"), [], {
      TERM: "xterm-256color",
      XDG_STATE_HOME: terminal.home.dir,
    });
    const pane = await terminal.openApp("reviewui", app, SIZE, { cd: repo });
    await pane.waitForText(id, { timeoutMs: 20_000 });
    // The session's row: filter the list down to it.
    await pane.type("/");
    await pane.type(id);
    await pane.keys("Enter");
    await pane.waitForText("1 shown of");
    await pane.type("d");
    const view = await pane.waitForText([`Changes of ${id}`, "changed"], { timeoutMs: 20_000 });
    const changed = git(join(ref.dataDir, "workspaces", id), "diff", "--name-only")
      .split("\n")
      .filter(Boolean);
    for (const f of changed) expect(view).toContain(f);
    // Hunk to hunk: the first hunk's header row comes to the top, then the next one (or the
    // view says there is none).
    await pane.type("]");
    const first = await pane.waitFor("the first hunk on top", (s) => /│ @@ -\d/.test(s));
    const row = (s: string) => Number(/row (\d+)\//.exec(s)?.[1]);
    const at = row(first);
    await pane.type("]");
    const second = await pane.waitFor(
      "the next hunk or the last",
      (s) => row(s) > at || s.includes("No later hunk"),
    );
    expect(row(second) > at || second.includes("No later hunk")).toBe(true);
    // Take it home: the confirmation names this checkout, its branch and the files.
    await pane.type("H");
    const ask = await pane.waitForText("Take the changes home — confirm", { timeoutMs: 20_000 });
    await pane.waitForText(`${repo} (on main)`);
    for (const f of changed) expect(ask).toContain(f);
    await pane.type("y");
    await pane.waitForText(`applied ${id}'s changes to ${repo} (main)`, { timeoutMs: 20_000 });
    const here = git(repo, "diff", "--name-only").split("\n").filter(Boolean);
    expect(here.sort()).toEqual(changed.sort());
    // The changes view is still on show: q closes it, then quits.
    await pane.waitForText(`Changes of ${id}`);
    await pane.keys("q");
    await pane.waitForText("1 shown of");
    await pane.keys("q");
    await pane.waitForText("EXIT=0", { timeoutMs: 20_000 });
  }, 90_000);
});
