import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { backoffDelay, parseRetryAfter } from "../../src/client/backoff.js";

const attempt = fc.oneof(
  fc.integer({ min: -5, max: 80 }),
  fc.integer(),
  fc.double({ min: -10, max: 1e6, noNaN: true, noDefaultInfinity: true }),
);
const ms = fc.oneof(
  fc.integer({ min: 0, max: 120_000 }),
  fc.double({ min: 0, max: 1e12, noNaN: true, noDefaultInfinity: true }),
);
const jitter = fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1, noNaN: true }));
const random = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

describe("backoffDelay properties", () => {
  it("never exceeds the cap, never goes below 0, is always a finite number", () => {
    fc.assert(
      fc.property(
        attempt,
        ms,
        ms,
        jitter,
        random,
        fc.option(ms, { nil: undefined }),
        (n, baseMs, maxMs, j, r, firstMs) => {
          const d = backoffDelay(n, { baseMs, maxMs, jitter: j, random: () => r }, firstMs);
          expect(Number.isFinite(d)).toBe(true);
          expect(d).toBeGreaterThanOrEqual(0);
          expect(d).toBeLessThanOrEqual(maxMs);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("without jitter, grows with the attempt until it reaches the cap and stays there", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 120_000 }),
        (n, baseMs, maxMs) => {
          const here = backoffDelay(n, { baseMs, maxMs });
          const next = backoffDelay(n + 1, { baseMs, maxMs });
          expect(next).toBeGreaterThanOrEqual(here);
          expect(here).toBe(Math.min(baseMs * 2 ** (n - 1), maxMs));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("with jitter j, stays within ±j of the unjittered delay (and the cap)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 120_000 }),
        fc.double({ min: 0.01, max: 0.5, noNaN: true }),
        random,
        (n, baseMs, maxMs, j, r) => {
          const plain = backoffDelay(n, { baseMs, maxMs });
          const d = backoffDelay(n, { baseMs, maxMs, jitter: j, random: () => r });
          // Rounded to whole ms, hence the 1 ms of slack.
          expect(d).toBeGreaterThanOrEqual(Math.floor(plain * (1 - j)) - 1);
          expect(d).toBeLessThanOrEqual(Math.min(maxMs, Math.ceil(plain * (1 + j)) + 1));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe("parseRetryAfter properties", () => {
  it("gives null or a finite, non-negative number of ms for any header value", () => {
    const value = fc.oneof(
      fc.string(),
      fc.stringMatching(/^\s*\d{1,400}(\.\d{0,5})?\s*$/),
      fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
    );
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 4e12 }), (v, now) => {
        const r = parseRetryAfter(v, now);
        if (r !== null) {
          expect(Number.isFinite(r)).toBe(true);
          expect(r).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("reads delay-seconds exactly", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 86_400 }), (s) => {
        expect(parseRetryAfter(String(s))).toBe(s * 1000);
      }),
    );
  });
});
