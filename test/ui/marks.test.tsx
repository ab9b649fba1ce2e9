import { stripVTControlCharacters } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { mountOnReference, pressKey, unmountReference, waitForContent } from "../helpers/ui.js";

/**
 * Many at once, against the reference service: Space marks the selected row, * every shown
 * one; Z, U and K then ask once, naming each marked session, act on each in turn (a refusal
 * of one does not stop the rest), say each result and clear the marks.
 */

afterEach(unmountReference);

const FIXTURE = { server: { clock: "manual" as const, sessionCount: 5 } };
const SIZE = { columns: 160, rows: 40 };

/** The frame's rows that carry a mark (✓ at the start of a row). */
function markedRows(frame: string): number {
  return stripVTControlCharacters(frame)
    .split("\n")
    .filter((l) => /^[│║\s]*✓/.test(l)).length;
}

describe("marks", () => {
  it("* marks five, Z asks once naming each; one refused, four paused, each result said", async () => {
    const { fx, h } = await mountOnReference(SIZE, {
      ...FIXTURE,
      // Four that may be paused, one the service refuses to pause (it is still being created).
      before: (f) => {
        for (const id of f.ids) f.server.setState(id, id === f.ids[2] ? "creating" : "running");
      },
    });
    const ids = fx.ids;
    expect(ids).toHaveLength(5);
    const refused = ids[2] as string;
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
    const { fx, h } = await mountOnReference(SIZE, FIXTURE);
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
