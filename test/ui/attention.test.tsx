import { afterEach, describe, expect, it } from "vitest";
import {
  type AppHarness,
  cleanFrame,
  KEYS,
  mountApp,
  pressKey,
  startUiFixture,
  type UiFixture,
  waitForContent,
} from "../helpers/ui.js";

/**
 * Sessions that need the user, across every session: marks on panes and rows, the queue and
 * its key, `a` jumping through it, coalesced notifications.
 */

let fx: UiFixture | null = null;
let h: AppHarness | null = null;

afterEach(async () => {
  h?.unmount();
  h = null;
  await fx?.close();
  fx = null;
});

describe("attention", () => {
  it("a session pausing marks its pane and row, rings the bell, and `a` jumps through the queue, newest first", async () => {
    fx = await startUiFixture();
    const [a, b, c] = fx.ids as [string, string, string];
    // The seeded service starts the third session paused: it waits from the start.
    expect(fx.server.sessions()[2]?.state).toBe("paused");
    h = mountApp(fx, { columns: 160, rows: 30 }, { initialSessions: [a, b] });
    await waitForContent(h, (f) => (f.match(/● live ·/g)?.length ?? 0) === 2);
    await pressKey(h, "0");
    // Beside panes a row shows the state's glyph and the name.
    const cName = fx.server.sessions()[2]?.name as string;
    let frame = await waitForContent(h, ` !  ⏸ ${cName}`);
    // What already waited when the list came is queued, but rings nothing.
    expect(h.bells()).toBe(0);

    fx.server.setState(b, "paused");
    await waitForContent(h, `⚠ 2 ${b}`);
    frame = await waitForContent(h, "active → paused");
    // Its row in the list (titles first beside panes): marked, numbered, paused.
    expect(frame).toMatch(/ !2 ⏸ /);
    await waitForContent(h, () => h?.bells() === 1);

    // Newest first: the pane that just paused.
    await pressKey(h, "a");
    frame = await waitForContent(h, `╔═ 2 ${b}`);
    // Seen: the marks go, the paused badge stays.
    expect(frame).not.toContain("⚠");
    expect(frame).not.toMatch(/ !2 /);
    expect(frame).toMatch(/ {2}2 ⏸ /);
    expect(frame).toContain(`2 ${b} ⏸ paused`);

    // Then the one that waited from the start: not in a pane, so its row in the list.
    await pressKey(h, "a");
    frame = await waitForContent(h, `▸   ⏸ ${cName}`);
    expect(frame).toMatch(/╔═+╗┌/);

    await pressKey(h, "a");
    await waitForContent(h, "No session needs attention that you have not seen (A lists 2)");

    // The queue: both, newest first, with why and since when.
    await pressKey(h, "A");
    frame = await waitForContent(h, "Attention · 0 new, 2 in all");
    const first = frame.indexOf(`${b}  ⏸ paused`);
    const second = frame.indexOf(`${c}  ⏸ paused`);
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(first);
    expect(frame).toMatch(
      new RegExp(`${b}  ⏸ paused +since \\d\\d:\\d\\d:\\d\\d \\(.+\\) +· stream`),
    );
    expect(frame).toMatch(
      new RegExp(`${c}  ⏸ paused +since \\d\\d:\\d\\d:\\d\\d \\(.+\\) +· list`),
    );
    // The age has a column of its own: what follows it stays put whatever the age reads.
    const lineOf = (id: string) => frame.split("\n").find((l) => l.includes(id)) ?? "";
    expect(lineOf(b).indexOf("· stream")).toBe(lineOf(c).indexOf("· list"));
    await pressKey(h, "escape");
    await waitForContent(h, "Sessions 4/4");
    expect(h.bells()).toBe(1);
  });

  it("a session with no pane that pauses is seen in the list refresh: marked, rung, and `a` finds it", async () => {
    fx = await startUiFixture();
    const d = fx.ids[3] as string;
    h = mountApp(fx, { columns: 160, rows: 30 });
    await waitForContent(h, "4 shown of 4 loaded");
    fx.server.setState(d, "paused");
    // No stream watches it: only the list can tell.
    await pressKey(h, KEYS.ctrlR);
    await waitForContent(h, new RegExp(` !  ${d} ⏸ paused`));
    await waitForContent(h, () => h?.bells() === 1);
    await pressKey(h, "a");
    await waitForContent(h, new RegExp(`▸   ${d} ⏸ paused`));
  });

  it("a stream stopping on an error needs attention too", async () => {
    // A stream refused for good (a key without sessions:prompt follows the record instead).
    fx = await startUiFixture({
      server: { faults: { statusFor: { path: /\/events$/, status: 410, count: 1000 } } },
    });
    const id = fx.ids[0] as string;
    h = mountApp(fx, { columns: 160, rows: 30 }, { initialSessions: [id] });
    const frame = await waitForContent(h, "■ stopped:");
    expect(frame).toContain("⚠ 1 ");
    expect(frame).toContain("(HTTP 410)");
    await waitForContent(h, () => h?.bells() === 1);
  });

  it("sessions pausing together ring one bell, not one each", async () => {
    fx = await startUiFixture();
    const [a, b] = fx.ids as [string, string];
    h = mountApp(fx, { columns: 160, rows: 30 }, { initialSessions: [a, b] });
    await waitForContent(h, (f) => (f.match(/● live ·/g)?.length ?? 0) === 2);
    fx.server.setState(a, "paused");
    await waitForContent(h, `⚠ 1 ${a}`);
    fx.server.setState(b, "paused");
    await waitForContent(h, (f) => (f.match(/⚠/g)?.length ?? 0) === 2);
    await waitForContent(h, () => h?.bells() === 1);
    // The one bell came after both sessions were marked: the first transition waited for
    // the second, rather than ringing on its own.
    const writes = h.writes;
    const bothMarked = writes.findIndex((w) => (cleanFrame(w).match(/⚠/g)?.length ?? 0) === 2);
    const bell = writes.findIndex((w) => w.includes("\u0007"));
    expect(bothMarked).toBeGreaterThanOrEqual(0);
    expect(bell).toBeGreaterThan(bothMarked);
    expect(h.bells()).toBe(1);
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

  it("with osc, a desktop notification names the session and the reason (OSC 9)", async () => {
    fx = await startUiFixture();
    const id = fx.ids[0] as string;
    const name = fx.server.sessions()[0]?.name as string;
    h = mountApp(
      fx,
      { columns: 160, rows: 30 },
      { initialSessions: [id], options: { bell: false, osc: "9" } },
    );
    await waitForContent(h, "● live ·");
    fx.server.setState(id, "paused");
    const osc = `\u001b]9;agent-sessions: a session needs you: ${name} (${id}) paused\u0007`;
    await waitForContent(h, () => h?.writes.some((w) => w.includes(osc)) ?? false);
    expect(h.bells()).toBe(0);
  });
});
