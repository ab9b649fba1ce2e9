import { afterEach, describe, expect, it, vi } from "vitest";
import { NetworkError } from "../../src/client/errors.js";
import type { SessionEvent } from "../../src/protocol/events.js";
import { selectConnectionSummary } from "../../src/store/streams/connectionSummary.js";
import {
  createStreamsStore,
  currentRate,
  nextAttention,
  type StreamsStore,
} from "../../src/store/streams/streamsStore.js";
import { PROMPT_ENTRY_MAX_CHARS } from "../../src/store/streams/timeline.js";

const ESC = "\x1b";

const prompt = (content: string, id: string | null = null): SessionEvent => ({
  kind: "prompt_progress",
  id,
  data: { type: "text", content },
});
const output = (text: string, id: string | null = null): SessionEvent => ({
  kind: "process_output",
  id,
  data: { text, stream: "stdout" },
});
const stateChanged = (state: string, previous_state: string): SessionEvent => ({
  kind: "state_changed",
  id: null,
  data: { state, previous_state },
});
const heartbeat: SessionEvent = {
  kind: "heartbeat",
  id: null,
  data: { timestamp: "2025-01-01T00:00:00Z" },
};

let store: StreamsStore | null = null;
afterEach(() => {
  store?.getState().dispose();
  store = null;
});

function make(opts: Parameters<typeof createStreamsStore>[0] = {}): StreamsStore {
  store = createStreamsStore({ flushMs: 1_000_000, ...opts });
  return store;
}

function texts(s: StreamsStore, id: string): string[] {
  return s
    .getState()
    .sessions[id]!.timeline.toArray()
    .map((e) => e.text);
}

describe("batching", () => {
  it("applies a burst of 1000 events across sessions with one store notification", () => {
    const s = make();
    for (const id of ["ses_a", "ses_b", "ses_c"]) s.getState().ensure(id);
    let notifications = 0;
    const unsubscribe = s.subscribe(() => {
      notifications++;
    });
    for (let i = 0; i < 1000; i++) {
      s.getState().pushEvent(["ses_a", "ses_b", "ses_c"][i % 3]!, output(`line ${i}`));
    }
    expect(notifications).toBe(0);
    s.getState().flushNow();
    expect(notifications).toBe(1);
    expect(s.getState().sessions.ses_a!.timeline.size).toBe(334);
    expect(s.getState().sessions.ses_b!.totalEvents).toBe(333);
    s.getState().flushNow();
    expect(notifications).toBe(1);
    unsubscribe();
  });

  it("flushes on its own timer, once per frame", async () => {
    const s = make({ flushMs: 5 });
    s.getState().ensure("ses_a");
    let notifications = 0;
    s.subscribe(() => {
      notifications++;
    });
    for (let i = 0; i < 1000; i++) s.getState().pushEvent("ses_a", output(`x${i}`));
    await vi.waitFor(() => expect(notifications).toBe(1), { timeout: 2000, interval: 2 });
    expect(s.getState().sessions.ses_a!.timeline.size).toBe(1000);
  });
});

describe("ring buffer bound", () => {
  it("keeps only the newest entries up to the capacity", () => {
    const s = make({ capacity: 10 });
    s.getState().ensure("ses_a");
    for (let i = 0; i < 25; i++) s.getState().pushEvent("ses_a", output(`line ${i}`));
    s.getState().flushNow();
    const tl = s.getState().sessions.ses_a!.timeline;
    expect(tl.size).toBe(10);
    expect(tl.dropped).toBe(15);
    expect(tl.get(0)!.text).toBe("line 15");
    expect(tl.last()!.text).toBe("line 24");
  });

  it("cuts one oversized event with a visible marker", () => {
    const s = make({ maxEntryChars: 100 });
    s.getState().ensure("ses_a");
    s.getState().pushEvent("ses_a", output("y".repeat(1000)));
    s.getState().flushNow();
    const text = s.getState().sessions.ses_a!.timeline.last()!.text;
    expect(text.startsWith("y".repeat(100))).toBe(true);
    expect(text).toContain("[cut: 900 more characters]");
  });
});

