import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import {
  ANNOUNCED_LIMITS,
  json,
  type ScriptedServer,
  startScriptedServer,
} from "../helpers/scriptedHttpServer.js";
import { advanceUntil } from "../helpers/simulatedClock.js";
import { CliTerminal, type TmuxPane, tmuxForSuite } from "../helpers/tmux.js";

/**
 * The review commands in a real terminal (the built binary in tmux): a diff whose paths and
 * lines carry escape sequences and the key is drawn sanitized, coloured by us only, the key
 * never shown; a file printed by `cat` likewise; `rewind` lists the session's changed files
 * and asks before it reverts anything.
 */

const TMUX = tmuxForSuite("review end-to-end suite");
const SIZE = { width: 120, height: 40 };
const KEY = "ask_hostile0123456789abcdefghij0123456789";

describe.skipIf(!TMUX)(`review commands in tmux (${TMUX ?? "no tmux"})`, () => {
  const terminal = new CliTerminal();
  let ref: ReferenceServer;
  let scripted: ScriptedServer;
  let owner: ApiClient;
  let id: string;
  let count = 0;

  beforeAll(async () => {
    await terminal.start();
    ref = await startServer({ seed: 32, clock: "manual", sessionCount: 3 });
    scripted = await startScriptedServer();
    owner = new ApiClient({ baseUrl: ref.url, apiKey: ref.key("owner"), maxAttempts: 3 });
    id = (ref.sessions().find((r) => r.state === "active") ?? ref.sessions()[0])?.id as string;
    await owner.git(id, { kind: "clone", repoUrl: "demo/app" });
  });

  afterEach(async () => {
    await terminal.closePanes();
  });

  afterAll(async () => {
    await terminal.stop();
    await owner?.close();
    await ref?.close();
    await scripted?.close();
  });

  async function launch(args: string[], url: string, key: string): Promise<TmuxPane> {
    const app = terminal.command(url, key, args, { TERM: "xterm-256color" });
    return terminal.openApp(`review${++count}`, app, SIZE);
  }

  it("draws a hostile diff sanitized and coloured, never the key", async () => {
    scripted.fallback(
      json(
        200,
        {
          success: true,
          result: {
            diff: [
              "diff --git a/evil\x1b[2J.txt b/evil\x1b[2J.txt",
              "--- a/evil\x1b[2J.txt",
              "+++ b/evil\x1b[2J.txt",
              "@@ -1 +1 @@",
              "-old line",
              `+token ${KEY} \x1b]0;pwned\x07\x1b[8mhidden\x1b[0m done`,
              "",
            ].join("\n"),
          },
        },
        ANNOUNCED_LIMITS,
      ),
    );
    const pane = await launch(["diff", "ses_h1"], scripted.url, KEY);
    const screen = await pane.waitForText("EXIT=0");
    expect(screen).toContain("diff --git a/evil.txt b/evil.txt");
    expect(screen).toContain("+token [redacted key] hidden done");
    expect(screen).not.toContain(KEY.slice(4, 20));
    const ansi = await pane.capture({ ansi: true });
    // Ours: green for the added line, red for the removed one; the server's concealed text is not.
    expect(ansi).toMatch(/\x1b\[32m\+token/);
    expect(ansi).toMatch(/\x1b\[31m-old line/);
    expect(ansi).not.toContain("\x1b[8m");
    expect(
      await terminal.tmux.run(["display-message", "-p", "-t", pane.name, "#{pane_title}"]),
    ).not.toContain("pwned");
  });

  it("cat draws a file's text sanitized, the key redacted", async () => {
    writeFileSync(
      join(ref.dataDir, "workspaces", id, "NOTES.md"),
      `first line\nkey ${ref.key("owner")} here\n\x1b[2Jthird \x1b]0;pwned\x07line\n`,
    );
    const pane = await launch(["cat", id, "NOTES.md"], ref.url, ref.key("owner"));
    const screen = await pane.waitForText("EXIT=0");
    expect(screen).toContain("first line\nkey [redacted key] here\nthird line");
    expect(screen).not.toContain(ref.key("owner").slice(4, 20));
  });

  it("rewind lists the files of the last prompt and asks; y reverts exactly those", async () => {
    const ws = join(ref.dataDir, "workspaces", id);
    const changed = () =>
      execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], {
        cwd: ws,
        encoding: "utf8",
      });
    const start = changed();
    let n = 0;
    await advanceUntil(
      ref,
      () => ++n % 10 === 0 && changed() !== start,
      "the agent changed a file",
      {
        stepMs: 100,
        maxSteps: 5_000,
      },
    );
    if (ref.sessions().find((r) => r.id === id)?.state === "paused") await owner.resume(id);
    const pane = await launch(["rewind", id], ref.url, ref.key("owner"));
    const asked = await pane.waitForText(`Rewind the last prompt of ${id}? [y/N]`);
    expect(asked).toContain(`The last prompt of ${id} changed these files; they will be reverted:`);
    const listed = [...asked.matchAll(/^ {2}(?:created|modified|deleted) (\S+)$/gm)].map(
      (m) => m[1],
    );
    expect(listed.length).toBeGreaterThan(0);
    await pane.type("y");
    await pane.keys("Enter");
    const done = await pane.waitForText("EXIT=0");
    expect(done).toMatch(new RegExp(`rewound the last prompt of ${id}: \\d+ files? reverted`));
    // What it asked about is what the service reverted.
    const reverted = [...done.matchAll(/^ {2}\/(\S+)$/gm)].map((m) => m[1]);
    expect(reverted.sort()).toEqual([...listed].sort());
  });
});
