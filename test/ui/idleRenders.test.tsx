import { afterEach, describe, expect, it, vi } from "vitest";
import {
  fixedNow,
  mountOnFixture,
  startReference,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * An idle screen costs nothing: every frame is a full Ink layout (tens of ms with four panes),
 * so heartbeats that leave the screen as it was must not render it again.
 */

afterEach(unmountReference);

describe("idle panes", () => {
  it("do not render again on heartbeats that change nothing they show", async () => {
    const fx = await startReference({ server: { heartbeatMs: 20 } });
    const f = fx;
    const ids = f.ids.slice(0, 2);
    // A fixed clock: the heartbeat age reads "♥ 0s" whatever the arrival times.
    const h = mountOnFixture(
      f,
      { columns: 160, rows: 30 },
      { initialSessions: ids, now: fixedNow },
    );
    await waitForContent(h, (fr) => (fr.match(/● live · ♥ 0s/g)?.length ?? 0) === 2, 8000);
    const beats = () =>
      ids.reduce(
        (n, id) => n + (f.services.streams.getState().sessions[id]?.counts.heartbeat ?? 0),
        0,
      );
    const waitBeats = (n: number) =>
      vi.waitFor(() => expect(beats()).toBeGreaterThanOrEqual(n), { timeout: 5000, interval: 5 });
    // Past whatever start-up work is still in flight.
    await waitBeats(beats() + 4);
    const frames = h.writes.length;
    await waitBeats(beats() + 30);
    expect(h.writes.length - frames).toBe(0);
    expect(h.frame()).toMatch(/● live · ♥ 0s/);
  });

  it("still moves the heartbeat age on the shared tick: the next tick shows it", async () => {
    const fx = await startReference({ server: { heartbeatMs: 100 } });
    const id = fx.ids[0] as string;
    let skew = 0;
    // The shared tick is what reads this clock: counting the reads counts the ticks.
    let reads = 0;
    const now = () => {
      reads++;
      return Date.now() + skew;
    };
    const h = mountOnFixture(fx, { columns: 120, rows: 24 }, { initialSessions: [id], now });
    await waitForContent(h, /● live · ♥ 0s ·/);
    // Heartbeats keep coming every 100 ms; only the clock the UI reads moves on.
    skew = 5_000;
    const readsBefore = reads;
    // Derived from the last tick's time: a heartbeat after the tick may read up to 1 s less.
    await waitForContent(h, /● live · ♥ [45]s/, 3000);
    expect(reads - readsBefore).toBe(1);
  });
});
