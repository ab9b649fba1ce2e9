import { stripVTControlCharacters } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import {
  type AppHarness,
  mountApp,
  pressKey,
  startUiFixture,
  type UiFixture,
  waitForContent,
} from "../helpers/ui.js";

/**
 * Many at once, against the reference service: Space marks the selected row, * every shown
 * one; Z, U and K then ask once, naming each marked session, act on each in turn (a refusal
 * of one does not stop the rest), say each result and clear the marks.
 */

let fx: UiFixture | null = null;
let h: AppHarness | null = null;

afterEach(async () => {
  h?.unmount();
  h = null;
  await fx?.close();
  fx = null;
});

const FIXTURE = { server: { clock: "manual" as const, sessionCount: 5 } };

/** The frame's rows that carry a mark (✓ at the start of a row). */
function markedRows(frame: string): number {
  return stripVTControlCharacters(frame)
    .split("\n")
    .filter((l) => /^[│║\s]*✓/.test(l)).length;
}

describe("marks", () => {
  it("* marks five, Z asks once naming each; one refused, four paused, each result said", async () => {
    fx = await startUiFixture(FIXTURE);
    const ids = fx.ids;
    expect(ids).toHaveLength(5);
    // Four that may be paused, one the service refuses to pause (it is still being created).
    const refused = ids[2] as string;
    for (const id of ids) fx.server.setState(id, id === refused ? "creating" : "running");
    h = mountApp(fx, { columns: 160, rows: 40 });
    await waitForContent(h, ids[4] as string);
    // Space marks the selected row and unmarks it again.
    await pressKey(h, " ");
    expect(markedRows(await waitForContent(h, "✓"))).toBe(1);
    await pressKey(h, " ");
    await waitForContent(h, "▸");
    expect(markedRows(h.frame())).toBe(0);
    await pressKey(h, "*");
    await waitForContent(h, "5 sessions marked");
    expect(markedRows(h.frame())).toBe(5);
    await pressKey(h, "Z");
    const frame = await waitForContent(h, "Pause: 5 marked sessions — confirm");
    for (const id of ids) expect(frame).toContain(id);
    await pressKey(h, "y");
    await waitForContent(h, "4 of 5 paused", 10_000);
    expect(h.frame()).toContain(refused);
    const states = new Map(fx.server.sessions().map((s) => [s.id, s.state]));
    for (const id of ids) expect(states.get(id)).toBe(id === refused ? "creating" : "paused");
    // Each result is in the messages log, the refusal with the service's reason.
    await pressKey(h, "m");
    const messages = await waitForContent(h, "Can only pause running sessions");
    expect(messages).toContain(`${refused}: `);
    for (const id of ids.filter((x) => x !== refused)) expect(messages).toContain(`${id}: paused`);
    await pressKey(h, "escape");
    // The marks are cleared after acting.
    await waitForContent(h, "▸");
    expect(markedRows(h.frame())).toBe(0);
  });

  it("K with two rows marked destroys both after one confirmation; their marks go with them", async () => {
    fx = await startUiFixture(FIXTURE);
    h = mountApp(fx, { columns: 160, rows: 40 });
    await waitForContent(h, fx.ids[4] as string);
    await pressKey(h, " ");
    await pressKey(h, "down");
    await pressKey(h, "down");
    await pressKey(h, " ");
    expect(markedRows(await waitForContent(h, "✓"))).toBe(2);
    await pressKey(h, "K");
    const frame = await waitForContent(h, "Destroy (irreversible): 2 marked sessions — confirm");
    const named = fx.ids.filter((id) => frame.includes(id));
    expect(named).toHaveLength(2);
    expect(frame.replace(/[│\s]+/g, " ")).toContain("irreversible");
    await pressKey(h, "y");
    await waitForContent(h, `Destroyed ${named.join(", ")}`, 10_000);
    for (const id of named) {
      expect(fx.server.sessions().find((s) => s.id === id)?.state).toBe("destroyed");
    }
    expect(markedRows(h.frame())).toBe(0);
  });
});
