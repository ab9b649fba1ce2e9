import { afterEach, describe, expect, it } from "vitest";
import { SETTLE_MS } from "../../src/ui/model/listOrder.js";
import {
  type AppHarness,
  mountApp,
  pressKey,
  startUiFixture,
  type UiFixture,
  waitForContent,
} from "../helpers/ui.js";

/** The list refreshes by itself, says how fresh it is, and the selection stays on its session. */

let fx: UiFixture | null = null;
let h: AppHarness | null = null;

afterEach(async () => {
  h?.unmount();
  h = null;
  await fx?.close();
  fx = null;
});

describe("live list", () => {
  it("a refresh that reorders the rows does so once the keys pause, and keeps the selection on its session", async () => {
    fx = await startUiFixture({ refreshMs: 500 });
    const ids = fx.ids;
    const [, , c, d] = ids as [string, string, string, string];
    h = mountApp(fx, { columns: 140, rows: 30 });
    await waitForContent(h, "4 shown of 4 loaded · updated");
    await pressKey(h, "j");
    await pressKey(h, "j");
    // (c is paused: its row is marked with the pause's glyph, dimmed.)
    let frame = await waitForContent(h, new RegExp(`▸⏸ {2}${c}`));
    // The last session gets an event: it was updated last, so it sorts first once the keys
    // have paused (model/listOrder.ts).
    fx.server.emit(d, "prompt_progress", { type: "text", content: "working" });
    frame = await waitForContent(
      h,
      (f) => {
        const rows = f.split("\n").filter((l) => /ses_\w{8} [●⏸]/.test(l));
        return rows[0]?.includes(d) === true;
      },
      SETTLE_MS + 5000,
    );
    // Moved down one row with the others; still selected.
    expect(frame).toMatch(new RegExp(`▸⏸ {2}${c}`));
    const rows = frame.split("\n").filter((l) => /ses_\w{8} [●⏸]/.test(l));
    expect(rows.findIndex((l) => l.includes(c))).toBe(3);
  });
});
