import { afterEach, describe, expect, it } from "vitest";
import {
  mountOnFixture,
  pressKey,
  startReference,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * Git on a paused session from the UI, against a service that serves only the documented
 * `/git` (the interface's `/git/operation` answers 404): the push goes there with its flat
 * body, and the documented refusal says the session is paused and how to resume it.
 */

afterEach(unmountReference);

describe("git on a paused session", () => {
  it("says the session is paused and that a prompt resumes it", async () => {
    const fx = await startReference();
    const id = fx.ids[0] as string;
    fx.server.setState(id, "paused");
    fx.server.faults.set({
      statusFor: { path: /\/git\/operation$/, status: 404, count: 1_000 },
    });
    const h = mountOnFixture(fx, { columns: 200, rows: 30 });
    await waitForContent(h, id);
    await pressKey(h, "p");
    await waitForContent(h, "Push — confirm");
    await pressKey(h, "y");
    await waitForContent(h, `✗ push ${id} failed: `, 15_000);
    const last = fx.services.actions.getState().last;
    expect(last?.message).toContain("Session is not running (state: paused)");
    expect(last?.error?.hint).toBe(
      "The session is paused: resume it first (the service resumes it on its own when a prompt arrives).",
    );
    await pressKey(h, "m");
    const frame = await waitForContent(h, "The session is paused: resume it first");
    expect(frame).toContain("state: paused");
  });
});
