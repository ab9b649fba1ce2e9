import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keyExpiresAt } from "../../src/protocol/resources.js";
import {
  expiryStatus,
  formatAge,
  formatAgeCoarse,
  formatBytes,
  formatCount,
  formatCountdown,
  formatDuration,
  formatElapsed,
  formatExpiry,
  formatRate,
  formatRateLimit,
  formatTime,
  maskKey,
  truncate,
} from "../../src/text/format.js";

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe("formatDuration", () => {
  it("shows at most two units, the coarse one first", () => {
    expect(formatDuration(12 * D + 5 * H)).toBe("12d");
    expect(formatDuration(2 * D + 5 * H)).toBe("2d 5h");
    expect(formatDuration(3 * H + 2 * M + 9 * S)).toBe("3h 2m");
    expect(formatDuration(3 * H)).toBe("3h");
    expect(formatDuration(4 * M + 10 * S)).toBe("4m 10s");
    expect(formatDuration(12 * M + 10 * S)).toBe("12m");
    expect(formatDuration(45 * S + 999)).toBe("45s");
    expect(formatDuration(400)).toBe("0s");
    expect(formatDuration(-2 * H)).toBe("2h");
  });

  it("rounds countdowns up and shows tenths for elapsed time", () => {
    expect(formatCountdown(2100)).toBe("3s");
    expect(formatCountdown(-5)).toBe("0s");
    expect(formatElapsed(1234)).toBe("1.2s");
    expect(formatElapsed(61 * S)).toBe("1m 1s");
  });
});

describe("expiry", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");
  // A key's expires_at as the service sends it, read as the header, login and whoami read it.
  const status = (expires_at: unknown) => expiryStatus(keyExpiresAt({ expires_at }), now);
  it("says how long is left, warns within a week, and says when it expired", () => {
    expect(formatExpiry(keyExpiresAt({ expires_at: "2025-01-13T00:00:00Z" }), now)).toBe(
      "expires in 12d",
    );
    expect(status("2025-01-13T00:00:00Z").level).toBe("ok");
    expect(status("2025-01-03T00:00:00+00:00")).toMatchObject({
      text: "expires in 2d",
      level: "warn",
    });
    expect(status("2024-12-31T22:00:00Z")).toMatchObject({
      text: "expired 2h ago",
      level: "expired",
    });
    expect(formatExpiry(keyExpiresAt({ expires_at: null }), now)).toBe("never expires");
    expect(status(undefined).level).toBe("none");
    expect(status("soon").level).toBe("unknown");
  });

  it("reads an expiry sent as epoch seconds, or as a time without a zone (UTC), alike", () => {
    const iso = status("2025-01-03T00:00:00Z");
    expect(status(Date.parse("2025-01-03T00:00:00Z") / 1000)).toEqual(iso);
    expect(status("1735862400")).toEqual(iso);
    expect(status("2025-01-03T00:00:00")).toEqual(iso);
  });
});

describe("formatRate", () => {
  it("scales its precision with the rate", () => {
    expect(formatRate(0)).toBe("0 ev/s");
    expect(formatRate(0.01)).toBe("<0.1 ev/s");
    expect(formatRate(2.46)).toBe("2.5 ev/s");
    expect(formatRate(140.4)).toBe("140 ev/s");
    expect(formatRate(1234)).toBe("1.2k ev/s");
    expect(formatRate(25_000)).toBe("25k ev/s");
  });
});

describe("truncate", () => {
  it("cuts with an ellipsis and never splits an emoji", () => {
    expect(truncate("hello world", 5)).toBe("hell…");
    expect(truncate("short", 10)).toBe("short");
    expect(truncate("🎉🎉🎉🎉", 3)).toBe("🎉🎉…");
    expect(truncate("abc", 0)).toBe("");
    expect(truncate("abcdef", 1)).toBe("…");
  });
});

describe("formatTime and formatBytes", () => {
  it("formats clock times and sizes", () => {
    expect(formatTime(Date.parse("2025-01-01T07:05:09Z"), { utc: true })).toBe("07:05:09");
    expect(formatTime(Number.NaN)).toBe("--:--:--");
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(50 * 1024 * 1024)).toBe("50 MB");
  });
});

