import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TmuxPane, terminalOnReference, tmuxForSuite } from "../helpers/tmux.js";

/**
 * Acting on a session in a real terminal: the built binary in tmux against the reference
 * service. The prompt box (typing, Ctrl-J, a bracket-less paste of several lines, recall,
 * the editor key, sending) and the approve flow, as a user would drive them.
 */

const TMUX = tmuxForSuite("act end-to-end suite");
const SIZE = { width: 150, height: 42 };

describe.skipIf(!TMUX)(`acting on a session in tmux (${TMUX ?? "no tmux"})`, () => {
  const suite = terminalOnReference({ seed: 24, paceMs: 0, heartbeatMs: 500, promptStepMs: 80 });
  const { terminal } = suite;
  const bin = mkdtempSync(join(tmpdir(), "as-editor-"));
  let count = 0;

  beforeAll(() => {
    // An "editor" that writes what a user would have typed into the file it is given.
    const editor = join(bin, "fake-editor");
    writeFileSync(editor, '#!/bin/sh\nprintf "Written in the editor\\nsecond line" > "$1"\n');
    chmodSync(editor, 0o755);
  });

  afterAll(() => {
    rmSync(bin, { recursive: true, force: true });
  });

  async function launch(args: string[], key = "owner"): Promise<TmuxPane> {
    const app = terminal.command(
      suite.server.url,
      suite.server.key(key),
      ["--no-journal", ...args],
      {
        AGENT_SESSIONS_BELL: "0",
        VISUAL: join(bin, "fake-editor"),
      },
    );
    return terminal.openApp(`act${++count}`, app, SIZE);
  }

  const active = (n: number) =>
    suite.server.sessions().filter((s) => s.state === "active")[n]?.id as string;

  it("the prompt box: typing, Ctrl-J, a paste, the editor, recall, and the answer in the pane", async () => {
    const id = active(0);
    const pane = await launch(["open", id]);
    await pane.waitForText(`1 ${id}`);
    await pane.keys("1");
    await pane.keys("R");
    await pane.waitForText("reply › ");
    await pane.type("Fix the build");
    await pane.keys("C-j");
    // Pasted text arrives in one read with its line break: it stays in the box.
    await terminal.tmux.run(["set-buffer", "-b", "p1", "pasted line one\npasted line two"]);
    await terminal.tmux.run(["paste-buffer", "-b", "p1", "-t", pane.name]);
    let screen = await pane.waitForText("pasted line two▏");
    expect(screen).toContain("reply › Fix the build");
    expect(screen).toContain("pasted line one");
    expect(suite.server.promptRunning(id)).toBe(false);
    await pane.keys("Enter");
    screen = await pane.waitForText(["› you: Fix the build …", "✓ answer done"], {
      timeoutMs: 15_000,
    });
    expect(screen).toContain("[tool] read_file src/index.ts");
    // Recall the prompt just sent, then replace the draft from the editor, and send that.
    await pane.keys("R");
    await pane.keys("Up");
    await pane.waitForText("pasted line two▏");
    await pane.keys("C-e");
    await pane.waitForText("second line▏");
    await pane.keys("Enter");
    await pane.waitForText("› you: Written in the editor …", { timeoutMs: 15_000 });
    await pane.waitForText("✓ answer done", { timeoutMs: 15_000 });
    await pane.keys("q");
    await pane.waitForText("EXIT=0");
  });

  it("the approve flow: the pending approval in the pane, a note, a confirmation naming it, the decision said", async () => {
    const id = active(1);
    const ap = suite.server.addApproval(id, {
      kind: "deploy",
      message: "Deploy the landing page to production?",
    });
    const pane = await launch(["open", id]);
    await pane.keys("1");
    await pane.waitForText("⚑ needs you: deploy: Deploy the landing page to production?");
    await pane.keys("Y");
    await pane.waitForText(`Approve in ${id}`);
    await pane.type("ship it");
    await pane.keys("Enter");
    const confirm = await pane.waitForText("Approve — confirm");
    expect(confirm).toContain("Approves deploy: Deploy the landing page to production?");
    expect(confirm).toContain("Note: ship it");
    await pane.keys("y");
    await pane.waitForText(`${ap.id}: approved by`);
    await pane.waitFor("the approval to leave the pane", (s) => !s.includes("⚑ needs you"));
    expect(suite.server.approvals(id)[0]).toMatchObject({
      status: "approved",
      resolution_note: "ship it",
    });
    await pane.keys("q");
    await pane.waitForText("EXIT=0");
  });
});
