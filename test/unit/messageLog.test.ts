import { describe, expect, it } from "vitest";
import { displayWidth } from "../../src/text/wrap.js";
import { fitStatus } from "../../src/ui/components/chrome/StatusLine.js";
import { appendLog, LOG_PREFIX_WIDTH, logLines } from "../../src/ui/model/messageLog.js";
import { LOG_LIMIT, type LogEntry } from "../../src/ui/model/uiStore.js";

const at = Date.UTC(2020, 0, 1, 12, 0, 0);

describe("messages log", () => {
  it("keeps the newest entries and counts the ones it dropped", () => {
    let s = { log: [] as readonly LogEntry[], logDropped: 0 };
    for (let i = 0; i < LOG_LIMIT + 7; i++) {
      s = appendLog(s, { at: at + i, level: "info", text: `m${i}` });
    }
    expect(s.log).toHaveLength(LOG_LIMIT);
    expect(s.logDropped).toBe(7);
    expect(s.log[0]?.text).toBe("m7");
    expect(s.log.at(-1)?.text).toBe(`m${LOG_LIMIT + 6}`);
  });

  it("lays every entry out whole, newest first, wrapped to the width", () => {
    const long = `push ses_a failed: ${"the remote refused it because ".repeat(5)}end`;
    const lines = logLines(
      [
        { at, level: "info", text: "older notice" },
        { at: at + 1000, level: "error", text: long },
      ],
      50,
    );
    const first = lines.findIndex((l) => l.text === "older notice");
    expect(first).toBe(lines.length - 1);
    const errorLines = lines.slice(0, first);
    expect(errorLines.length).toBeGreaterThan(2);
    expect(errorLines[0]?.time).toMatch(/^\d{2}:\d{2}:\d{2}$/);
    expect(errorLines.slice(1).every((l) => l.time === "" && !l.first)).toBe(true);
    expect(errorLines.map((l) => l.text).join(" ")).toBe(long);
    for (const l of lines) expect(displayWidth(l.text)).toBeLessThanOrEqual(50 - LOG_PREFIX_WIDTH);
  });
});

describe("status line", () => {
  it("leaves a text that fits alone, and says where the rest is when it cuts", () => {
    expect(fitStatus("short", 40)).toBe("short");
    const cut = fitStatus(`✗ push failed: ${"x".repeat(100)}`, 60);
    expect(displayWidth(cut)).toBeLessThanOrEqual(60);
    expect(cut).toMatch(/^✗ push failed: x+… \(m: whole message\)$/);
  });
});
