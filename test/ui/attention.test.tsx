import { afterEach, describe, expect, it } from "vitest";
import {
  type AppHarness,
  mountApp,
  pressKey,
  startUiFixture,
  type UiFixture,
  waitForContent,
} from "../helpers/ui.js";

/** Sessions that need the user: marks, the bell, and the key that jumps to them. */

let fx: UiFixture | null = null;
let h: AppHarness | null = null;

afterEach(async () => {
  h?.unmount();
  h = null;
  await fx?.close();
  fx = null;
});

describe("attention", () => {
  it("a session pausing marks its pane and row, rings the bell, and `a` jumps to it", async () => {
    fx = await startUiFixture();
    const [a, b] = fx.ids as [string, string];
    h = mountApp(fx, { columns: 160, rows: 30 }, { initialSessions: [a, b] });
    await waitForContent(h, (f) => (f.match(/● live ·/g)?.length ?? 0) === 2);
    await pressKey(h, "0");
    expect(h.bells()).toBe(0);

    fx.server.setState(b, "paused");
    let frame = await waitForContent(h, `⚠ 2 ${b}`);
    // Its row in the list (titles first beside panes): marked, numbered, paused.
    expect(frame).toMatch(/ !2 ⏸ /);
    expect(frame).toContain("active → paused");
    await waitForContent(h, () => h?.bells() === 1);

    await pressKey(h, "a");
    frame = await waitForContent(h, `╔═ 2 ${b}`);
    // Seen: the marks go, the paused badge stays.
    expect(frame).not.toContain("⚠");
    expect(frame).not.toMatch(/ !2 /);
    expect(frame).toMatch(/ {2}2 ⏸ /);
    expect(frame).toContain(`2 ${b} ⏸ paused`);

    await pressKey(h, "a");
    await waitForContent(h, "No session needs attention");
  });

  it("a stream stopping on an error needs attention too", async () => {
    fx = await startUiFixture({ key: "listonly" });
    const id = fx.ids[0] as string;
    h = mountApp(fx, { columns: 160, rows: 30 }, { initialSessions: [id] });
    const frame = await waitForContent(h, `⚠ 1 ${id}`);
    expect(frame).toContain("■ stopped: Insufficient scope: requires sessions:prompt");
    await waitForContent(h, () => h?.bells() === 1);
  });

  it("the bell can be turned off", async () => {
    fx = await startUiFixture();
    const id = fx.ids[0] as string;
    h = mountApp(
      fx,
      { columns: 160, rows: 30 },
      { initialSessions: [id], options: { bell: false } },
    );
    await waitForContent(h, "● live ·");
    fx.server.setState(id, "paused");
    await waitForContent(h, `⚠ 1 ${id}`);
    expect(h.bells()).toBe(0);
  });
});