describe("prompt text joining", () => {
  it("joins consecutive fragments into flowing lines", () => {
    const s = make();
    s.getState().ensure("ses_a");
    for (const f of ["Read", "ing the ", "failing test.\nThe", " fix is ", "small.\n"]) {
      s.getState().pushEvent("ses_a", prompt(f));
    }
    s.getState().pushEvent("ses_a", prompt("Next"));
    s.getState().flushNow();
    expect(texts(s, "ses_a")).toEqual(["Reading the failing test.", "The fix is small.", "Next"]);
  });

  it("keeps a blank line between paragraphs and starts afresh after other entries", () => {
    const s = make();
    s.getState().ensure("ses_a");
    s.getState().pushEvent("ses_a", prompt("One.\n"));
    s.getState().pushEvent("ses_a", prompt("\nTwo"));
    s.getState().pushEvent("ses_a", output("npm test"));
    s.getState().pushEvent("ses_a", prompt(" three"));
    s.getState().flushNow();
    const entries = s.getState().sessions.ses_a!.timeline.toArray();
    expect(entries.map((e) => [e.kind, e.text])).toEqual([
      ["prompt", "One."],
      ["prompt", ""],
      ["prompt", "Two"],
      ["output", "npm test"],
      ["prompt", " three"],
    ]);
  });

  it("joins across flushes and bounds one entry's length", () => {
    const s = make();
    s.getState().ensure("ses_a");
    s.getState().pushEvent("ses_a", prompt("a".repeat(PROMPT_ENTRY_MAX_CHARS - 10)));
    s.getState().flushNow();
    s.getState().pushEvent("ses_a", prompt("b".repeat(30)));
    s.getState().flushNow();
    const t = texts(s, "ses_a");
    expect(t).toHaveLength(2);
    expect(t[0]).toBe("a".repeat(PROMPT_ENTRY_MAX_CHARS - 10) + "b".repeat(10));
    expect(t[1]).toBe("b".repeat(20));
  });
});

describe("sanitizing at the store boundary", () => {
  it("removes escape sequences everywhere and keeps SGR colours only in process output", () => {
    const s = make();
    s.getState().ensure("ses_a");
    const hostile = `${ESC}[31mred${ESC}[0m${ESC}]52;c;ZXZpbA==\x07${ESC}]0;title\x07${ESC}[2J${ESC}[H done`;
    s.getState().pushEvent("ses_a", output(hostile));
    s.getState().pushEvent("ses_a", prompt(hostile));
    s.getState().pushEvent("ses_a", {
      kind: "file_changed",
      id: null,
      data: { path: `src/${ESC}[2Ja.ts`, action: "created\x07" },
    });
    s.getState().pushEvent("ses_a", {
      kind: "malformed",
      id: null,
      event: "process_output",
      raw: `{${ESC}]52;c;AAAA`,
      error: "data is not JSON",
    });
    s.getState().pushEvent("ses_a", { kind: "unknown", id: null, event: `x${ESC}[2J`, data: {} });
    s.getState().flushNow();
    const [out, pr, file, bad, unknown] = s.getState().sessions.ses_a!.timeline.toArray();
    expect(out!.text).toBe(`${ESC}[31mred${ESC}[0m done`);
    expect(pr!.text).toBe("red done");
    expect(file).toMatchObject({ kind: "file", path: "src/a.ts", action: "created" });
    expect(bad!.text).toBe("data is not JSON: {");
    expect(unknown!.event).toBe("x");
    // The original payload is kept for export.
    expect((out!.raw as { text: string }).text).toBe(hostile);
  });
});

describe("slices", () => {
  it("replaces only the changed session's object", () => {
    const s = make();
    s.getState().ensure("ses_a");
    s.getState().ensure("ses_b");
    const before = s.getState().sessions;
    s.getState().pushEvent("ses_a", output("hello"));
    s.getState().flushNow();
    const after = s.getState().sessions;
    expect(after).not.toBe(before);
    expect(after.ses_a).not.toBe(before.ses_a);
    expect(after.ses_a!.version).toBe(before.ses_a!.version + 1);
    expect(after.ses_b).toBe(before.ses_b);
  });

  it("keeps heartbeats out of the timeline but records liveness", () => {
    let t = 1_000_000;
    const s = make({ now: () => t });
    s.getState().ensure("ses_a");
    s.getState().pushEvent("ses_a", heartbeat);
    s.getState().pushMeta("ses_a", { heartbeatIntervalMs: 1000, watchdogMs: 3500 });
    s.getState().flushNow();
    const a = s.getState().sessions.ses_a!;
    expect(a.timeline.size).toBe(0);
    expect(a.lastHeartbeatAt).toBe(t);
    expect(a.counts.heartbeat).toBe(1);
    expect(a.totalEvents).toBe(0);
    expect(a.watchdogMs).toBe(3500);
    expect(a.heartbeatIntervalMs).toBe(1000);
    t += 10;
    expect(currentRate(a, t)).toBe(0);
  });

  it("measures the event rate and lets it decay when the session goes quiet", () => {
    let t = 1_000_000;
    const s = make({ now: () => t, rateWindowMs: 2000 });
    s.getState().ensure("ses_a");
    for (let i = 0; i < 100; i++) s.getState().pushEvent("ses_a", output("x"), t);
    s.getState().flushNow();
    const a = s.getState().sessions.ses_a!;
    expect(a.rate).toBe(50);
    t += 5000;
    expect(currentRate(a, t)).toBe(0);
  });

  it("drops what was queued for a removed session", () => {
    const s = make();
    s.getState().ensure("ses_a");
    s.getState().pushEvent("ses_a", output("late"));
    s.getState().remove("ses_a");
    s.getState().flushNow();
    expect(s.getState().sessions.ses_a).toBeUndefined();
    s.getState().pushEvent("ses_a", output("later"));
    s.getState().flushNow();
    expect(s.getState().sessions.ses_a).toBeUndefined();
  });
});

