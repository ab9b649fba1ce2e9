import { afterEach, describe, expect, it } from "vitest";
import {
  cleanFrame,
  KEYS,
  mountOnFixture,
  pressKey,
  startReference,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * Sessions that need the user, across every session: marks on panes and rows, the queue and
 * its key, `a` jumping through it, coalesced notifications.
 */

afterEach(unmountReference);

describe("attention", () => {
  it("a row awaiting approval is marked ⚑ (as its pane says it), not ?, which is help", async () => {
    const fx = await startReference();
    const [a] = fx.ids as [string];
    const h = mountOnFixture(fx, { columns: 160, rows: 30 });
    await waitForContent(h, a);
    fx.server.addApproval(a, { message: "Deploy?" });
    await fx.services.sessions.getState().refreshSession(a);
    const frame = await waitForContent(h, new RegExp(`⚑ {2}${a} `));
    expect(frame).not.toMatch(new RegExp(`\\? {2}${a} `));
  });

  it("a failed pane says why in its lines, not only in its title", async () => {
    const fx = await startReference();
    const [a] = fx.ids as [string];
    const h = mountOnFixture(fx, { columns: 140, rows: 30 }, { initialSessions: [a] });
    await waitForContent(h, "● live ·");
    fx.server.setState(a, "error");
    const why = fx.server.sessions().find((s) => s.id === a)?.error_message as string;
    expect(why.length).toBeGreaterThan(0);
    const frame = await waitForContent(h, `✗ failed: ${why}`);
    expect(frame).toContain(`⚠ failed 1 ${a}`);
    // Working again, the reason goes with the failure.
    fx.server.setState(a, "running");
    await waitForContent(h, (f) => !f.includes("✗ failed:"));
  });

  it("a session failing marks its pane and row with the reason, rings the bell, and `a` jumps through the queue, newest first", async () => {
    const fx = await startReference();
    const [a, b, c] = fx.ids as [string, string, string];
    // The seeded service starts the third session paused: shown in the queue, never rung.
    expect(fx.server.sessions()[2]?.state).toBe("paused");
    const h = mountOnFixture(fx, { columns: 160, rows: 30 }, { initialSessions: [a, b] });
    await waitForContent(h, (f) => (f.match(/● live ·/g)?.length ?? 0) === 2);
    await pressKey(h, "0");
    // Beside panes a row shows its reason's glyph, the state's glyph and the name.
    const cName = fx.server.sessions()[2]?.name as string;
    let frame = await waitForContent(h, ` ⏸  ⏸ ${cName}`);
    expect(h.bells()).toBe(0);

    fx.server.setState(b, "error");
    frame = await waitForContent(h, `⚠ failed 2 ${b}`);
    expect(frame).toMatch(/ ✗2 ✗ /);
    await waitForContent(h, () => h.bells() === 1);

    // Newest first, and what notifies before what does not: the pane that just failed. Seen,
    // it keeps its mark: the failure stands.
    await pressKey(h, "a");
    frame = await waitForContent(h, `╔═ ⚠ failed 2 ${b}`);
    expect(frame).toContain(`2 ${b} ✗ error`);

    // Then the paused one: not in a pane, so its row in the list, its mark kept too.
    await pressKey(h, "a");
    frame = await waitForContent(h, `▸⏸  ⏸ ${cName}`);
    expect(frame).toContain(`⚠ failed 2 ${b}`);

    // The queue: both, with the reason named and the time the record gives.
    await pressKey(h, "A");
    frame = await waitForContent(h, /Attention · \d new, 2 in all/);
    expect(frame).toMatch(new RegExp(`✗ ${b} .*failed: .+ +since \\d\\d:\\d\\d:\\d\\d`));
    expect(frame).toMatch(new RegExp(`⏸ ${c} .*paused +since \\d\\d:\\d\\d:\\d\\d`));
    await pressKey(h, "escape");
    // (The failed one leaves the list at its next reading: the service hides error sessions.)
    await waitForContent(h, /Sessions [34]\/[34]/);
    expect(h.bells()).toBe(1);
  });

  it("a session with no pane that fails is seen in the list refresh: marked, rung, and `a` finds it; a pause there rings nothing", async () => {
    const fx = await startReference();
    const [, , , d] = fx.ids as [string, string, string, string];
    const e = fx.ids[0] as string;
    const h = mountOnFixture(fx, { columns: 160, rows: 30 });
    await waitForContent(h, "4 shown of 4 loaded");
    fx.server.setState(e, "paused");
    await pressKey(h, KEYS.ctrlR);
    await waitForContent(h, new RegExp(`⏸  ${e} ⏸ paused`));
    fx.server.setState(d, "error");
    // No stream watches it: only the list can tell. The service hides failed sessions from
    // the list unless asked, so the row goes; the session is read on its own and rings.
    await pressKey(h, KEYS.ctrlR);
    await waitForContent(h, () => h.bells() === 1);
    expect(h.frame()).not.toMatch(new RegExp(`${d} ✗ error`));
    // `a` finds it all the same: not in the list, so in a pane of its own.
    await pressKey(h, "a");
    await waitForContent(h, new RegExp(`1 ${d} ✗ error`));
    // Asked for (D), the list shows it with its reason's mark.
    await pressKey(h, "0");
    await pressKey(h, "D");
    await waitForContent(h, new RegExp(`${d} ✗ error`));
    expect(h.bells()).toBe(1);
  });

  it("a stream stopping on an error needs attention too", async () => {
    // A stream refused for good (a key without sessions:prompt follows the record instead).
    const fx = await startReference({
      server: { faults: { statusFor: { path: /\/events$/, status: 410, count: 1000 } } },
    });
    const id = fx.ids[0] as string;
    const h = mountOnFixture(fx, { columns: 160, rows: 30 }, { initialSessions: [id] });
    const frame = await waitForContent(h, "■ stopped:");
    expect(frame).toContain("⚠ stream 1 ");
    expect(frame).toContain("(HTTP 410)");
    await waitForContent(h, () => h.bells() === 1);
  });

  it("sessions failing together ring one bell, not one each", async () => {
    const fx = await startReference();
    const [a, b] = fx.ids as [string, string];
    const h = mountOnFixture(fx, { columns: 160, rows: 30 }, { initialSessions: [a, b] });
    await waitForContent(h, (f) => (f.match(/● live ·/g)?.length ?? 0) === 2);
    fx.server.setState(a, "error");
    await waitForContent(h, `⚠ failed 1 ${a}`);
    fx.server.setState(b, "error");
    await waitForContent(h, (f) => (f.match(/⚠/g)?.length ?? 0) === 2);
    await waitForContent(h, () => h.bells() === 1);
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
    const fx = await startReference();
    const id = fx.ids[0] as string;
    const h = mountOnFixture(
      fx,
      { columns: 160, rows: 30 },
      { initialSessions: [id], options: { bell: false } },
    );
    await waitForContent(h, "● live ·");
    fx.server.setState(id, "error");
    await waitForContent(h, `⚠ failed 1 ${id}`);
    expect(h.bells()).toBe(0);
  });

  it("with osc, a desktop notification names the session and the reason (OSC 9)", async () => {
    const fx = await startReference();
    const id = fx.ids[0] as string;
    const name = fx.server.sessions()[0]?.name as string;
    const h = mountOnFixture(
      fx,
      { columns: 160, rows: 30 },
      { initialSessions: [id], options: { bell: false, osc: "9" } },
    );
    await waitForContent(h, "● live ·");
    fx.server.setState(id, "error");
    // The reason and its detail (the stream's word, or the record's error_message once read).
    const osc = `\u001b]9;agent-sessions: a session needs you: ${name} (${id}) failed: `;
    await waitForContent(h, () =>
      h.writes.some((w) => w.includes(osc) && w.includes("\u0007", w.indexOf(osc))),
    );
    expect(h.bells()).toBe(0);
  });

  it("covers every session: with 45 over 3 pages of 20, what waits on page 3 is queued without scrolling", async () => {
    const fx = await startReference({
      pageSize: 20,
      server: { sessionCount: 45, rateLimit: { limit: 100, windowMs: 60_000, burst: 20 } },
    });
    const ids = fx.server.sessionIds();
    const [p3a, p3b] = [ids[43] as string, ids[44] as string];
    fx.server.setState(p3a, "error");
    fx.server.setState(p3b, "paused");
    const waiting = fx.server
      .sessions()
      .filter((x) => ["error", "paused", "destroyed"].includes(x.state));
    const h = mountOnFixture(fx, { columns: 160, rows: 40 });
    // The list's view leaves the failed one out; the catalogue holds it, and so the queue.
    await waitForContent(h, /\d+ shown of \d+ loaded/);
    await pressKey(h, "A");
    const frame = await waitForContent(h, `${waiting.length} in all`);
    expect(frame).toContain(p3a);
    expect(frame).toContain(p3b);
    expect(frame).not.toContain("partial");
    await pressKey(h, "escape");
    const list = await waitForContent(h, /\d+ shown of \d+ loaded/);
    expect(list).not.toContain(p3a);
  });
});
