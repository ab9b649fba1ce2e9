import { describe, expect, it } from "vitest";
import {
  contentKey,
  journalLine,
  MAX_JOURNAL_LINE_CHARS,
  parseRecordLine,
  recordContentKey,
  storedData,
  type TextCleaner,
} from "../../src/store/history/recordFormat.js";
import { buildRecording, sessionOfFileName } from "../../src/store/history/recording.js";
import { sanitize } from "../../src/text/sanitize.js";

const clean: TextCleaner = (t, sgr) => sanitize(t, sgr ? { keepSgr: true } : undefined);

function event(line: string) {
  const p = parseRecordLine(line);
  if (p.kind !== "event") throw new Error(`not an event: ${line} (${JSON.stringify(p)})`);
  return p.record;
}

describe("parseRecordLine", () => {
  it("reads a watch --json line and a journal line", () => {
    const r = event(
      '{"session_id":"ses_a","event":"process_output","id":"7","data":{"text":"hi\\n"},"received_at":"2024-05-01T10:00:00.000Z"}',
    );
    expect(r).toEqual({
      sessionId: "ses_a",
      event: "process_output",
      id: "7",
      data: '{"text":"hi\\n"}',
      at: Date.UTC(2024, 4, 1, 10),
    });
    // Older watch --json output has no received_at; a malformed item keeps its raw text.
    const old = event(
      '{"session_id":"ses_a","event":"file_changed","id":null,"data":{"path":"a"}}',
    );
    expect(old.at).toBeNull();
    expect(old.id).toBeNull();
    const bad = event(
      '{"session_id":"ses_a","event":"process_output","id":"8","data":null,"malformed":true,"error":"x","raw":"{cut"}',
    );
    expect(bad.data).toBe("{cut");
  });

  it("reads a line of the pane's e export, joined prompt lines closed again", () => {
    const prompt = event(
      '{"seq":3,"id":"4","kind":"prompt","at":"2024-05-01T10:00:01.000Z","text":"Reading it","data":{"type":"text","content":"Reading it"}}',
    );
    expect(prompt).toMatchObject({ event: "prompt_progress", id: "4", sessionId: null });
    expect(JSON.parse(prompt.data)).toEqual({ type: "text", content: "Reading it\n" });
    const unknown = event(
      '{"seq":4,"id":null,"kind":"unknown","at":"2024-05-01T10:00:02.000Z","text":"{}","event":"deploy","data":{"a":1}}',
    );
    expect(unknown).toMatchObject({ event: "deploy", data: '{"a":1}' });
    const malformed = event(
      '{"seq":5,"id":"9","kind":"malformed","at":"2024-05-01T10:00:03.000Z","text":"x","event":"process_output","data":"{oops"}',
    );
    expect(malformed).toMatchObject({ event: "process_output", data: "{oops" });
  });

  it("tells lines that are no events from lines it cannot read", () => {
    expect(parseRecordLine('{"session_id":"ses_a","status":"live"}').kind).toBe("other");
    expect(
      parseRecordLine(
        '{"seq":1,"id":null,"kind":"notice","at":"2024-05-01T10:00:00Z","text":"reconnected"}',
      ).kind,
    ).toBe("other");
    expect(
      parseRecordLine(
        '{"seq":1,"id":null,"kind":"divider","at":"2024-05-01T10:00:00Z","text":"live"}',
      ).kind,
    ).toBe("other");
    expect(parseRecordLine("").kind).toBe("other");
    expect(parseRecordLine("{not json")).toEqual({ kind: "bad", reason: "not JSON" });
    expect(parseRecordLine("[1,2]").kind).toBe("bad");
    expect(parseRecordLine('{"hello":"world"}').kind).toBe("bad");
  });
});

