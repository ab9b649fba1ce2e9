import { describe, expect, it } from "vitest";
import { headerValue, RateLimitTracker, type RetryWait } from "../../src/client/rateLimit.js";

const wait = (until: number, attempt = 2): RetryWait => ({
  attempt,
  maxAttempts: 5,
  delayMs: until - 1000,
  until,
  reason: "rate limited (HTTP 429)",
  cause: { kind: "rate_limited" },
});

describe("RateLimitTracker", () => {
  it("reads the headers from a plain record or a Headers object, case-insensitively", () => {
    const t = new RateLimitTracker({ now: () => 5000 });
    t.update({ "X-RateLimit-Remaining": "3", "x-ratelimit-limit": ["10", "20"] });
    expect(t.info).toEqual({ remaining: 3, limit: 10, resetSeconds: null, observedAt: 5000 });
    t.update(new Headers({ "x-ratelimit-remaining": "2", "x-ratelimit-reset": "7" }));
    expect(t.info).toEqual({ remaining: 2, limit: null, resetSeconds: 7, observedAt: 5000 });
  });

  it("ignores garbage values and responses without any rate-limit header", () => {
    const t = new RateLimitTracker();
    t.update({ "x-ratelimit-remaining": "5" });
    t.update({ "content-type": "application/json" });
    t.update({ "x-ratelimit-remaining": "lots" });
    expect(t.info?.remaining).toBe(5);
  });

  it("turns an epoch-seconds reset into seconds from now", () => {
    const t = new RateLimitTracker({ now: () => 1_700_000_000_000 });
    t.update({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": "1700000042" });
    expect(t.info?.resetSeconds).toBe(42);
  });

  it("reads an epoch-milliseconds reset as the same moment, not as a wait of decades", () => {
    const t = new RateLimitTracker({ now: () => 1_700_000_000_000 });
    t.update({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": "1700000042000" });
    expect(t.info?.resetSeconds).toBe(42);
    // A moment already past frees capacity now.
    t.update({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": "1699999999" });
    expect(t.info?.resetSeconds).toBe(0);
  });

  it("shows the wait that ends last while several are in progress", () => {
    const t = new RateLimitTracker();
    const a = wait(2000);
    const b = wait(9000, 3);
    t.beginWait(a);
    t.beginWait(b);
    expect(t.waiting).toBe(b);
    t.endWait(b);
    expect(t.waiting).toBe(a);
    t.endWait(a);
    expect(t.waiting).toBeNull();
  });

  it("endWait() without an argument clears every wait", () => {
    const t = new RateLimitTracker();
    t.beginWait(wait(2000));
    t.beginWait(wait(3000));
    t.endWait();
    expect(t.waiting).toBeNull();
  });

  it("notifies subscribers on every change until they unsubscribe", () => {
    const t = new RateLimitTracker();
    const seen: (number | null | undefined)[] = [];
    const off = t.subscribe(() => seen.push(t.info?.remaining));
    t.update({ "x-ratelimit-remaining": "4" });
    t.beginWait(wait(1));
    off();
    t.update({ "x-ratelimit-remaining": "3" });
    expect(seen).toEqual([4, 4]);
  });
});

describe("headerValue", () => {
  it("returns the first of repeated values and undefined when absent", () => {
    expect(headerValue({ "retry-after": ["5", "9"] }, "retry-after")).toBe("5");
    expect(headerValue({}, "retry-after")).toBeUndefined();
    expect(headerValue({ "content-length": 12 }, "content-length")).toBe("12");
  });
});
