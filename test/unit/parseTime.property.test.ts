import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EPOCH_MS_FROM, parseTime } from "../../src/protocol/values.js";

/**
 * The one time parser: every view (list, fleet, attention, panes, headless) reads a server's
 * times through it, so these properties are what each of them shows.
 */

const MAX_MS = 8.64e15;
/** Any moment a Date holds, to the millisecond. */
const moment = fc.integer({ min: -MAX_MS, max: MAX_MS });
/** Moments a service plausibly sends as epoch numbers: 2001-09-09 to the year 2286. */
const recentMs = fc.integer({ min: EPOCH_MS_FROM, max: 9_999_999_999_999 });
const offsetMinutes = fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 });

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, "0");

function withOffset(ms: number, offset: number): string {
  // The wall clock at that offset, written with it: the same moment.
  const local = new Date(ms + offset * 60_000).toISOString().replace(/Z$/, "");
  const sign = offset < 0 ? "-" : "+";
  return `${local}${sign}${pad(Math.trunc(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
}

describe("parseTime", () => {
  it("reads back every ISO 8601 time a Date writes, with Z, with no zone (UTC) or lowercase", () => {
    fc.assert(
      fc.property(moment, (ms) => {
        const iso = new Date(ms).toISOString();
        expect(parseTime(iso)).toBe(ms);
        expect(parseTime(iso.replace(/Z$/, ""))).toBe(ms);
        expect(parseTime(iso.toLowerCase())).toBe(ms);
        expect(parseTime(` ${iso.replace("T", " ")} `)).toBe(ms);
      }),
    );
  });

  it("reads a time with an offset as the moment it names, in every way of writing the offset", () => {
    fc.assert(
      fc.property(fc.integer({ min: -8e15, max: 8e15 }), offsetMinutes, (ms, offset) => {
        const text = withOffset(ms, offset);
        expect(parseTime(text)).toBe(ms);
        expect(parseTime(text.replace(/:(\d\d)$/, "$1"))).toBe(ms);
        if (offset % 60 === 0) expect(parseTime(text.replace(/:00$/, ""))).toBe(ms);
      }),
    );
  });

  it("reads coarser and finer times: date only, minutes only, any digits of fraction", () => {
    fc.assert(
      fc.property(moment, fc.stringMatching(/^\d{0,6}$/), (ms, extra) => {
        const iso = new Date(ms).toISOString();
        const day = iso.slice(0, iso.indexOf("T"));
        expect(parseTime(day)).toBe(Date.parse(`${day}T00:00:00Z`));
        const minute = iso.slice(0, iso.lastIndexOf(":"));
        expect(parseTime(`${minute}Z`)).toBe(Date.parse(`${minute}:00Z`));
        // Extra digits of fraction are cut, not rounded: the same millisecond.
        expect(parseTime(iso.replace("Z", `${extra}Z`))).toBe(ms);
      }),
    );
  });

  it("reads epoch seconds and milliseconds, as numbers or as strings, as one moment", () => {
    fc.assert(
      fc.property(recentMs, (ms) => {
        const seconds = Math.floor(ms / 1000);
        const whole = seconds * 1000;
        expect(parseTime(ms)).toBe(ms);
        expect(parseTime(String(ms))).toBe(ms);
        expect(parseTime(seconds)).toBe(whole);
        expect(parseTime(` ${seconds} `)).toBe(whole);
        expect(parseTime(new Date(whole).toISOString())).toBe(whole);
      }),
    );
  });

  it("answers a finite moment or undefined for anything at all, never NaN or a throw", () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.string(), fc.double()), (v) => {
        const t = parseTime(v);
        if (t !== undefined) {
          expect(Number.isFinite(t)).toBe(true);
          expect(Math.abs(t)).toBeLessThanOrEqual(MAX_MS);
        }
      }),
    );
  });

  it("says undefined for days and hours that do not exist, zones out of range and other text", () => {
    for (const none of [
      "2030-02-30T10:00:00Z",
      "2031-02-29",
      "2030-13-01",
      "2030-00-10",
      "2030-04-31T00:00:00Z",
      "2030-01-01T24:00:00Z",
      "2030-01-01T10:60:00Z",
      "2030-01-01T10:00:60Z",
      "2030-01-01T10:00:00+24:00",
      "2030-01-01T10:00:00+02:60",
      "2030-01-01T",
      "2030-1-1",
      "Tue, 01 Jan 2030 10:00:00 GMT",
      "yesterday",
      "",
      "   ",
      "-000000-01-01T00:00:00Z",
      "+275760-09-13T00:00:00.001Z",
      0,
      -5,
      "-1700000000",
      Number.NaN,
      Number.POSITIVE_INFINITY,
      1e20,
      null,
      undefined,
      true,
      {},
      [1_700_000_000],
    ]) {
      expect(parseTime(none), JSON.stringify(none)).toBeUndefined();
    }
    expect(parseTime("2032-02-29T00:00:00Z")).toBe(Date.UTC(2032, 1, 29));
    // Years 0 to 99 are those years, not 1900 to 1999.
    expect(new Date(parseTime("0042-03-04T00:00:00Z") as number).getUTCFullYear()).toBe(42);
  });
});