describe("journal lines", () => {
  it("read back as what was stored, and repeats of it are recognised", () => {
    const data =
      '{"stream":"stdout","text":"\\u001b[32mok\\u001b[0m \\u001b]0;t\\u0007done\\n","ts":5}';
    const stored = storedData("process_output", data, clean);
    const line = journalLine("ses_a", "process_output", null, stored, Date.UTC(2024, 0, 1));
    const back = event(line);
    expect(JSON.parse(back.data)).toEqual({
      stream: "stdout",
      text: "\u001b[32mok\u001b[0m done\n",
      ts: 5,
    });
    expect(recordContentKey(back)).toBe(contentKey("process_output", stored));
    // Another event (another ts) is not a repeat.
    const other = storedData("process_output", data.replace('"ts":5', '"ts":6'), clean);
    expect(contentKey("process_output", other)).not.toBe(recordContentKey(back));
  });

  it("keeps a payload's keys as keys, a __proto__ one included", () => {
    const stored = storedData("unknown", '{"__proto__":{"x":1},"a":"b"}', clean);
    const back = event(journalLine("ses_a", "unknown", "1", stored, 0));
    expect(JSON.parse(back.data)).toEqual(JSON.parse('{"__proto__":{"x":1},"a":"b"}'));
  });

  it("cuts an event too large for one line, saying so", () => {
    const big = JSON.stringify({ text: "x".repeat(MAX_JOURNAL_LINE_CHARS * 2) });
    const line = journalLine(
      "ses_a",
      "process_output",
      "1",
      storedData("process_output", big, clean),
      0,
    );
    expect(line.length).toBeLessThan(MAX_JOURNAL_LINE_CHARS);
    const o = JSON.parse(line);
    expect(o.malformed).toBe(true);
    expect(o.error).toMatch(/too large for the journal: cut/);
  });
});

describe("buildRecording", () => {
  it("takes a file's session from its name and interleaves files by time", () => {
    expect(sessionOfFileName("agent-sessions-ses_ab-c-2024-05-01T10-00-00Z.ndjson")).toBe(
      "ses_ab-c",
    );
    expect(sessionOfFileName("/x/ses_q9.1.ndjson")).toBe("ses_q9");
    expect(sessionOfFileName("notes.ndjson")).toBeNull();
    const exportLine = (seq: number, at: string, text: string) =>
      JSON.stringify({
        seq,
        id: String(seq),
        kind: "output",
        at,
        text,
        data: { text: `${text}\n` },
      });
    const rec = buildRecording([
      {
        name: "agent-sessions-ses_x-2024-05-01T10-00-00Z.ndjson",
        text: `${exportLine(1, "2024-05-01T10:00:00Z", "x1")}\n${exportLine(2, "2024-05-01T10:00:02Z", "x2")}\n`,
      },
      {
        name: "watch.ndjson",
        text: `${JSON.stringify({ session_id: "ses_y", event: "process_output", id: "1", data: { text: "y1" }, received_at: "2024-05-01T10:00:01Z" })}\nbroken\n`,
      },
    ]);
    expect(rec.events.map((e) => `${e.sessionId}:${JSON.parse(e.data).text.trim()}`)).toEqual([
      "ses_x:x1",
      "ses_y:y1",
      "ses_x:x2",
    ]);
    expect(rec.sessions).toEqual(["ses_x", "ses_y"]);
    expect(rec.warnings).toEqual(["watch.ndjson: 1 unreadable line skipped"]);
    expect(rec.end - rec.start).toBe(2000);
  });

  it("plays an event found in two files once, and gives untimed lines a time", () => {
    const line = (id: string, at?: string) =>
      JSON.stringify({
        session_id: "ses_a",
        event: "process_output",
        id,
        data: { text: id },
        ...(at ? { received_at: at } : {}),
      });
    const rec = buildRecording([
      { name: "a", text: `${line("1", "2024-05-01T10:00:00Z")}\n${line("2")}\n` },
      { name: "b", text: `${line("1", "2024-05-01T10:00:00Z")}\n` },
    ]);
    expect(rec.events.map((e) => e.id)).toEqual(["1", "2"]);
    expect(rec.events[1]?.at).toBe(Date.UTC(2024, 4, 1, 10));
    expect(rec.warnings).toEqual(["1 event found twice (same session, id and data), played once"]);
  });

  it("plays every event of a service that used its ids again, and only true repeats once", () => {
    const line = (id: string, text: string, at: string) =>
      JSON.stringify({
        session_id: "ses_a",
        event: "process_output",
        id,
        data: { text },
        received_at: `2024-05-01T10:00:0${at}Z`,
      });
    const before = `${line("1", "old 1", "0")}\n${line("2", "old 2", "1")}\n`;
    const after = `${line("1", "new 1", "2")}\n${line("2", "new 2", "3")}\n`;
    const rec = buildRecording([
      { name: "journal", text: before + after },
      // An export of the same pane holds the events after the restart again.
      { name: "watch.ndjson", text: after },
    ]);
    expect(rec.events.map((e) => `${e.id} ${JSON.parse(e.data).text}`)).toEqual([
      "1 old 1",
      "2 old 2",
      "1 new 1",
      "2 new 2",
    ]);
    expect(rec.warnings).toEqual(["2 events found twice (same session, id and data), played once"]);
  });
});