describe("attention", () => {
  it("is raised when the session pauses, cleared by acknowledge or resuming", () => {
    const s = make();
    s.getState().ensure("ses_a");
    s.getState().ensure("ses_b");
    s.getState().pushEvent("ses_a", stateChanged("paused", "active"));
    s.getState().flushNow();
    expect(s.getState().sessions.ses_a!.attention).toMatchObject({ reason: "paused" });
    expect(s.getState().sessions.ses_a!.sessionState).toBe("paused");
    expect(s.getState().attentionVersion).toBe(1);
    expect(nextAttention(s.getState(), null)).toBe("ses_a");
    s.getState().acknowledge("ses_a");
    expect(s.getState().sessions.ses_a!.attention).toBeNull();
    expect(nextAttention(s.getState(), null)).toBeNull();

    s.getState().pushEvent("ses_b", stateChanged("paused", "active"));
    s.getState().flushNow();
    expect(s.getState().attentionVersion).toBe(2);
    s.getState().pushEvent("ses_b", stateChanged("active", "paused"));
    s.getState().flushNow();
    expect(s.getState().sessions.ses_b!.attention).toBeNull();
  });

  it("is raised when the stream stops on an error, not when it is closed", () => {
    const s = make();
    s.getState().ensure("ses_a");
    s.getState().ensure("ses_b");
    s.getState().pushStatus("ses_a", {
      state: "stopped",
      reason: "forbidden",
      error: new NetworkError(`connection refused${ESC}]0;x\x07`),
    });
    s.getState().pushStatus("ses_b", { state: "stopped", reason: "closed", error: null });
    s.getState().flushNow();
    const a = s.getState().sessions.ses_a!;
    expect(a.attention).toMatchObject({ reason: "stopped", message: "connection refused" });
    expect(a.timeline.last()).toMatchObject({
      kind: "notice",
      text: "stream stopped: connection refused",
    });
    expect(s.getState().sessions.ses_b!.attention).toBeNull();
    expect(nextAttention(s.getState(), "ses_a")).toBe("ses_a");
  });
});

describe("connection status", () => {
  it("writes notices for a lost and regained connection and summarises all streams", () => {
    let t = 1_000_000;
    const s = make({ now: () => t });
    s.getState().ensure("ses_a");
    s.getState().ensure("ses_b");
    expect(selectConnectionSummary(s.getState()).state).toBe("connecting");
    s.getState().pushStatus("ses_a", { state: "live", since: t });
    s.getState().pushStatus("ses_b", { state: "live", since: t });
    s.getState().flushNow();
    const summary = selectConnectionSummary(s.getState());
    expect(summary).toMatchObject({ state: "live", live: 2, total: 2 });
    expect(selectConnectionSummary(s.getState())).toBe(summary);

    s.getState().pushStatus("ses_a", {
      state: "reconnecting",
      attempt: 1,
      delayMs: 1000,
      retryAt: t + 1000,
      reason: "connection reset",
    });
    s.getState().pushStatus("ses_a", { state: "connecting", attempt: 1 });
    s.getState().pushStatus("ses_a", {
      state: "reconnecting",
      attempt: 2,
      delayMs: 2000,
      retryAt: t + 2000,
      reason: "connection refused",
    });
    s.getState().flushNow();
    expect(selectConnectionSummary(s.getState())).toMatchObject({
      state: "reconnecting",
      reconnecting: 1,
      nextRetryAt: t + 2000,
    });
    t += 3000;
    s.getState().pushStatus("ses_a", { state: "live", since: t });
    s.getState().flushNow();
    expect(texts(s, "ses_a")).toEqual([
      "connection lost (connection reset); reconnecting",
      "reconnected after 3s",
    ]);
    expect(selectConnectionSummary(s.getState()).state).toBe("live");
  });
});
