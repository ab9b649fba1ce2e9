import { describe, expect, it } from "vitest";
import { parseReplayTime } from "../../src/store/replay/replayTime.js";
import { pinTimeZone } from "../helpers/timeZone.js";

const start = Date.UTC(2024, 4, 1, 10, 0, 0);
const end = Date.UTC(2024, 4, 1, 10, 20, 0);
const at = (text: string) => parseReplayTime(text, start, end);

pinTimeZone("UTC");

describe("parseReplayTime", () => {
  it("reads the forms the README lists", () => {
    expect(at("start")).toBe(start);
    expect(at("END")).toBe(end);
    expect(at("50%")).toBe(start + 10 * 60_000);
    expect(at("+90s")).toBe(start + 90_000);
    expect(at("+1h30m")).toBe(end);
    expect(at("+2m30s")).toBe(start + 150_000);
    expect(at("+250ms")).toBe(start + 250);
    expect(at("-30s")).toBe(end - 30_000);
    expect(at("10:12")).toBe(start + 12 * 60_000);
    expect(at(" 10:12:30 ")).toBe(start + 12 * 60_000 + 30_000);
    expect(at("2024-05-01T10:05:00Z")).toBe(start + 5 * 60_000);
  });

  it("keeps the moment inside the recording", () => {
    expect(at("09:00")).toBe(start);
    expect(at("+2h")).toBe(end);
    expect(at("150%")).toBe(end);
    expect(at("2030-01-01T00:00:00Z")).toBe(end);
  });

  it("refuses what is not a time", () => {
    for (const bad of [
      "",
      "soon",
      "+",
      "+5",
      "+5x",
      "25:00",
      "10:61",
      "10",
      "-",
      "1e3%",
      "+5m foo",
    ]) {
      expect(at(bad), bad).toBeNull();
    }
  });
});
