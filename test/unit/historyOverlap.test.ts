import { describe, expect, it } from "vitest";
import { historyItem } from "../../src/protocol/history.js";
import { historyBody } from "../../src/server/sessionLog.js";
import {
  heldOverlap,
  journalAnchor,
  type LogItem,
  logSequence,
} from "../../src/store/history/historyOverlap.js";

/**
 * What a session's history repeats of the journal and of the stream's first items, compared as
 * the log keeps things: the agent's words joined, output by its text, files and states by what
 * they say, timestamps and ids ignored.
 */

const ev = (event: string, data: Record<string, unknown>): LogItem => ({
  event,
  data: JSON.stringify(data),
});
const words = (content: string, ts = 1) => ev("prompt_progress", { type: "text", content, ts });
const out = (text: string, ts = 1) => ev("process_output", { stream: "stdout", text, ts });

/** What the history endpoint answers for these stream events, read back as the client reads it. */
function asHistory(items: LogItem[]): LogItem[] {
  const stored = items.map((x, i) => ({ id: i + 1, event: x.event, data: x.data }));
  return historyBody(stored).events.flatMap((e) => {
    const item = historyItem(e);
    return item.ok ? [{ event: item.event, data: item.data }] : [];
  });
}

describe("logSequence", () => {
  it("joins the agent's words until something else comes; ignores heartbeats, ids and times", () => {
    const seq = logSequence([
      words("Let me "),
      words("look at "),
      ev("heartbeat", { timestamp: "x" }),
      words("the \u001b[1mconfig\u001b[0m.\n"),
      out("$ npm test\n", 5),
      ev("file_changed", { path: "a.ts", action: "modified", ts: 9 }),
      ev("state_changed", { state: "paused", previous_state: "active" }),
    ]);
    expect(seq.keys).toEqual([
      "text\nLet me look at the config.",
      "out\n$ npm test",
      "file\nmodified\na.ts",
      "state\npaused",
    ]);
    // The index of the last item each entry covers.
    expect(seq.ends).toEqual([3, 4, 5, 6]);
  });

  it("reads a stream's events and the same events read back from the history alike", () => {
    const live = [
      ev("prompt_progress", { type: "user", content: "fix the tests" }),
      words("Looking "),
      words("now.\n"),
      out("ok 1\n"),
      ev("file_changed", { path: "a.ts", action: "modified" }),
      ev("state_changed", { state: "paused", previous_state: "active" }),
    ];
    expect(logSequence(asHistory(live)).keys).toEqual(logSequence(live).keys);
  });

  it("reads output of every shape and the same read back from the history alike (the log keeps odd shapes as JSON text)", () => {
    const live = [
      ev("process_output", { text: "shape text\n", ts: 3 }),
      ev("process_output", { content: "\u001b[32m✓\u001b[0m test 3 passed" }),
      ev("process_output", { stream: "stderr", data: "shape stderr" }),
      ev("process_output", { fd: 2, output: "shape fd two\n", ts: 4 }),
      ev("process_output", { line: "shape line" }),
      ev("process_output", { message: "shape message" }),
      ev("process_output", { pid: 4, note: "\u001b[31mred\u001b[0m end", ts: 5 }),
      // A tool that printed JSON: the same whichever way it is read.
      out('{"message":"ok"}\n'),
    ];
    const back = asHistory(live);
    expect(back.map((x) => x.data)).toContain(
      JSON.stringify({
        text: '{"fd":2,"output":"shape fd two\\n"}',
        timestamp: new Date(4).toISOString(),
      }),
    );
    expect(logSequence(back).keys).toEqual(logSequence(live).keys);
    expect(heldOverlap(logSequence(back), logSequence(live)).items).toBe(live.length);
  });
});

describe("journalAnchor", () => {
  it("finds where the journal ends in the history: what follows is new", () => {
    // The journal: three entries read from the history once, then two live ones.
    const journal = [out("before 1\n"), out("before 2\n"), out("before 3\n"), out("live 1\n")];
    const history = asHistory([...journal, out("while away\n"), words("Done.\n")]);
    const at = journalAnchor(logSequence(journal), logSequence(history));
    expect(
      history.slice(at + 1).map((x) => JSON.parse(x.data).text ?? JSON.parse(x.data).content),
    ).toEqual(["while away\n", "Done.\n"]);
  });

  it("finds it when the journal saw the agent's words a few at a time", () => {
    const journal = [out("$ npm test\n"), words("All "), words("green, "), words("committing.\n")];
    const history = asHistory([...journal, out("$ git commit\n")]);
    const at = journalAnchor(logSequence(journal), logSequence(history));
    expect(history.slice(at + 1)).toHaveLength(1);
  });

  it("a journal whose last words were cut short: the whole entry is shown again, nothing lost", () => {
    const journal = [out("a\n"), words("Half a sen")];
    const history = asHistory([out("a\n"), words("Half a sentence.\n"), out("b\n")]);
    const at = journalAnchor(logSequence(journal), logSequence(history));
    expect(history.slice(at + 1)).toHaveLength(2);
  });

  it("prefers the longest run, then the earliest place: a repeated line never skips new entries", () => {
    const journal = [out("x\n"), out("$ npm test\n")];
    // "$ npm test" happens again after the journal ended: only its first run is the journal's.
    const history = asHistory([out("x\n"), out("$ npm test\n"), out("y\n"), out("$ npm test\n")]);
    const at = journalAnchor(logSequence(journal), logSequence(history));
    expect(at).toBe(1);
    // One entry alone, found twice: the earlier place, so more is shown rather than less.
    const lone = journalAnchor(logSequence([out("$ npm test\n")]), logSequence(history));
    expect(lone).toBe(1);
  });

  it("nothing in common: -1, everything in the history is shown", () => {
    expect(journalAnchor(logSequence([out("old\n")]), logSequence([out("new\n")]))).toBe(-1);
    expect(journalAnchor(logSequence([]), logSequence([out("new\n")]))).toBe(-1);
  });
});

