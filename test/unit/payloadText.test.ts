import { describe, expect, it } from "vitest";
import { compactJson, payloadText } from "../../src/text/payloadText.js";

describe("payloadText: the one reading of an open payload", () => {
  it("takes the first string field among text, content, data, output, line, message", () => {
    expect(payloadText({ text: "a" }).text).toBe("a");
    expect(payloadText({ content: "\u001b[32m✓\u001b[0m test 3 passed" }).text).toBe(
      "\u001b[32m✓\u001b[0m test 3 passed",
    );
    expect(payloadText({ stream: "stdout", data: "line 2" })).toEqual({
      text: "line 2",
      compact: false,
      stream: "stdout",
    });
    expect(payloadText({ output: "o", message: "m" }).text).toBe("o");
    expect(payloadText({ line: 7, message: "m" }).text).toBe("m");
    expect(payloadText({ text: 5, content: "c" }).text).toBe("c");
  });

  it("decides the stream from stream or fd", () => {
    expect(payloadText({ fd: 2, data: "x" }).stream).toBe("stderr");
    expect(payloadText({ fd: 1, data: "x" }).stream).toBe("stdout");
    expect(payloadText({ fd: "2", data: "x" }).stream).toBe("stderr");
    expect(payloadText({ stream: "STDERR", data: "x" }).stream).toBe("stderr");
    expect(payloadText({ stream: "err", data: "x" }).stream).toBe("stderr");
    expect(payloadText({ stream: 2, data: "x" }).stream).toBe("stderr");
    expect(payloadText({ stream: "pty", data: "x" }).stream).toBe("pty");
    expect(payloadText({ data: "x" }).stream).toBeUndefined();
  });

  it("shows other shapes as compact JSON with escapes removed, never spelled out", () => {
    const shown = payloadText({ pid: 4, note: "\u001b[31mred\u001b[0m\u0007", "\u001b[1mk": 1 });
    expect(shown.compact).toBe(true);
    expect(shown.text).toBe('{"pid":4,"note":"red","k":1}');
    expect(shown.text).not.toContain("\\u001b");
    expect(compactJson([{ a: "\u009b2J" }])).toBe('[{"a":""}]');
    let deep: unknown = "x";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(() => compactJson(deep)).not.toThrow();
  });
});
