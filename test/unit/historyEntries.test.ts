import { describe, expect, it } from "vitest";
import { historyItem, historyText, parseSessionHistory } from "../../src/protocol/history.js";

describe("history answers", () => {
  it("reads {events, count}, a bare array, and refuses anything else", () => {
    expect(parseSessionHistory({ events: [{ type: "user" }], count: 7, more: 1 })).toEqual({
      events: [{ type: "user" }],
      count: 7,
    });
    expect(parseSessionHistory([{ type: "user" }]).count).toBe(1);
    expect(() => parseSessionHistory({ entries: [] })).toThrow(/events/);
    expect(() => parseSessionHistory(null)).toThrow(/events/);
  });

  it("turns each documented entry type into the live item it matches", () => {
    const item = (e: unknown) => {
      const r = historyItem(e);
      return r.ok ? [r.event, JSON.parse(r.data)] : ["malformed", r.error];
    };
    expect(item({ type: "user", message: "hi" })).toEqual([
      "prompt_progress",
      { type: "user", content: "hi" },
    ]);
    expect(item({ type: "assistant_text", content: "ok" })).toEqual([
      "prompt_progress",
      { type: "text", content: "ok\n" },
    ]);
    expect(item({ type: "tool_result", content: "x", stream: "stderr" })).toEqual([
      "process_output",
      { text: "x", stream: "stderr" },
    ]);
    // A result kept as the payload it streamed in: passed on whole, read as a live one is.
    expect(item({ type: "tool_result", content: { content: "ok\n" } })).toEqual([
      "process_output",
      { content: "ok\n" },
    ]);
    expect(item({ type: "state_changed", state: "paused", previous_state: "active" })).toEqual([
      "state_changed",
      { state: "paused", previous_state: "active" },
    ]);
    expect(item({ type: "file_changed", path: "a", action: "created" })).toEqual([
      "file_changed",
      { path: "a", action: "created" },
    ]);
    expect(
      item({ type: "completion", content: "done", timestamp: "2026-01-01T00:00:00Z" }),
    ).toEqual([
      "prompt_progress",
      { type: "completion", content: "done", timestamp: "2026-01-01T00:00:00Z" },
    ]);
    expect(item(42)).toEqual(["malformed", "history entry is not an object"]);
    expect(item({ content: "x" })).toEqual(["malformed", "history entry has no type"]);
    const odd = historyItem({ type: "plan" });
    expect(odd.ok && odd.event).toBe("history:plan");
  });

  it("finds the text in parts and tool calls, bounded in depth", () => {
    expect(
      historyText([
        { type: "text", text: "a" },
        { type: "text", text: "b" },
      ]),
    ).toBe("a\nb");
    expect(historyText({ name: "bash", input: { cmd: "ls" } })).toBe('bash {"cmd":"ls"}');
    let deep: unknown = "x";
    for (let i = 0; i < 50; i++) deep = [deep];
    expect(typeof historyText(deep)).toBe("string");
  });
});
