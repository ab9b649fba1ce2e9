import { afterEach, describe, expect, it } from "vitest";
import { SETTLE_MS } from "../../src/ui/model/listOrder.js";
import {
  mountOnFixture,
  pressKey,
  startReference,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/** The list refreshes by itself, says how fresh it is, and the selection stays on its session. */

afterEach(unmountReference);

describe("live list", () => {
  it("a refresh that reorders the rows does so once the keys pause, and keeps the selection on its session", async () => {
    const fx = await startReference({ refreshMs: 500 });
    const ids = fx.ids;
    const [, , c, d] = ids as [string, string, string, string];
    const h = mountOnFixture(fx, { columns: 140, rows: 30 });
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

  it("a row inserted above by a refresh leaves the cursor on its session, and b after c acts on that session", async () => {
    const fx = await startReference({ refreshMs: 300 });
    const [, , , d] = fx.ids as [string, string, string, string];
    // d leaves the list (the service hides error sessions) and comes back later, on top.
    fx.server.setState(d, "error");
    const h = mountOnFixture(fx, { columns: 140, rows: 30 });
    await waitForContent(h, "3 shown of 3 loaded · updated");
    await pressKey(h, "j");
    await pressKey(h, "j");
    const cursorLine = (f: string) => f.split("\n").find((l) => l.includes("▸")) ?? "";
    const frame = await waitForContent(h, (f) => /ses_\w{8}/.test(cursorLine(f)));
    const on = /ses_\w{8}/.exec(cursorLine(frame))?.[0] as string;
    const rowOf = (f: string, id: string) =>
      f
        .split("\n")
        .filter((l) => /ses_\w{8}/.test(l))
        .findIndex((l) => l.includes(id));
    expect(rowOf(frame, on)).toBe(2);
    await pressKey(h, "c");
    await waitForContent(h, `Clone a repository into ${on}`);
    await pressKey(h, "escape");

    fx.server.setState(d, "active");
    const after = await waitForContent(
      h,
      (f) => f.includes("4 shown of 4 loaded") && rowOf(f, d) === 0,
      SETTLE_MS + 5000,
    );
    // One row was inserted above: the cursor went down with its session.
    expect(rowOf(after, on)).toBe(3);
    expect(cursorLine(after)).toContain(on);
    await pressKey(h, "b");
    await waitForContent(h, `Create a branch in ${on}`);
  });

  it("a session below the cursor that starts to need you moves above it in one refresh: the cursor stays on its session", async () => {
    const fx = await startReference({ refreshMs: 300 });
    const h = mountOnFixture(fx, { columns: 140, rows: 30 });
    await waitForContent(h, "4 shown of 4 loaded · updated");
    await pressKey(h, "j");
    const lines = (f: string) => f.split("\n").filter((l) => /ses_\w{8}/.test(l));
    const idOf = (l: string | undefined) => /ses_\w{8}/.exec(l ?? "")?.[0] as string;
    const frame = await waitForContent(h, (f) => lines(f)[1]?.includes("▸") === true);
    const on = idOf(lines(frame)[1]);
    const last = idOf(lines(frame)[3]);
    // Its record changes (agent_status, updated_at) and its mark comes in the same reading.
    fx.server.addApproval(last, { message: "Deploy?" });
    const after = await waitForContent(
      h,
      (f) => lines(f)[0]?.includes(last) === true,
      SETTLE_MS + 5000,
    );
    expect(lines(after).find((l) => l.includes("▸"))).toContain(on);
    expect(lines(after).findIndex((l) => l.includes(on))).toBe(2);
  });
});
