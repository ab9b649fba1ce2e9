import { afterEach, describe, expect, it } from "vitest";
import {
  mountOnFixture,
  pressKey,
  startReference,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/** Two sessions on one repository changing the same path: both rows and panes say so. */

afterEach(unmountReference);

describe("overlap warning", () => {
  it("rows and panes say who else changed the path, and the push confirmation lists it", async () => {
    const fx = await startReference();
    const records = fx.server.sessions();
    // The first and third sessions work on the same repository.
    const [a, c] = [records[0], records[2]];
    if (!a || !c) throw new Error("fixture");
    expect(a.repo).toBe(c.repo);
    const other = records[1];
    if (!other) throw new Error("fixture");
    const h = mountOnFixture(fx, { columns: 200, rows: 34 }, { initialSessions: [a.id, c.id] });
    await waitForContent(h, (f) => (f.match(/● live ·/g)?.length ?? 0) === 2);
    fx.server.emit(a.id, "file_changed", { path: "src/shared.ts", action: "modified" });
    // Another repository touching the same path is no overlap.
    fx.server.emit(other.id, "file_changed", { path: "src/shared.ts", action: "modified" });
    fx.server.emit(c.id, "file_changed", { path: "src/shared.ts", action: "created" });
    let frame = await waitForContent(h, `⇄ also changed by ${c.id} (src/shared.ts)`);
    expect(frame).toContain(`⇄ also changed by ${a.id} (src/shared.ts)`);
    expect(frame).not.toContain(`also changed by ${other.id}`);
    // The list rows say it too: beside the panes, a glyph and how many others (the name
    // stays, no other session's id in the row); alone on the screen, the whole story.
    expect(frame).toContain(`● ⇄1 ${a.name.slice(0, 16)}`);
    expect(frame).toMatch(new RegExp(`⇄1 ${c.name.slice(0, 16)}`));
    await pressKey(h, "1");
    await pressKey(h, "x");
    await pressKey(h, "x");
    frame = await waitForContent(
      h,
      new RegExp(`${a.id} ● active\\s+\\S+\\s+⇄ also changed by ${c.id} \\(src/shared.ts\\) ·`),
    );

    // Push on its row: the confirmation lists the file and the other session.
    await pressKey(h, "p");
    frame = await waitForContent(h, "Push — confirm");
    expect(frame).toContain("⇄ Other sessions on this repository changed the same files:");
    expect(frame).toContain(`src/shared.ts — also changed by ${c.id}`);
    await pressKey(h, "n");
    await waitForContent(h, "push cancelled: nothing was sent");
  });

  it("at 80 columns a row keeps its own name: the mark is a glyph and a count, the detail names the others", async () => {
    const fx = await startReference();
    const records = fx.server.sessions();
    const [a, c] = [records[0], records[2]];
    if (!a || !c) throw new Error("fixture");
    const h = mountOnFixture(fx, { columns: 80, rows: 30 }, { initialSessions: [a.id, c.id] });
    // Both streams live before the events (the header counts them): an event sent before a
    // pane's stream is open reaches it through the history read instead.
    await waitForContent(h, "● live 2/2");
    fx.server.emit(a.id, "file_changed", { path: "src/shared.ts", action: "modified" });
    fx.server.emit(c.id, "file_changed", { path: "src/shared.ts", action: "created" });
    const frame = await waitForContent(h, /⇄1 /);
    const rowOf = (name: string) => frame.split("\n").find((l) => l.includes(name.slice(0, 8)));
    for (const [self, other] of [
      [a, c],
      [c, a],
    ] as const) {
      const row = rowOf(self.name);
      expect(row, self.name).toBeDefined();
      expect(row).toContain("⇄1");
      // Another session's id never stands in a row where it would read as the row's own.
      expect(row).not.toContain(other.id);
    }
    // The list focused, on the first row: its detail names the other session and the path.
    await pressKey(h, "0");
    await pressKey(h, "i");
    await waitForContent(h, new RegExp(`overlap +src/shared.ts — also changed by ${c.id}`));
  });
});
