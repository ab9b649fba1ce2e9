import { afterEach, describe, expect, it } from "vitest";
import {
  fixedNow,
  mountOnFixture,
  pressKey,
  startReference,
  unmountReference,
  waitForAbsence,
  waitForContent,
} from "../helpers/ui.js";

/** The messages log (m): notices and the services' errors, whole, with their time. */

afterEach(unmountReference);

describe("messages log", () => {
  it("keeps the notices of the status line and the session list's load errors, newest first", async () => {
    const fx = await startReference();
    const h = mountOnFixture(fx, { columns: 100, rows: 30 }, { now: fixedNow });
    await waitForContent(h, "Sessions 4/4");
    await pressKey(h, "5");
    await waitForContent(h, "No pane 5");
    fx.server.faults.set({
      statusFor: { path: /\/sessions$/, status: 503, count: 1_000 },
    });
    // Ctrl-R reads the list again in place: its failure is the list's, the rows stay.
    await pressKey(h, "\u0012");
    await waitForContent(h, /refresh failed: .*(503|unavailable)/i, 15_000);

    await pressKey(h, "m");
    const frame = await waitForContent(h, "Messages — ");
    const rows = frame.split("\n");
    const notice = rows.findIndex((l) => l.includes("12:00:00 · No pane 5"));
    const failure = rows.findIndex((l) =>
      /12:00:00 ✗ Refreshing the session list failed: /.test(l),
    );
    expect(notice).toBeGreaterThan(0);
    expect(failure).toBeGreaterThan(0);
    expect(failure).toBeLessThan(notice);
    expect(frame).toContain("Refreshing identity and sessions");
    // m (or Esc) closes it; the footer of the screen comes back.
    await pressKey(h, "m");
    await waitForAbsence(h, "Messages — ");
  });
});
