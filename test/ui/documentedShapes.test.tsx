import { afterEach, describe, expect, it } from "vitest";
import {
  mountOnFixture,
  pressKey,
  startReference,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * The UI on the reference service's documented shapes: names, lifecycle states, the total
 * the list says, and the marker where an id-less stream may have lost events.
 */

afterEach(unmountReference);

describe("documented shapes in the UI", () => {
  it("shows names and agents, every page read once, the destroyed ones hidden until D", async () => {
    const fx = await startReference({ server: { sessionCount: 45 }, pageSize: 20 });
    const h = mountOnFixture(fx, { columns: 140, rows: 30 });
    // Every page is read (3 of 20); the 3 destroyed and 3 error sessions are hidden, and the
    // list says so.
    const frame = await waitForContent(h, "39 shown of 39 loaded");
    expect(frame).toContain("destroyed and error sessions hidden (D shows)");
    const first = fx.server.sessions()[0];
    expect(frame).toMatch(new RegExp(`${first?.id} ● active\\s+${first?.agent}\\s+${first?.name}`));
    expect(frame).toContain("Sessions 39/39");
    // D shows them: a view over what was read, no read again.
    await pressKey(h, "D");
    await waitForContent(h, "45 shown of 45 loaded");
    expect(h.frame()).toContain("destroyed and error sessions shown (D hides)");
  });

  it("lifecycle states get their badges; the state filter cycles through the states present", async () => {
    const fx = await startReference({ server: { sessionCount: 15 } });
    const h = mountOnFixture(fx, { columns: 140, rows: 30 });
    let frame = await waitForContent(h, "13 shown of 13 loaded");
    expect(frame).not.toMatch(/✗ error|✕ destroyed/);
    await pressKey(h, "D");
    frame = await waitForContent(h, "15 shown of 15 loaded");
    const byState = (st: string) => fx.server.sessions().find((s) => s.state === st)?.id;
    expect(frame).toMatch(new RegExp(`${byState("error")} ✗ error`));
    expect(frame).toMatch(new RegExp(`${byState("destroyed")} ✕ destroyed`));
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      await pressKey(h, "s");
      frame = await waitForContent(h, (f) => /state: \w+ · sort/.test(f));
      seen.push(/state: (\w+) · sort/.exec(frame)?.[1] ?? "");
    }
    // Only what a loaded session is in (no creating, running or destroying here), then all.
    expect(seen).toEqual(["active", "paused", "error", "destroyed", "all"]);
  });

  it("a session entering error needs you (failed), named in the pane title", async () => {
    const fx = await startReference();
    const id = fx.ids[0] as string;
    const h = mountOnFixture(fx, { columns: 160, rows: 30 }, { initialSessions: [id] });
    await waitForContent(h, "● live ·");
    fx.server.setState(id, "error");
    await waitForContent(h, `⚠ failed 1 ${id} ✗ error`);
    // The list row may say it a frame before the pane's timeline does.
    const frame = await waitForContent(h, "active → error");
    expect(frame).toContain(`⚠ failed 1 ${id} ✗ error`);
    await waitForContent(h, () => h.bells() === 1);
  });

  it("an id-less stream that drops leaves a gap marker in the pane", async () => {
    const fx = await startReference({ server: { faults: { noEventIds: true, dropAfter: 1 } } });
    const id = fx.ids[0] as string;
    const h = mountOnFixture(fx, { columns: 160, rows: 30 }, { initialSessions: [id] });
    await waitForContent(h, "● live ·");
    fx.server.emit(id, "prompt_progress", { type: "text", content: "before the drop\n" });
    const frame = await waitForContent(
      h,
      /gap +reconnected — events between \d\d:\d\d:\d\d and \d\d:\d\d:\d\d may be missing/,
      10_000,
    );
    expect(frame.indexOf("before the drop")).toBeLessThan(frame.indexOf("reconnected —"));
  });
});
