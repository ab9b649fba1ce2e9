import { describe, expect, it } from "vitest";
import type { BudgetState } from "../../src/client/requestBudget.js";
import { LiveList } from "../../src/store/liveList.js";
import { ManualClock } from "../helpers/manualClock.js";

/** When the list is read again: counted refreshes on a hand-driven clock. */

function budget(patch: Partial<BudgetState> = {}): { state: BudgetState } {
  return {
    state: {
      figures: { limit: 100, windowMs: 60_000, burst: 20, source: "server" },
      available: 20,
      waitingRequests: 0,
      waitingStreams: 0,
      heldUntil: null,
      pace: 1,
      granted: 0,
      limited: 0,
      ...patch,
    },
  };
}

function setup(b = budget()) {
  const timers = new ManualClock();
  let refreshes = 0;
  const sessions = {
    getState: () => ({
      refreshLive: async () => {
        refreshes++;
        return true;
      },
    }),
  };
  const live = new LiveList({
    sessions: sessions as never,
    budget: b,
    timers,
  });
  return { timers, live, refreshes: () => refreshes, b };
}

describe("live list", () => {
  it("reads the list every 15 s", async () => {
    const { timers, live, refreshes } = setup();
    live.start();
    await timers.advance(14_999);
    expect(refreshes()).toBe(0);
    await timers.advance(1);
    expect(refreshes()).toBe(1);
    await timers.advance(45_000);
    expect(refreshes()).toBe(4);
    live.stop();
    await timers.advance(60_000);
    expect(refreshes()).toBe(4);
  });

  it("goes slower while the budget is low, held after a 429, or slowed", () => {
    expect(setup().live.delayMs()).toBe(15_000);
    expect(setup(budget({ waitingStreams: 12 })).live.delayMs()).toBe(30_000);
    expect(setup(budget({ available: 3 })).live.delayMs()).toBe(30_000);
    expect(setup(budget({ pace: 0.5 })).live.delayMs()).toBe(30_000);
    expect(setup(budget({ heldUntil: 5_000 })).live.delayMs()).toBe(60_000);
    // Never slower than eight times the cadence, whatever adds up.
    expect(setup(budget({ heldUntil: 5_000, available: 0 })).live.delayMs()).toBe(120_000);
  });

  it("goes slower when the window is idle, and back to normal at the next key", async () => {
    const { timers, live, refreshes } = setup();
    live.start();
    await timers.advance(120_000);
    expect(refreshes()).toBe(8);
    // Two minutes without a key: once a minute.
    expect(live.delayMs()).toBe(60_000);
    await timers.advance(120_000);
    expect(refreshes()).toBe(10);
    live.activity();
    expect(live.delayMs()).toBe(15_000);
    await timers.advance(15_000);
    expect(refreshes()).toBe(11);
  });

  it("reads at once (coalesced) after a git action or a state change, never two within 2 s", async () => {
    const { timers, live, refreshes } = setup();
    live.start();
    await timers.advance(3_000);
    live.poke("state");
    live.poke("git");
    await timers.advance(500);
    expect(refreshes()).toBe(1);
    expect(live.counts).toEqual({ timer: 0, poke: 1 });
    live.poke("state");
    await timers.advance(1_000);
    // The first one started 1 s ago: this one waits for the 2 s gap.
    expect(refreshes()).toBe(1);
    await timers.advance(1_000);
    expect(refreshes()).toBe(2);
    // And the cadence starts over from there.
    await timers.advance(14_999);
    expect(refreshes()).toBe(2);
    await timers.advance(1);
    expect(refreshes()).toBe(3);
  });
});
