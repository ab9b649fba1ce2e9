import { afterEach, describe, expect, it } from "vitest";
import {
  type AppHarness,
  mountOnReference,
  pressKey,
  typeText,
  type UiFixture,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * `$` opens the focused session's shell in its pane: keys go to the shell (a real one, the
 * reference service's, over a WebSocket on loopback) until Ctrl-] gives them back; its output
 * is drawn from the emulator's cells, so a hostile title or clipboard write never reaches the
 * terminal. Without sessions:terminal the key says which scope is missing; a paused session
 * is offered a resume first.
 */

afterEach(unmountReference);

const CTRL_CLOSE_BRACKET = "\u001d";
const SHIFT_PAGE_UP = "\u001b[5;2~";

const SIZE = { columns: 120, rows: 30 };

/** The fixture's first session in that state. */
const firstIn = (fx: UiFixture, state: string) =>
  fx.server.sessions().find((s) => s.state === state)?.id as string;

/** The App with a pane open on the fixture's first session in that state. */
const paneOn = (state: string) => (fx: UiFixture) => ({ initialSessions: [firstIn(fx, state)] });

/** An active session's shell open in its pane, its prompt shown. */
async function openShell(size = SIZE): Promise<AppHarness> {
  const { h: app } = await mountOnReference(size, { props: paneOn("active") });
  await waitForContent(app, "● live ·");
  await pressKey(app, "$");
  await waitForContent(app, /║\$/);
  return app;
}

describe("the shell pane", () => {
  it("$ opens the shell, echo hi shows hi, hostile sequences never reach the screen, Ctrl-] gives the keys back", async () => {
    const { h } = await mountOnReference(SIZE, { props: paneOn("active") });
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
    const { h } = await mountOnReference(SIZE, { key: "member", props: paneOn("active") });
    await waitForContent(h, "● live ·");
    await pressKey(h, "$");
    await waitForContent(
      h,
      /shell is disabled: the key's effective scopes lack\s+sessions:terminal/,
    );
  }, 30_000);

  it("a paused session's shell is offered after a resume", async () => {
    const { fx, h } = await mountOnReference(SIZE, { props: paneOn("paused") });
    const paused = firstIn(fx, "paused");
    await waitForContent(h, paused);
    await pressKey(h, "$");
    await waitForContent(h, /[Rr]esume/);
    expect(h.frame()).not.toContain("keys go to the shell");
  }, 30_000);

  it("scroll mode: Shift-PgUp gives the pane the keys, / finds a line of the scrollback, n and N step, q goes back to the live shell", async () => {
    const app = await openShell();
    // The words are split where they are typed, so only the output holds them whole.
    await typeText(
      app,
      "echo nee''dle-one; i=0; while [ $i -lt 80 ]; do i=$((i+1)); echo filler-$i; done; echo nee''dle-two; i=0; while [ $i -lt 80 ]; do i=$((i+1)); echo tail-$i; done\r",
    );
    await waitForContent(app, /║tail-80\s/);
    await pressKey(app, SHIFT_PAGE_UP);
    await waitForContent(app, "scroll mode ·");
    // The pane's keys now: q does not reach the shell, / opens the search.
    await pressKey(app, "/");
    await waitForContent(app, "search: ");
    await typeText(app, "needle\r");
    await waitForContent(app, /"needle": match 1 of 2/);
    expect(app.frame()).toMatch(/║needle-two\s/);
    expect(app.frame()).not.toMatch(/needle-one/);
    await pressKey(app, "n");
    await waitForContent(app, /"needle": match 2 of 2/);
    expect(app.frame()).toMatch(/║needle-one\s/);
    await pressKey(app, "n");
    await waitForContent(app, /no match further back/);
    await pressKey(app, "N");
    await waitForContent(app, /║needle-two\s/);
    await pressKey(app, "pageDown");
    await pressKey(app, "q");
    await waitForContent(app, "the live shell has the keys again");
    expect(app.frame()).toMatch(/║tail-80\s/);
    await typeText(app, "echo b''ack\r");
    await waitForContent(app, /║back\s/);
  }, 30_000);

  it("resizing the pane resizes the shell's terminal (stty size)", async () => {
    const app = await openShell();
    await typeText(app, "stty size\r");
    const first = (await waitForContent(app, /║(\d+) (\d+)\s/)).match(/║(\d+) (\d+)\s/);
    const [rows0, cols0] = [Number(first?.[1]), Number(first?.[2])];
    expect(cols0).toBeGreaterThan(20);
    app.resize(100, 26);
    await typeText(app, "clear; stty size\r");
    await waitForContent(app, (frame) => {
      const m = frame.match(/║(\d+) (\d+)\s/);
      return m !== null && Number(m[2]) < cols0 && Number(m[1]) < rows0;
    });
  }, 30_000);

  it("a destroyed session says it has no shell to open", async () => {
    let id = "";
    const { h } = await mountOnReference(SIZE, {
      before: async (fx) => {
        id = firstIn(fx, "active");
        await fx.client.destroySession(id);
        await fx.services.sessions.getState().load();
      },
      props: () => ({ initialSessions: [id] }),
    });
    await waitForContent(h, id);
    await pressKey(h, "$");
    await waitForContent(h, new RegExp(`${id} is destroy(ed|ing): it has no shell to open`));
    expect(h.frame()).not.toContain("keys go to the shell");
  }, 30_000);
});
