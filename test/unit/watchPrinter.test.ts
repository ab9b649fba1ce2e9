import { afterEach, describe, expect, it, vi } from "vitest";
import { WatchPrinter, type WatchPrinterOptions } from "../../src/cli/watchPrinter.js";
import type { SessionEvent } from "../../src/protocol/events.js";
import { createRedactor } from "../../src/text/redact.js";

const AT = Date.UTC(2024, 0, 1, 9, 30, 5);
const A = "ses_aaaaaaaa";
const B = "ses_bbbbbbbb";

const prompt = (content: string): SessionEvent => ({
  kind: "prompt_progress",
  id: null,
  data: { type: "text", content },
});
const file = (path: string): SessionEvent => ({
  kind: "file_changed",
  id: null,
  data: { path, action: "modified" },
});
const output = (text: string): SessionEvent => ({
  kind: "process_output",
  id: null,
  data: { stream: "stdout", text },
});

function printer(opts: Partial<WatchPrinterOptions> = {}) {
  const lines: string[] = [];
  const none = createRedactor().stream();
  const p = new WatchPrinter({
    sessionIds: [A],
    color: false,
    width: 120,
    redaction: () => none,
    write: (l) => lines.push(l),
    ...opts,
  });
  return { p, lines };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("watch lines", () => {
  it("names an end-of-answer marker ([done]) and other prompt types, never an empty prompt line", () => {
    const { p, lines } = printer();
    p.event(A, prompt("All tests pass.\n"), AT);
    p.event(A, { kind: "prompt_progress", id: null, data: { type: "done", content: "" } }, AT);
    p.event(
      A,
      { kind: "prompt_progress", id: null, data: { type: "user", content: "ship it" } },
      AT,
    );
    expect(lines).toEqual([
      "09:30:05 prompt All tests pass.",
      "09:30:05 prompt [done]",
      "09:30:05 prompt [user] ship it",
    ]);
  });

  it("joins prompt fragments into one line, ended by a newline in the text", () => {
    const { p, lines } = printer();
    for (const f of ["Reading ", "the CI ", "log: the job ", "times out.\nNext: pin ", "it."]) {
      p.event(A, prompt(f), AT);
    }
    expect(lines).toEqual(["09:30:05 prompt Reading the CI log: the job times out."]);
    p.flushAll();
    expect(lines[1]).toBe("09:30:05 prompt Next: pin it.");
  });

  it("another event of the same session ends the prompt line first, keeping the order", () => {
    const { p, lines } = printer();
    p.event(A, prompt("Editing "), AT);
    p.event(A, prompt("the loader"), AT);
    p.event(A, file("src/load.ts"), AT);
    expect(lines).toEqual([
      "09:30:05 prompt Editing the loader",
      "09:30:05 file   modified src/load.ts",
    ]);
  });

  it("wraps long prompt text at a word boundary within the width", () => {
    const { p, lines } = printer({ width: 40 });
    p.event(A, prompt("one two three four five six seven eight nine ten eleven twelve"), AT);
    p.flushAll();
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(40);
    expect(lines.map((l) => l.slice(16)).join(" ")).toBe(
      "one two three four five six seven eight nine ten eleven twelve",
    );
  });

  it("a pause prints what has come so far", () => {
    vi.useFakeTimers();
    const { p, lines } = printer({ idleFlushMs: 1000 });
    p.event(A, prompt("Thinking"), AT);
    expect(lines).toEqual([]);
    vi.advanceTimersByTime(1000);
    expect(lines).toEqual(["09:30:05 prompt Thinking"]);
  });

  it("with one session, lines carry no session id; with several, each line starts with its own", () => {
    const one = printer();
    one.p.event(A, file("a.ts"), AT);
    expect(one.lines[0]).toBe("09:30:05 file   modified a.ts");

    const two = printer({ sessionIds: [A, B] });
    two.p.event(A, prompt("alpha "), AT);
    two.p.event(B, prompt("beta "), AT);
    two.p.event(A, prompt("again"), AT);
    two.p.event(B, file("b.ts"), AT);
    two.p.flushAll();
    expect(two.lines).toEqual([
      `09:30:05 ${B} prompt beta`,
      `09:30:05 ${B} file   modified b.ts`,
      `09:30:05 ${A} prompt alpha again`,
    ]);
  });

  it("lines stay in time order across sessions: a prompt line begun earlier is printed before a later line of another session", () => {
    const two = printer({ sessionIds: [A, B] });
    two.p.event(A, prompt("Found the cause: "), AT);
    two.p.event(B, output("$ npm test"), AT + 2000);
    two.p.event(A, prompt("the cache key"), AT + 3000);
    two.p.note(B, "state", "paused → active", AT + 4000);
    two.p.flushAll();
    expect(two.lines).toEqual([
      `09:30:05 ${A} prompt Found the cause:`,
      `09:30:07 ${B} output [stdout] $ npm test`,
      `09:30:08 ${A} prompt the cache key`,
      `09:30:09 ${B} state  paused → active`,
    ]);
    const times = two.lines.map((l) => l.slice(0, 8));
    expect(times).toEqual([...times].sort());
  });

  it("a gap marker or a state read again ends that session's prompt line first, with the same prefix", () => {
    const two = printer({ sessionIds: [A, B] });
    two.p.event(A, prompt("before the drop"), AT);
    two.p.event(B, prompt("elsewhere"), AT);
    two.p.note(A, "gap", "reconnected — events between 09:30:01 and 09:30:05 may be missing", AT);
    two.p.note(A, "state", "now active (read again after the gap)", AT);
    expect(two.lines).toEqual([
      `09:30:05 ${A} prompt before the drop`,
      `09:30:05 ${A} gap    reconnected — events between 09:30:01 and 09:30:05 may be missing`,
      `09:30:05 ${A} state  now active (read again after the gap)`,
    ]);
    two.p.flushAll();
    expect(two.lines[3]).toBe(`09:30:05 ${B} prompt elsewhere`);

    const one = printer();
    one.p.note(A, "gap", "reconnected", AT);
    expect(one.lines).toEqual(["09:30:05 gap    reconnected"]);
  });

  it("colours time, session and kind on a terminal; none at all without colour", () => {
    const plain = printer({ sessionIds: [A, B] });
    plain.p.event(A, output("\u001b[32mok\u001b[0m\n"), AT);
    expect(plain.lines[0]).toBe(`09:30:05 ${A} output [stdout] ok`);
    expect(plain.lines.join("")).not.toContain("\u001b");

    const tty = printer({ sessionIds: [A, B], color: true });
    tty.p.event(A, file("a.ts"), AT);
    tty.p.event(B, output("\u001b[32mok\u001b[0m\n"), AT);
    const [a, b] = tty.lines as [string, string];
    expect(a).toContain("\u001b[2m09:30:05\u001b[22m");
    expect(a).toContain(`\u001b[36m${A}\u001b[39m`);
    expect(b).toContain(`\u001b[35m${B}\u001b[39m`);
    expect(a).toContain("\u001b[33mfile  \u001b[39m");
    // The agent's own colours are kept, and closed so they do not bleed into the next line.
    expect(b).toMatch(/\u001b\[32mok\u001b\[0m\u001b\[0m$/);
  });
});
