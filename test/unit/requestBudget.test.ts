import { describe, expect, it } from "vitest";
import { RequestBudget } from "../../src/client/requestBudget.js";
import { flushMicrotasks, ManualClock } from "../helpers/manualClock.js";

/**
 * The request budget on a hand-driven clock: what goes at once, what waits, and for how long,
 * counted in grants at given clock times (no real time passes).
 */

function setup(defaults?: ConstructorParameters<typeof RequestBudget>[0]) {
  const clock = new ManualClock(1_000_000);
  const budget = new RequestBudget({ clock, ...defaults });
  const granted: string[] = [];
  const take = (use: "request" | "stream", tag: string, maxWaitMs?: number) => {
    void budget.acquire(use, undefined, maxWaitMs).then(() => granted.push(tag));
  };
  return { clock, budget, granted, take };
}

describe("request budget", () => {
  it("never lets more than the limit go in any window: the burst is not added to a window's refill", async () => {
    const { clock, granted, take } = setup({
      defaults: { limit: 100, windowMs: 60_000, burst: 20 },
    });
    for (let i = 0; i < 110; i++) take("request", `r${i}`);
    await flushMicrotasks();
    // The burst, then one every 600 ms: the 100th goes at 48 s.
    await clock.advance(48_000);
    expect(granted).toHaveLength(100);
    // A bucket alone would let 20 more go before the minute is out; the window holds them.
    await clock.advance(11_900);
    expect(granted).toHaveLength(100);
    // Past the first minute (and a margin for the way to the service) the burst's grants
    // leave the window, and the bucket, full again, lets the rest go.
    await clock.advance(400);
    expect(granted).toHaveLength(110);
  });

  it("lets the documented burst of 20 go at once, then one every 600 ms (100 a minute)", async () => {
    const { clock, budget, granted, take } = setup();
    for (let i = 0; i < 25; i++) take("request", `r${i}`);
    await flushMicrotasks();
    expect(granted).toHaveLength(20);
    expect(budget.state).toMatchObject({ waitingRequests: 5, available: 0 });
    await clock.advance(599);
    expect(granted).toHaveLength(20);
    await clock.advance(1);
    expect(granted).toHaveLength(21);
    await clock.advance(4 * 600);
    expect(granted).toHaveLength(25);
    expect(budget.state.waitingRequests).toBe(0);
  });

  it("puts requests before stream openings, and streams leave two tokens for requests", async () => {
    const { clock, granted, take } = setup();
    for (let i = 0; i < 30; i++) take("stream", `stream${i}`);
    await flushMicrotasks();
    expect(granted).toHaveLength(18);
    take("request", "key press");
    await flushMicrotasks();
    // The reserve: a request goes at once although streams are waiting.
    expect(granted.at(-1)).toBe("key press");
    take("request", "second");
    await flushMicrotasks();
    expect(granted.at(-1)).toBe("second");
    // Tokens are gone; the next one goes to a request that arrives after the streams.
    take("request", "third");
    await clock.advance(600);
    expect(granted.at(-1)).toBe("third");
    expect(granted.filter((g) => g.startsWith("stream"))).toHaveLength(18);
  });

  it("a request's expected wait counts only the requests ahead of it, not the waiting streams", async () => {
    const { budget, granted, take } = setup();
    for (let i = 0; i < 40; i++) take("stream", `stream${i}`);
    await flushMicrotasks();
    expect(granted).toHaveLength(18);
    take("request", "a");
    take("request", "b");
    await flushMicrotasks();
    // Requests go before the 22 streams still waiting: the next one waits one token's time
    // (600 ms at 100 a minute), not the 23 tokens' time (13.8 s) of the whole queue.
    expect(budget.expectedWaitMs("request")).toBe(600);
    expect(budget.expectedWaitMs("stream")).toBeGreaterThan(13_000);
  });

  it("learns the limit from X-RateLimit-Limit; Remaining 0 holds for two tokens, then one request tests it", async () => {
    const { clock, budget, granted, take } = setup();
    budget.observe({ "x-ratelimit-limit": "600", "x-ratelimit-remaining": "599" });
    expect(budget.state.figures).toMatchObject({ limit: 600, burst: 20, source: "server" });
    for (let i = 0; i < 22; i++) take("request", `r${i}`);
    await flushMicrotasks();
    expect(granted).toHaveLength(20);
    await clock.advance(100);
    expect(granted).toHaveLength(21);

    const zero = {
      "x-ratelimit-limit": "600",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": "5",
    };
    budget.observe(zero);
    // Not the whole 5 s: two tokens' time (100 ms each at 600 a minute).
    expect(budget.state.heldUntil).toBe(clock.t + 200);
    await clock.advance(199);
    expect(granted).toHaveLength(21);
    await clock.advance(101);
    expect(granted).toHaveLength(22);
  });

  it("a request sent while the service says 0 left and served anyway: Remaining is a hint from then on", async () => {
    const { clock, budget } = setup();
    const zero = {
      "x-ratelimit-limit": "600",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": "60",
    };
    await budget.acquire("request");
    budget.observe(zero, false, 1);
    expect(budget.state.heldUntil).toBe(clock.t + 200);
    await clock.advance(300);
    // Still before the service's reset: this one goes "at 0 left", and is served.
    const ticket = await budget.acquire("request");
    budget.observe(zero, false, ticket);
    // No hold any more, and the figure no longer caps what may go.
    expect(budget.state.heldUntil).toBe(null);
    await clock.advance(100);
    budget.observe(zero, false, ticket + 1);
    expect(budget.state).toMatchObject({ heldUntil: null, available: 1 });
  });

  it("a request sent at 0 left that earns a 429 keeps Remaining trusted", async () => {
    const { clock, budget } = setup();
    const zero = {
      "x-ratelimit-limit": "600",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": "60",
    };
    await budget.acquire("request");
    budget.observe(zero, false, 1);
    await clock.advance(300);
    const ticket = await budget.acquire("request");
    budget.observe(zero, true, ticket);
    budget.penalize(5000);
    await clock.advance(6000);
    budget.observe(zero, false, 99);
    expect(budget.state.heldUntil).toBe(clock.t + 200);
  });

  it("takes a burst the server names (X-RateLimit-Burst), never above the limit", () => {
    const { budget } = setup();
    budget.observe({ "x-ratelimit-limit": "50", "x-ratelimit-burst": "80" });
    expect(budget.state.figures).toMatchObject({ limit: 50, burst: 50 });
    budget.observe({ "x-ratelimit-limit": "300", "x-ratelimit-burst": "40" });
    expect(budget.state.figures).toMatchObject({ limit: 300, burst: 40 });
  });

  it("a 429 holds every caller for Retry-After, then lets one go, then goes at half pace", async () => {
    const { clock, budget, granted, take } = setup();
    budget.penalize(2000);
    take("request", "a");
    take("request", "b");
    take("stream", "s");
    await clock.advance(1999);
    expect(granted).toEqual([]);
    await clock.advance(1);
    expect(granted).toEqual(["a"]);
    // Half pace: a token every 1200 ms instead of 600.
    await clock.advance(1199);
    expect(granted).toEqual(["a"]);
    await clock.advance(1);
    expect(granted).toEqual(["a", "b"]);
    expect(budget.state).toMatchObject({ pace: 0.5, limited: 1 });
    // A quarter window (15 s) later without another 429, the pace is back.
    await clock.advance(20_000);
    expect(budget.state.pace).toBe(1);
    expect(granted).toContain("s");
  });

  it("never holds a request longer than its caller allows; then it goes anyway", async () => {
    const { clock, budget, granted, take } = setup();
    budget.penalize(60_000);
    take("request", "capped", 250);
    take("request", "patient");
    await clock.advance(249);
    expect(granted).toEqual([]);
    await clock.advance(1);
    expect(granted).toEqual(["capped"]);
    expect(budget.state.waitingRequests).toBe(1);
  });

  it("a cancelled wait gives its place up and rejects", async () => {
    const { clock, budget, granted, take } = setup({ defaults: { burst: 1 } });
    take("request", "first");
    const ctl = new AbortController();
    const cancelled = budget.acquire("request", ctl.signal).then(
      () => "granted",
      (e: Error) => e.name,
    );
    take("request", "after");
    await flushMicrotasks();
    ctl.abort();
    expect(await cancelled).toBe("CancelledError");
    await clock.advance(600);
    expect(granted).toEqual(["first", "after"]);
  });
});