describe("maskKey", () => {
  it("shows a prefix and the last four characters, never the whole key", () => {
    const key = "ask_8f2c1d0e9b7a6f3a9f3a";
    const masked = maskKey(key);
    expect(masked).toBe("ask_…9f3a");
    expect(masked).not.toContain(key.slice(4, -4));
    expect(maskKey("abcdefghijklmnop")).toBe("abcd…mnop");
  });

  it("keeps a prefix of several segments (runtm_sk_live_…), never part of the secret", () => {
    expect(maskKey("runtm_sk_live_0123456789abcdefXYZW")).toBe("runtm_sk_live_…XYZW");
    expect(maskKey("ask_live_8f2c1d0e9b7a6f3a9f3a")).toBe("ask_live_…9f3a");
    // A segment with digits is the secret already: the prefix stops before it.
    expect(maskKey("sk_9f8e7d6c5b4a39281706")).toBe("sk_…1706");
    // Too short to hide eight characters behind the full prefix: fewer segments.
    expect(maskKey("runtm_sk_live_abcdefgXYZW")).toBe("runtm_sk_…XYZW");
    expect(maskKey("runtm_sk_live_XYZW")).toBe("runtm_…XYZW");
  });

  it("shows almost nothing of short keys", () => {
    expect(maskKey("abcdefgh")).toBe("…gh");
    expect(maskKey("abc")).toBe("****");
    expect(maskKey("")).toBe("****");
  });
});

describe("texts redrawn with the clock", () => {
  it("the list's freshness moves in 5 s steps, then whole minutes", () => {
    expect(formatAgeCoarse(0)).toBe("just now");
    expect(formatAgeCoarse(4_999)).toBe("just now");
    expect(formatAgeCoarse(5_000)).toBe("5s ago");
    expect(formatAgeCoarse(14_999)).toBe("10s ago");
    expect(formatAgeCoarse(59_999)).toBe("55s ago");
    expect(formatAgeCoarse(125_000)).toBe("2m ago");
    expect(formatAge(125_000)).toBe("2m 5s ago");
    // Across a 20 s stretch read every second, the coarse text changes 4 times, not 20.
    const texts = new Set(Array.from({ length: 20 }, (_, i) => formatAgeCoarse(3_000 + i * 1000)));
    expect(texts.size).toBe(5);
  });

  it("the header's reset countdown is coarse while the allowance is plentiful, exact near the limit", () => {
    const at = 1_000_000;
    const figures = { limit: 100, remaining: 97, resetSeconds: 41, observedAt: at };
    expect(formatRateLimit(figures, at)).toBe("97/100 left, resets in 41 s");
    expect(formatRateLimit(figures, at, { coarse: true })).toBe("97/100 left, resets in ~50 s");
    // Rounded up, never sooner than it is: 40 s left reads ~40 s.
    expect(formatRateLimit(figures, at + 1_000, { coarse: true })).toBe(
      "97/100 left, resets in ~40 s",
    );
    // The last 10 s, and a nearly spent allowance, count every second.
    expect(formatRateLimit(figures, at + 33_000, { coarse: true })).toBe(
      "97/100 left, resets in 8 s",
    );
    const low = { ...figures, remaining: 9 };
    expect(formatRateLimit(low, at, { coarse: true })).toBe("9/100 left, resets in 41 s");
  });
});

describe("formatCount", () => {
  it("groups thousands as en-US does, for every whole number a count can be", () => {
    fc.assert(
      fc.property(
        fc.maxSafeInteger().filter((n) => !Object.is(n, -0)),
        (n) => {
          expect(formatCount(n)).toBe(n.toLocaleString("en-US"));
        },
      ),
    );
    expect(formatCount(2000)).toBe("2,000");
    expect(formatCount(-1234567)).toBe("-1,234,567");
    expect(formatCount(999)).toBe("999");
  });

  it("rounds to a whole number and never shows a minus zero", () => {
    expect(formatCount(1234.5)).toBe("1,235");
    expect(formatCount(-0.2)).toBe("0");
    expect(formatCount(Number.POSITIVE_INFINITY)).toBe("Infinity");
  });
});
