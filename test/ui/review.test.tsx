import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { localHome } from "../../src/cli/tui/localHome.js";
import { advanceUntil } from "../helpers/simulatedClock.js";
import {
  type AppHarness,
  fixedNow,
  maskVolatile,
  mountOnFixture,
  pressKey,
  startReference,
  type UiFixture,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * The review keys on the reference service in its seeded manual-clock mode: the changes
 * view of a session the agent has worked in (status and diff from its real workspace), hunk
 * to hunk, a file whole; taking the changes home into a local clone (the confirmation names
 * it, its branch and the files; the files are then changed there); rewinding the last
 * prompt (the files listed first, then what the service reverted).
 */

let local: string | null = null;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
  });

beforeEach(() => {
  local = mkdtempSync(join(tmpdir(), "as-review-ui-"));
});

afterEach(async () => {
  await unmountReference();
  if (local) rmSync(local, { recursive: true, force: true });
  local = null;
});

/** A session the simulated agent has changed tracked files in; its id. */
async function workedSession(f: UiFixture): Promise<string> {
  const id = (f.server.sessions().find((r) => r.state === "active") ?? f.server.sessions()[0])
    ?.id as string;
  await f.client.git(id, { kind: "clone", repoUrl: "demo/app" });
  const ws = join(f.server.dataDir, "workspaces", id);
  let n = 0;
  await advanceUntil(
    f.server,
    () => ++n % 10 === 0 && git(ws, "diff", "--name-only") !== "",
    "the agent changed a tracked file",
    { stepMs: 100, maxSteps: 5_000 },
  );
  if (f.server.sessions().find((r) => r.id === id)?.state === "paused") await f.client.resume(id);
  await f.services.sessions.getState().load();
  return id;
}

async function selectRow(app: AppHarness, id: string): Promise<void> {
  await waitForContent(app, id);
  await pressKey(app, "/");
  for (const c of id) await pressKey(app, c);
  await pressKey(app, "enter");
  await waitForContent(app, "1 shown of");
}

describe("review on the reference service", () => {
  it("shows the changes, moves hunk to hunk, shows a file whole and takes them home", async () => {
    const fx = await startReference({
      server: { seed: 32, clock: "manual", sessionCount: 3, paceMs: 800 },
    });
    const id = await workedSession(fx);
    const repo = join(local as string, "app");
    git(tmpdir(), "clone", "-q", join(fx.server.dataDir, "repos", "demo", "app.git"), repo);
    if (fx.services.review) fx.services.review.home = localHome(repo);
    const h = mountOnFixture(fx, { columns: 120, rows: 36 }, { now: fixedNow });
    await selectRow(h, id);
    await pressKey(h, "d");
    const view = await waitForContent(h, /\d+ files? changed/, 15_000);
    const changed = git(join(fx.server.dataDir, "workspaces", id), "diff", "--name-only")
      .split("\n")
      .filter(Boolean);
    for (const f of changed) expect(view).toContain(f);
    expect(maskVolatile(view)).toMatchSnapshot();
    await pressKey(h, "]");
    const hunk = await waitForContent(h, /│ @@ -\d+/);
    expect(hunk.split("\n").find((l) => l.includes("Changes of"))).toBeDefined();
    // The file under the cursor, whole, with line numbers; Esc comes back to the diff.
    await pressKey(h, "enter");
    await waitForContent(h, /│ +1 │ /);
    await pressKey(h, "escape");
    await waitForContent(h, /│ @@ -\d+/);
    // Take it home: the confirmation names the clone, its branch and the files.
    await pressKey(h, "H");
    const ask = await waitForContent(h, `${repo} (on main)`);
    expect(ask).toContain("Take the changes home — confirm");
    for (const f of changed) expect(ask).toContain(f);
    await pressKey(h, "y");
    await waitForContent(h, `applied ${id}'s changes to ${repo} (main)`, 15_000);
    expect(git(repo, "diff", "--name-only").split("\n").filter(Boolean).sort()).toEqual(
      changed.sort(),
    );
    // The view is still on show after the dialog; applying again says it is already there.
    await waitForContent(h, `Changes of ${id}`);
    await pressKey(h, "H");
    await waitForContent(h, `${repo} (on main)`);
    await pressKey(h, "y");
    await waitForContent(h, `already applied: ${repo} (main) has ${id}'s changes`, 15_000);
  }, 60_000);

  it("rewinds the last prompt: the files listed first, then what the service reverted", async () => {
    const fx = await startReference({
      server: { seed: 32, clock: "manual", sessionCount: 3, paceMs: 800 },
    });
    const id = await workedSession(fx);
    const h = mountOnFixture(fx, { columns: 120, rows: 36 }, { now: fixedNow });
    await selectRow(h, id);
    await pressKey(h, "W");
    const ask = await waitForContent(h, "Rewind the last prompt — confirm", 15_000);
    const changed = git(join(fx.server.dataDir, "workspaces", id), "diff", "--name-only")
      .split("\n")
      .filter(Boolean);
    for (const f of changed) expect(ask).toContain(f);
    await pressKey(h, "y");
    await waitForContent(h, `${id}: last prompt rewound`, 15_000);
  }, 60_000);
});