describe("heldOverlap", () => {
  const overlap = (history: LogItem[], held: LogItem[]) =>
    heldOverlap(logSequence(asHistory(history)), logSequence(held));

  it("drops the stream's first items the history already holds, keeps the rest", () => {
    const history = asHistory([out("a\n"), out("b\n"), out("c\n")]);
    const held = [out("b\n", 7), out("c\n", 8), ev("heartbeat", {}), out("d\n", 9)];
    // b and c are the history's end; d is new (held beyond the history: nothing to wait for).
    expect(heldOverlap(logSequence(history), logSequence(held))).toEqual({ items: 2, ahead: 0 });
  });

  it("the stream opened in the middle of the agent's words: the end of the history's entry", () => {
    const history = asHistory([out("a\n"), words("Reading "), words("the config.\n")]);
    const held = [words("the config.\n"), out("b\n")];
    expect(heldOverlap(logSequence(history), logSequence(held))).toEqual({ items: 1, ahead: 0 });
  });

  it("none in common, or words that went on after the history was read: nothing dropped", () => {
    const history = asHistory([out("a\n"), words("Reading ")]);
    expect(heldOverlap(logSequence(history), logSequence([out("b\n")]))).toEqual({
      items: 0,
      ahead: 0,
    });
    // The history has "Reading", the stream "Reading the config": shown again, not lost.
    expect(
      heldOverlap(logSequence(history), logSequence([words("Reading "), words("the config.\n")])),
    ).toEqual({ items: 0, ahead: 0 });
    expect(heldOverlap(logSequence(history), logSequence([]))).toEqual({ items: 0, ahead: 0 });
  });

  it("a history answered late: the held items in its middle, what follows them is still to come", () => {
    const all = [out("a\n"), out("b\n"), out("c\n"), out("d\n"), out("e\n")];
    // The stream sent b and c; the history already holds d and e after them.
    expect(overlap(all, [out("b\n"), out("c\n")])).toEqual({ items: 0, ahead: 2 });
    // Once the stream has sent d and e too, all four are the history's end: all dropped.
    expect(overlap(all, all.slice(1))).toEqual({ items: 4, ahead: 0 });
    // And with a new one after them, that one stays.
    expect(overlap(all, [...all.slice(1), out("f\n")])).toEqual({ items: 4, ahead: 0 });
  });

  it("the agent's words still coming: the rest of the history's entry is awaited", () => {
    const history = [out("a\n"), words("All "), words("green.\n")];
    expect(overlap(history, [out("a\n"), words("All ")])).toEqual({ items: 0, ahead: 1 });
    expect(overlap(history, [out("a\n"), words("All "), words("green.\n")])).toEqual({
      items: 3,
      ahead: 0,
    });
  });

  it("an old line happening again is not hidden: awaited, then shown when something else follows", () => {
    // "$ npm test" ran long ago; the stream sends it again, after the history was read.
    const history = [out("$ npm test\n"), out("ok\n"), out("$ git commit\n")];
    // It may be a late history's, so the stream is given the chance to send what follows it...
    expect(overlap(history, [out("$ npm test\n")])).toEqual({ items: 0, ahead: 2 });
    // ...but it sends something else: nothing is dropped, the line shows again (twice at
    // worst, never lost).
    expect(overlap(history, [out("$ npm test\n"), out("2 failed\n")])).toEqual({
      items: 0,
      ahead: 0,
    });
  });

  it("the newest place is awaited; one too far back is not waited for", () => {
    const history = [out("x\n"), out("y\n"), out("x\n"), out("z\n")];
    expect(overlap(history, [out("x\n")])).toEqual({ items: 0, ahead: 1 });
    const long = [out("x\n"), ...Array.from({ length: 65 }, (_, i) => out(`line ${i}\n`))];
    expect(overlap(long, [out("x\n")])).toEqual({ items: 0, ahead: 0 });
    expect(overlap(long.slice(0, 65), [out("x\n")])).toEqual({ items: 0, ahead: 64 });
  });
});
