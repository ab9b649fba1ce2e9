import { afterEach, describe, expect, it } from "vitest";
import { App, type AppProps } from "../../src/ui/App.js";
import {
  emitSample,
  fixedNow,
  frameHeight,
  listedOnReference,
  maskVolatile,
  mountOnFixture,
  mountTree,
  pressKey,
  startReference,
  typeText,
  type UiFixture,
  type UiHarness,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * Snapshot frames of the whole UI, fed by the real stores filled from the reference service
 * (seeded, so ids, titles and keys repeat). The clock is fixed, so ages and rates read 0;
 * what still varies (port, key tail) is masked.
 */

afterEach(unmountReference);

/** The App on the fixture at the fixed clock. */
function mount(
  f: UiFixture,
  size: { columns: number; rows: number },
  props: Partial<AppProps> = {},
): UiHarness {
  return mountOnFixture(f, size, { now: fixedNow, ...props });
}

/** The list at the fixed clock with its first session on it. */
const listed = (size: { columns: number; rows: number }) =>
  listedOnReference(size, { props: { now: fixedNow } });

/** The list at 100×24 with its first session, its workspace a clone of demo/app. */
async function listedCloned(): Promise<UiHarness> {
  const fx = await startReference();
  const id = fx.ids[0] as string;
  await fx.client.git(id, { kind: "clone", repoUrl: "demo/app" });
  await fx.services.sessions.getState().refresh();
  const ui = mount(fx, { columns: 100, rows: 24 });
  await waitForContent(ui, id);
  return ui;
}

function snap(ui: UiHarness): string {
  const frame = ui.frame();
  expect(frameHeight(frame)).toBeLessThan(ui.rows);
  return maskVolatile(frame);
}

/** Every pane title shows live and a first heartbeat. */
async function allLive(ui: UiHarness, panes: number): Promise<void> {
  await waitForContent(ui, (f) => (f.match(/● live · ♥ 0s/g)?.length ?? 0) >= panes, 8000);
}

const FAST = { server: { heartbeatMs: 100 } };

describe("UI snapshots", () => {
  it("login screen: the key is masked as it is typed", async () => {
    const h = mountTree(
      <App
        services={null}
        profile="work"
        baseUrl="http://127.0.0.1:PORT"
        onLogin={async () => {
          throw new Error("not used");
        }}
        onExit={() => {}}
      />,
      { columns: 90, rows: 24 },
    );
    await waitForContent(h, "sign in");
    await typeText(h, "ask_secret_value");
    const frame = await waitForContent(h, "16 characters");
    expect(frame).not.toContain("secret");
    expect(snap(h)).toMatchSnapshot();
  });

  it("main screen: header with identity and scopes, and the session list", async () => {
    const fx = await startReference();
    const ui = mount(fx, { columns: 110, rows: 24 });
    await waitForContent(ui, fx.ids[3] as string);
    await waitForContent(ui, "never expires");
    expect(snap(ui)).toMatchSnapshot();
  });

  it("two panes beside the list", async () => {
    const fx = await startReference(FAST);
    const [a, b] = fx.ids as [string, string];
    const ui = mount(fx, { columns: 160, rows: 30 }, { initialSessions: [a, b] });
    await allLive(ui, 2);
    emitSample(fx.server, a, "alpha");
    emitSample(fx.server, b, "beta");
    await waitForContent(ui, "src/alpha.ts");
    await waitForContent(ui, "src/beta.ts");
    expect(snap(ui)).toMatchSnapshot();
  });

  it("four panes in a 2×2 grid", async () => {
    const fx = await startReference(FAST);
    const ids = fx.ids.slice(0, 4);
    const ui = mount(fx, { columns: 160, rows: 40 }, { initialSessions: ids });
    await allLive(ui, 4);
    for (const [i, id] of ids.entries()) emitSample(fx.server, id, `s${i}`);
    for (let i = 0; i < 4; i++) await waitForContent(ui, `src/s${i}.ts`);
    expect(snap(ui)).toMatchSnapshot();
  });

  it("zoom: the focused pane takes the whole body", async () => {
    const fx = await startReference(FAST);
    const [a, b] = fx.ids as [string, string];
    const ui = mount(fx, { columns: 160, rows: 24 }, { initialSessions: [a, b] });
    await allLive(ui, 2);
    emitSample(fx.server, a, "alpha");
    await waitForContent(ui, "src/alpha.ts");
    await pressKey(ui, "z");
    const frame = await waitForContent(ui, (f) => !f.includes("Sessions"));
    expect(frame).toContain(`1 ${a}`);
    expect(frame).not.toContain(`2 ${b}`);
    expect(snap(ui)).toMatchSnapshot();
  });

  it("clone dialog", async () => {
    const { h: ui } = await listed({ columns: 100, rows: 24 });
    await pressKey(ui, "c");
    await waitForContent(ui, "Clone a repository");
    await typeText(ui, "demo/app");
    await waitForContent(ui, "demo/app█".replace("█", ""));
    expect(snap(ui)).toMatchSnapshot();
  });

  it("push confirmation names the session, its branch and what will happen", async () => {
    const ui = await listedCloned();
    await pressKey(ui, "p");
    const frame = await waitForContent(ui, "Push — confirm");
    expect(frame).toContain("main");
    expect(snap(ui)).toMatchSnapshot();
  });

  it("clone confirmation says the workspace will be replaced", async () => {
    const ui = await listedCloned();
    await pressKey(ui, "c");
    // The form starts with the session's repository (github_repo, as the record has it now).
    await waitForContent(ui, "https://github.com/demo/app.git");
    await pressKey(ui, "\u0015"); // Ctrl-U clears the field
    await typeText(ui, "demo/docs");
    await pressKey(ui, "enter");
    await waitForContent(ui, "Clone — confirm");
    expect(snap(ui)).toMatchSnapshot();
  });

  it("messages log: every message whole, with its time", async () => {
    const { h: ui } = await listed({ columns: 100, rows: 24 });
    await pressKey(ui, "5");
    await waitForContent(ui, "No pane 5");
    // A second message of another kind than "No pane" would need a fixture without paused
    // sessions: the attention queue covers every listed session, so `a` now jumps to one.
    await pressKey(ui, "6");
    await waitForContent(ui, "No pane 6");
    await pressKey(ui, "m");
    await waitForContent(ui, "Messages — 2 messages");
    expect(snap(ui)).toMatchSnapshot();
  });

  it("branch dialog", async () => {
    const { h: ui } = await listed({ columns: 100, rows: 24 });
    await pressKey(ui, "b");
    await waitForContent(ui, "Create a branch");
    await typeText(ui, "feature/retry");
    await waitForContent(ui, "feature/retry");
    expect(snap(ui)).toMatchSnapshot();
  });

  it("pull request dialog", async () => {
    const { h: ui } = await listed({ columns: 100, rows: 24 });
    await pressKey(ui, "r");
    await waitForContent(ui, "Open a pull request");
    await typeText(ui, "Fix flaky CI");
    await pressKey(ui, "tab");
    await typeText(ui, "main");
    await waitForContent(ui, /Base branch \(optional\)\s+main/);
    expect(snap(ui)).toMatchSnapshot();
  });

  it("help overlay, generated from the keymap", async () => {
    const { h: ui } = await listed({ columns: 150, rows: 40 });
    await pressKey(ui, "?");
    await waitForContent(ui, "Everywhere");
    expect(snap(ui)).toMatchSnapshot();
  });

  it("a disabled action says which scope is missing", async () => {
    const fx = await startReference({ key: "readonly" });
    const ui = mount(fx, { columns: 110, rows: 24 });
    await waitForContent(ui, fx.ids[0] as string);
    await pressKey(ui, "p");
    const frame = await waitForContent(ui, "push is disabled");
    expect(frame).toContain("sessions:write");
    expect(frame).not.toContain("confirm");
    expect(snap(ui)).toMatchSnapshot();
  });

  it("a pane reconnecting after the service dropped its stream", async () => {
    const fx = await startReference({ ...FAST, backoffBaseMs: 30_000 });
    const id = fx.ids[0] as string;
    const h = mountTree(
      <App
        services={fx.services}
        profile="work"
        baseUrl={fx.server.url}
        onExit={() => {}}
        initialSessions={[id]}
      />,
      { columns: 140, rows: 20 },
    );
    await waitForContent(h, "● live ·");
    // The stream is live before the history is read: the faults wait until it has been, or
    // the history read would meet the 503 instead of the stream.
    await expect.poll(() => fx.streamsController.readingPast(id), { timeout: 5000 }).toBe(false);
    fx.server.faults.set({ dropAfter: 1, failStatus: 503, failCount: Number.POSITIVE_INFINITY });
    fx.server.emit(id, "process_output", { text: "last words\n" });
    await waitForContent(h, /reconnecting in \d+s \(attempt \d+\)/, 8000);
    await waitForContent(h, "connection lost");
    // Real clock here (a countdown is the point): the title's length varies, so its fill does.
    expect(snap(h).replace(/ [═─━]+([╗┐┓])/g, " ═══$1")).toMatchSnapshot();
  });

  it("a pane whose stream stopped, and why", async () => {
    const fx = await startReference({
      server: { faults: { statusFor: { path: /\/events$/, status: 410, count: 1000 } } },
    });
    const id = fx.ids[0] as string;
    const ui = mount(
      fx,
      { columns: 140, rows: 20 },
      { initialSessions: [id], options: { bell: false } },
    );
    await waitForContent(ui, "■ stopped:");
    expect(snap(ui)).toMatchSnapshot();
  });

  it("a terminal too small gets a message instead of a broken layout", async () => {
    const fx = await startReference();
    const ui = mount(fx, { columns: 50, rows: 12 });
    await waitForContent(ui, "Terminal too small");
    expect(snap(ui)).toMatchSnapshot();
  });

  it("NO_COLOR: no colour at all, still readable", async () => {
    const fx = await startReference(FAST);
    const [a, b] = fx.ids as [string, string];
    const ui = mount(
      fx,
      { columns: 160, rows: 24 },
      {
        initialSessions: [a, b],
        options: { noColor: true },
      },
    );
    await allLive(ui, 2);
    emitSample(fx.server, a, "alpha");
    fx.server.setState(b, "paused");
    await waitForContent(ui, "src/alpha.ts");
    await waitForContent(ui, "active → paused");
    // Colour SGR: 30–37, 39, 40–47, 49, 90–97, 100–107, 256/true colour (38;… 48;…).
    const colour = /\x1b\[(?:[0-9;]*;)?(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9;]*)?m/;
    expect(ui.rawFrame()).not.toMatch(colour);
    expect(snap(ui)).toMatchSnapshot();
  });
});
