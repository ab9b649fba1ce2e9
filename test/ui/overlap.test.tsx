import { afterEach, describe, expect, it } from "vitest";
import {
  type AppHarness,
  mountApp,
  pressKey,
  startUiFixture,
  type UiFixture,
  waitForContent,
} from "../helpers/ui.js";

/** Two sessions on one repository changing the same path: both rows and panes say so. */

let fx: UiFixture | null = null;
let h: AppHarness | null = null;

afterEach(async () => {
  h?.unmount();
  h = null;
  await fx?.close();
  fx = null;
});

describe("overlap warning", () => {
  it("rows and panes say who else changed the path, and the push confirmation lists it", async () => {
    fx = await startUiFixture();
    const records = fx.server.sessions();
    // The first and third sessions work on the same repository.
    const [a, c] = [records[0], records[2]];
    if (!a || !c) throw new Error("fixture");
    expect(a.repo).toBe(c.repo);
    const other = records[1];
    if (!other) throw new Error("fixture");
    h = mountApp(fx, { columns: 200, rows: 34 }, { initialSessions: [a.id, c.id] });
    await waitForContent(h, (f) => (f.match(/● live ·/g)?.length ?? 0) === 2);
    fx.server.emit(a.id, "file_changed", { path: "src/shared.ts", action: "modified" });
    // Another repository touching the same path is no overlap.
    fx.server.emit(other.id, "file_changed", { path: "src/shared.ts", action: "modified" });
    fx.server.emit(c.id, "file_changed", { path: "src/shared.ts", action: "created" });
    let frame = await waitForContent(h, `⇄ also changed by ${c.id} (src/shared.ts)`);
    expect(frame).toContain(`⇄ also changed by ${a.id} (src/shared.ts)`);
    expect(frame).not.toContain(`also changed by ${other.id}`);
    // The list rows say it too: beside the panes, who; alone on the screen, the whole story.
    // (A row beside panes shows the state's glyph and the name, not the id.)
    expect(frame).toContain(`● ⇄ ${c.id} ${a.name.slice(0, 16)}`);
    expect(frame).toContain(`⏸ ⇄ ${a.id} ${c.name.slice(0, 16)}`);
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
});
