import { afterEach, describe, expect, it } from "vitest";
import {
  type AppHarness,
  mountApp,
  pressKey,
  startUiFixture,
  typeText,
  type UiFixture,
  waitForContent,
} from "../helpers/ui.js";

/**
 * `$` opens the focused session's shell in its pane: keys go to the shell (a real one, the
 * reference service's, over a WebSocket on loopback) until Ctrl-] gives them back; its output
 * is drawn from the emulator's cells, so a hostile title or clipboard write never reaches the
 * terminal. Without sessions:terminal the key says which scope is missing; a paused session
 * is offered a resume first.
 */

let fx: UiFixture | null = null;
let h: AppHarness | null = null;

afterEach(async () => {
  h?.unmount();
  h = null;
  await fx?.close();
  fx = null;
});

const CTRL_CLOSE_BRACKET = "\u001d";

describe("the shell pane", () => {
  it("$ opens the shell, echo hi shows hi, hostile sequences never reach the screen, Ctrl-] gives the keys back", async () => {
    fx = await startUiFixture();
    const id = fx.server.sessions().find((s) => s.state === "active")?.id as string;
    h = mountApp(fx, { columns: 120, rows: 30 }, { initialSessions: [id] });
    await waitForContent(h, "● live ·");
    await pressKey(h, "$");
    await waitForContent(h, "keys go to the shell");
    await waitForContent(h, /║\$/);
    await typeText(h, "echo h''i\r");
    await waitForContent(h, /║hi\s/);
    // "q" is the shell's now, not the app's quit.
    await typeText(h, "printf '\\033]0;PWNED\\007\\033]52;c;cHduZWQ=\\007q-typed\\n'\r");
    await waitForContent(h, /║q-typed\s/);
    const raw = h.writes.join("");
    expect(raw).not.toContain("\u001b]0;PWNED");
    expect(raw).not.toContain("\u001b]52");
    await typeText(h, CTRL_CLOSE_BRACKET);
    await waitForContent(h, "The keys are the grid's again");
    // The grid has the keys again: the pane still shows the shell.
    expect(h.frame()).toContain("q-typed");
  }, 30_000);

  it("without sessions:terminal the key names the missing scope", async () => {
    fx = await startUiFixture({ key: "member" });
    const active = fx.server.sessions().find((s) => s.state === "active")?.id as string;
    h = mountApp(fx, { columns: 120, rows: 30 }, { initialSessions: [active] });
    await waitForContent(h, "● live ·");
    await pressKey(h, "$");
    await waitForContent(
      h,
      /shell is disabled: the key's effective scopes lack\s+sessions:terminal/,
    );
  }, 30_000);

  it("a paused session's shell is offered after a resume", async () => {
    fx = await startUiFixture();
    const paused = fx.server.sessions().find((s) => s.state === "paused")?.id as string;
    h = mountApp(fx, { columns: 120, rows: 30 }, { initialSessions: [paused] });
    await waitForContent(h, paused);
    await pressKey(h, "$");
    await waitForContent(h, /[Rr]esume/);
    expect(h.frame()).not.toContain("keys go to the shell");
  }, 30_000);
});
