import { describe, expect, it } from "vitest";
import { backoffDelay, parseRetryAfter } from "../../src/client/backoff.js";

describe("backoffDelay", () => {
  it("doubles from the base on each retry", () => {
    const delays = [1, 2, 3, 4].map((n) => backoffDelay(n, { baseMs: 1000 }));
    expect(delays).toEqual([1000, 2000, 4000, 8000]);
  });

  it("starts from Retry-After when given, then doubles it", () => {
    const delays = [1, 2, 3].map((n) => backoffDelay(n, { baseMs: 1000 }, 3000));
    expect(delays).toEqual([3000, 6000, 12000]);
  });

  it("caps at 60 s by default and at maxMs when given", () => {
    expect(backoffDelay(10, { baseMs: 1000 })).toBe(60_000);
    expect(backoffDelay(1, { baseMs: 1000 }, 120_000)).toBe(60_000);
    expect(backoffDelay(5, { baseMs: 100, maxMs: 500 })).toBe(500);
  });

  it("stays finite for absurd attempt numbers", () => {
    expect(backoffDelay(10_000, { baseMs: 1000 })).toBe(60_000);
  });

  it("treats attempt numbers below 1 as the first retry", () => {
    expect(backoffDelay(0, { baseMs: 250 })).toBe(250);
  });

  it("applies jitter within ±fraction, from the injected random source", () => {
    const opts = { baseMs: 1000, jitter: 0.2 };
    expect(backoffDelay(1, { ...opts, random: () => 0 })).toBe(800);
    expect(backoffDelay(1, { ...opts, random: () => 0.5 })).toBe(1000);
    expect(backoffDelay(1, { ...opts, random: () => 0.999999 })).toBe(1200);
  });

  it("never lets jitter push a delay past the cap", () => {
    expect(backoffDelay(20, { baseMs: 1000, jitter: 0.5, random: () => 0.99 })).toBe(60_000);
  });

  it("a negative Retry-After is ignored in favour of the base", () => {
    expect(backoffDelay(1, { baseMs: 400 }, -5)).toBe(400);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.UTC(2025, 0, 1, 12, 0, 0);

  it("reads delay-seconds, including decimals and surrounding spaces", () => {
    expect(parseRetryAfter("0", now)).toBe(0);
    expect(parseRetryAfter("7", now)).toBe(7000);
    expect(parseRetryAfter(" 2 ", now)).toBe(2000);
    expect(parseRetryAfter("0.25", now)).toBe(250);
  });

  it("reads an HTTP-date as the time left until it", () => {
    expect(parseRetryAfter("Wed, 01 Jan 2025 12:00:30 GMT", now)).toBe(30_000);
  });

  it("an HTTP-date in the past means retry now", () => {
    expect(parseRetryAfter("Wed, 01 Jan 2025 11:00:00 GMT", now)).toBe(0);
  });

  it.each([
    ["missing", undefined],
    ["null", null],
    ["empty", ""],
    ["blank", "   "],
    ["a word", "soon"],
    ["negative", "-1"],
    ["exponent", "1e3"],
    ["units", "10s"],
    ["not a date", "Foo, 99 Bar 2025 99:99:99 GMT"],
  ])("returns null for garbage (%s) so the caller uses its backoff", (_what, value) => {
    expect(parseRetryAfter(value, now)).toBeNull();
  });

  it("digits alone are delay-seconds, never a date", () => {
    expect(parseRetryAfter("2025", now)).toBe(2_025_000);
  });
});
