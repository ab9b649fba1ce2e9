import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { shellQuote, terminalOnReference, tmuxForSuite } from "../helpers/tmux.js";

/**
 * `agent-sessions attach` in a real terminal (tmux) against the reference service's shell:
 * typing reaches the shell, a hostile title never reaches the terminal, a resize reaches the
 * pty, Ctrl-] detaches, and SIGTERM leaves the terminal as it was (main screen, cursor shown,
 * line discipline back).
 */

const TMUX = tmuxForSuite("attach end-to-end suite");

describe.skipIf(!TMUX)(`attach in tmux (${TMUX ?? "no tmux"})`, () => {
  const suite = terminalOnReference({ seed: 34, paceMs: 0, sessionCount: 3 });
  const { terminal } = suite;
  const dir = mkdtempSync(join(tmpdir(), "as-attach-"));

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("echo hi, a hostile title, a resize, detach with Ctrl-], reattach, and SIGTERM restores the terminal", async () => {
    const id = suite.server.sessions().find((s) => s.state === "active")?.id as string;
    const pidFile = join(dir, "pid");
    const app = terminal.command(suite.server.url, suite.server.key("owner"), ["attach", id]);
    // The attach runs in the pane's own shell so what it leaves behind (stty, screen) shows.
    const script = `stty -a | grep -o -- '-\\?icanon' > ${shellQuote(join(dir, "before"))}; sh -c 'echo $$ > ${pidFile}; exec "$@"' sh ${app.replace(/^env /, "env ")}; echo "EXIT=$?"; stty -a | grep -o -- '-\\?icanon' > ${shellQuote(join(dir, "after"))}; exec sleep 600`;
    const pane = await terminal.open("attach1", script, { width: 100, height: 30 });
    await pane.waitFor("the shell prompt", (s) => /^\$/m.test(s));
    await pane.type("echo h''i");
    await pane.keys("Enter");
    await pane.waitFor("hi on its own line", (s) => /^hi$/m.test(s));
    expect(await pane.format("#{alternate_on}")).toBe("1");

    await pane.type(`printf '\\033]2;PWNED\\007\\033]52;c;cHduZWQ=\\007title-sent\\n'`);
    await pane.keys("Enter");
    await pane.waitFor("the printf done", (s) => /^title-sent$/m.test(s));
    expect(await pane.format("#{pane_title}")).not.toContain("PWNED");

    await pane.resize(90, 20);
    await pane.type("stty size");
    await pane.keys("Enter");
    await pane.waitForText("20 90");

    await pane.keys("C-]");
    const detached = await pane.waitForText("EXIT=0");
    expect(detached).toContain(`detached from ${id}`);
    expect(await pane.format("#{alternate_on}")).toBe("0");
    await pane.kill();

    // Again, and this time it is ended by a signal.
    const again = await terminal.open("attach2", script, { width: 100, height: 30 });
    await again.waitFor("the shell prompt", (s) => /^\$/m.test(s));
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    process.kill(pid, "SIGTERM");
    const after = await again.waitForText("EXIT=143");
    expect(after).toContain("SIGTERM: detached from");
    expect(await again.format("#{alternate_on}")).toBe("0");
    expect(await again.format("#{cursor_flag}")).toBe("1");
    await again.waitFor("stty read", () => existsSync(join(dir, "after")));
    expect(readFileSync(join(dir, "after"), "utf8")).toBe(
      readFileSync(join(dir, "before"), "utf8"),
    );
    await again.kill();
  }, 60_000);
});
