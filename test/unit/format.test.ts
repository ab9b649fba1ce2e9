import { describe, expect, it } from "vitest";
import {
  expiryStatus,
  formatBytes,
  formatCountdown,
  formatDuration,
  formatElapsed,
  formatExpiry,
  formatRate,
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
  it("says how long is left, warns within a week, and says when it expired", () => {
    expect(formatExpiry("2025-01-13T00:00:00Z", now)).toBe("expires in 12d");
    expect(expiryStatus("2025-01-13T00:00:00Z", now).level).toBe("ok");
    expect(expiryStatus("2025-01-03T00:00:00+00:00", now)).toMatchObject({
      text: "expires in 2d",
      level: "warn",
    });
    expect(expiryStatus("2024-12-31T22:00:00Z", now)).toMatchObject({
      text: "expired 2h ago",
      level: "expired",
    });
    expect(formatExpiry(null, now)).toBe("never expires");
    expect(expiryStatus("soon", now).level).toBe("unknown");
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
