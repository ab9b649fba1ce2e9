import { describe, expect, it } from "vitest";
import { RateLimiter } from "../../src/server/rateLimiter.js";
import { limitAllowsMs } from "../bench/measures/budget.js";

/**
 * B13 judges the client against t(N), the earliest moment the service's limit lets the N-th
 * request through. The formula must be the reference service's limiter, not a guess: a client
 * that asks again every 100 ms (refused requests are not counted) gets the k-th request
 * through at t(k), to the step.
 */
describe("bench B13: the time the limit allows", () => {
  it("matches the reference service's limiter for 100 a minute, burst 20, past one window", () => {
    const limit = { limit: 100, windowMs: 60_000, burst: 20 };
    const limiter = new RateLimiter(limit.limit, limit.windowMs, limit.burst);
    const step = 100;
    const accepted: number[] = [];
    for (let now = 0; accepted.length < 150 && now <= 200_000; ) {
      if (limiter.hit("key", now).allowed) accepted.push(now);
      else now += step;
    }
    expect(accepted).toHaveLength(150);
    for (let k = 1; k <= accepted.length; k++) {
      const got = accepted[k - 1] as number;
      const want = limitAllowsMs(k, limit);
      expect(got - want, `request ${k}`).toBeGreaterThanOrEqual(0);
      expect(got - want, `request ${k}`).toBeLessThan(step);
    }
    // The burst goes at once, the 100th after 80 tokens at 0.6 s, the 101st a window after the 1st.
    expect([
      limitAllowsMs(20, limit),
      limitAllowsMs(100, limit),
      limitAllowsMs(101, limit),
    ]).toEqual([0, 48_000, 60_000]);
  });
});
