import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { terminalOnReference, tmuxForSuite } from "../helpers/tmux.js";

/**
 * `@` in the UI: the session's shell takes the whole terminal (the same code as
 * `agent-sessions attach`): the UI is not drawn meanwhile and reads no key, `echo hi` shows
 * `hi` full screen, a resize reaches the shell, and Ctrl-] gives the terminal back to the UI
 * as it was (the list, at the new size, its keys read again).
 */

const TMUX = tmuxForSuite("attach-from-the-UI suite");

describe.skipIf(!TMUX)(`@ in the UI, in tmux (${TMUX ?? "no tmux"})`, () => {
  const suite = terminalOnReference({ seed: 34, paceMs: 0, sessionCount: 3 });
  const { terminal } = suite;

  /** `agent-sessions open ID` in a tmux session of its own, its exit status printed after. */
  function launch(name: string, id: string, size: { width: number; height: number }) {
    const app = terminal.command(suite.server.url, suite.server.key("owner"), ["open", id], {
      AGENT_SESSIONS_BELL: "0",
    });
    return terminal.openApp(name, app, size);
  }

  it("@ attaches full screen, echo hi shows hi, a resize reaches the shell, Ctrl-] returns to the list", async () => {
    const id = suite.server.sessions().find((s) => s.state === "active")?.id as string;
    const pane = await launch("attachui", id, { width: 120, height: 32 });
    try {
      await pane.waitFor("the UI live", (s) => /● live/.test(s) && s.includes(id));
      await pane.keys("@");
      const attached = await pane.waitFor("the shell's prompt, full screen", (s) => /^\$/m.test(s));
      // The UI draws nothing while the shell has the terminal.
      expect(attached).not.toMatch(/agent-sessions ·/);
      expect(await pane.format("#{alternate_on}")).toBe("1");
      await pane.type("echo h''i");
      await pane.keys("Enter");
      const hi = await pane.waitFor("hi on its own line", (s) => /^hi$/m.test(s));
      expect(hi).not.toMatch(/║/);

      await pane.resize(100, 24);
      await pane.type("stty size");
      await pane.keys("Enter");
      await pane.waitForText("24 100");

      await pane.keys("C-]");
      const back = await pane.waitFor(
        "the UI again, with the detach said",
        (s) => /agent-sessions ·/.test(s) && s.includes(`${id}: detached`),
      );
      expect(back).toContain(id);
      expect(back).not.toMatch(/^hi$/m);
      // Drawn at the size the terminal has now.
      const widest = Math.max(...back.split("\n").map((l) => l.trimEnd().length));
      expect(widest).toBeLessThanOrEqual(100);
      expect(await pane.format("#{alternate_on}")).toBe("1");

      // Its keys are read again: q quits and the terminal is given back.
      await pane.keys("q");
      await pane.waitForText("EXIT=0");
      expect(await pane.format("#{alternate_on} #{cursor_flag}")).toBe("0 1");
    } finally {
      await pane.kill();
    }
  }, 60_000);

  it("SIGTERM while attached from the UI ends the app and gives the terminal back", async () => {
    const id = suite.server.sessions().find((s) => s.state === "active")?.id as string;
    const pane = await launch("attachui2", id, { width: 100, height: 30 });
    try {
      await pane.waitFor("the UI live", (s) => /● live/.test(s) && s.includes(id));
      await pane.keys("@");
      await pane.waitFor("the shell's prompt, full screen", (s) => /^\$/m.test(s));
      // The app: the one child of the pane's shell (env execs node).
      const shell = await pane.format("#{pane_pid}");
      const pid = Number(readFileSync(`/proc/${shell}/task/${shell}/children`, "utf8").trim());
      process.kill(pid, "SIGTERM");
      await pane.waitForText("EXIT=0");
      expect(await pane.format("#{alternate_on} #{cursor_flag}")).toBe("0 1");
      // The line discipline is cooked again: typed text is echoed.
      await pane.type("ECHO-BACK");
      await pane.waitForText("ECHO-BACK");
    } finally {
      await pane.kill();
    }
  }, 60_000);
});
