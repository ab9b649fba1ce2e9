import { describe, expect, it } from "vitest";
import type { Session } from "../../src/protocol/resources.js";
import { ActivityTracker } from "../../src/store/fleet/activity.js";
import { FleetStreams } from "../../src/store/fleet/fleetStreams.js";
import {
  findOverlaps,
  overlapLines,
  overlapSummary,
  repoOf,
} from "../../src/store/fleet/overlaps.js";
import { MergedTimeline } from "../../src/store/streams/mergedTimeline.js";
import { StreamLeases } from "../../src/store/streams/streamLeases.js";
import { createStreamsStore } from "../../src/store/streams/streamsStore.js";
import { sparkline } from "../../src/text/format.js";

/** The fleet's React-free parts: activity, overlaps, stream leases and caps, merged timeline. */

const s = (id: string, fields: Record<string, unknown> = {}) =>
  ({ session_id: id, ...fields }) as Session;

describe("activity", () => {
  it("before any prompt text, the current step is the newest output line, read like panes read it", () => {
    const a = new ActivityTracker();
    a.note("ses_a", "process_output", '{"pid":4}', 1);
    expect(a.currentStep("ses_a")).toBeNull();
    a.note("ses_a", "process_output", '{"content":"\\u001b[32m✓\\u001b[0m test 3 passed\\n"}', 2);
    expect(a.currentStep("ses_a")).toBe("✓ test 3 passed");
    a.note("ses_a", "process_output", '{"stream":"stderr","data":"warn one\\nwarn two"}', 3);
    expect(a.currentStep("ses_a")).toBe("warn two");
    a.note("ses_a", "process_output", '{"exit":0}', 4);
    expect(a.currentStep("ses_a")).toBe("warn two");
    a.note("ses_a", "prompt_progress", '{"type":"text","content":"Running the tests."}', 5);
    expect(a.currentStep("ses_a")).toBe("Running the tests.");
  });

  it("a tool between two of the agent's messages ends the first: the step is not glued to it", () => {
    const a = new ActivityTracker();
    const say = (content: string) =>
      a.note("ses_a", "prompt_progress", JSON.stringify({ type: "text", content }), 1);
    say("Reading the record of ses_doc044");
    a.note("ses_a", "process_output", '{"text":"ok\\n"}', 2);
    say("Working on step 152");
    expect(a.currentStep("ses_a")).toBe("Working on step 152");
    // A tool call in the prompt stream itself ends the message before it, and is no step.
    const tool = () =>
      a.note("ses_a", "prompt_progress", '{"type":"tool_use","content":"read_file x.ts"}', 3);
    tool();
    say("Checking the config");
    tool();
    expect(a.currentStep("ses_a")).toBe("Checking the config");
    say("Found it");
    expect(a.currentStep("ses_a")).toBe("Found it");
  });

  it("counts events per minute over ten minutes (heartbeats are not activity)", () => {
    const a = new ActivityTracker();
    const t0 = 10 * 60_000 * 100;
    a.note("ses_a", "process_output", "{}", t0);
    a.note("ses_a", "process_output", "{}", t0 + 1);
    a.note("ses_a", "heartbeat", "{}", t0 + 2);
    a.note("ses_a", "prompt_progress", '{"type":"text","content":"x"}', t0 + 3 * 60_000);
    expect(a.perMinute("ses_a", t0 + 3 * 60_000)).toEqual([0, 0, 0, 0, 0, 0, 2, 0, 0, 1]);
    // Eleven minutes on, the first minute has left the window.
    expect(a.perMinute("ses_a", t0 + 11 * 60_000)).toEqual([0, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(a.lastEventAt("ses_a")).toBe(t0 + 3 * 60_000);
    expect(a.perMinute("ses_none", t0)).toBeNull();
    expect(sparkline([0, 1, 2, 8])).toBe("·▁▂█");
  });

  it("the current step is the sentence being written, from the newest prompt fragments", () => {
    const a = new ActivityTracker();
    const say = (content: string) =>
      a.note("ses_a", "prompt_progress", JSON.stringify({ type: "text", content }), 1);
    say("Reading the failing test. ");
    say("The handler returns 500 when the id ");
    say("is \u001b[31munknown");
    expect(a.currentStep("ses_a")).toBe("The handler returns 500 when the id is unknown");
    say(".\nNext: ");
    say("fix it");
    // A step this short has just begun: the line before it is not part of it (new line).
    expect(a.currentStep("ses_a")).toBe("Next: fix it");
  });

  it("keeps the paths a session changed (parsed, sanitized) and says when they change", () => {
    const a = new ActivityTracker();
    let told = 0;
    a.subscribe(() => told++);
    a.note("ses_a", "file_changed", '{"path":"src/x.ts","action":"modified"}', 5);
    a.note("ses_a", "file_changed", '{"path":"src/\\u001b]0;t\\u0007y.ts","action":"created"}', 6);
    a.note("ses_a", "file_changed", "not json", 7);
    expect([...(a.files("ses_a")?.keys() ?? [])]).toEqual(["src/x.ts", "src/y.ts"]);
    expect(told).toBe(2);
  });
});

describe("overlaps", () => {
  it("two sessions on one repository that changed the same path: both are told, with the path", () => {
    const files: Record<string, string[]> = {
      ses_a: ["src/x.ts", "README.md"],
      ses_b: ["src/x.ts"],
      ses_c: ["src/x.ts"],
      ses_d: ["README.md"],
    };
    const filesOf = (id: string) => new Map((files[id] ?? []).map((p) => [p, null]));
    const sessions = [
      s("ses_a", { repo: "demo/app" }),
      s("ses_b", { repository: "Demo/App.git" }),
      // Same path, other repository: no overlap.
      s("ses_c", { repo: "demo/docs" }),
      s("ses_d", { repo: "demo/app/" }),
    ];
    const m = findOverlaps(sessions, filesOf);
    expect(m.get("ses_a")).toEqual([
      { path: "README.md", others: ["ses_d"] },
      { path: "src/x.ts", others: ["ses_b"] },
    ]);
    expect(m.get("ses_b")).toEqual([{ path: "src/x.ts", others: ["ses_a"] }]);
    expect(m.has("ses_c")).toBe(false);
    expect(overlapSummary(m.get("ses_b"))).toBe("also changed by ses_a (src/x.ts)");
    expect(overlapSummary(m.get("ses_a"))).toBe("also changed by ses_d, ses_b (2 files)");
    expect(overlapLines(m.get("ses_a"))).toEqual([
      "README.md — also changed by ses_d",
      "src/x.ts — also changed by ses_b",
    ]);
    // The documented record has no repository field: nothing to compare.
    expect(repoOf(s("ses_z", { name: "x" }))).toBeNull();
  });
});

describe("stream leases and the fleet's cap", () => {
  function opener() {
    const calls: string[] = [];
    return {
      calls,
      openStream: (id: string) => calls.push(`open ${id}`),
      closeStream: (id: string) => calls.push(`close ${id}`),
    };
  }

  it("a stream held by a pane and the fleet closes with its last holder", () => {
    const o = opener();
    const leases = new StreamLeases(o);
    leases.openStream("ses_a");
    leases.lease("ses_a", "fleet");
    leases.closeStream("ses_a");
    expect(o.calls).toEqual(["open ses_a"]);
    leases.release("ses_a", "fleet");
    expect(o.calls).toEqual(["open ses_a", "close ses_a"]);
  });

  it("the fleet's rows open live only; a pane opened on one asks for its past then", () => {
    const calls: string[] = [];
    const leases = new StreamLeases({
      openStream: (id: string, o?: { past?: boolean }) =>
        calls.push(`${o?.past === false ? "live" : "with past"} ${id}`),
      closeStream: (id: string) => calls.push(`close ${id}`),
    });
    const fleet = new FleetStreams({ leases, cap: 10 });
    fleet.show(["ses_a", "ses_b"]);
    expect(calls).toEqual(["live ses_a", "live ses_b"]);
    leases.openStream("ses_a");
    leases.openStream("ses_a");
    expect(calls).toEqual(["live ses_a", "live ses_b", "with past ses_a"]);
    // A pane first, then the fleet: the pane's stream (with its past) serves the row as is.
    leases.openStream("ses_c");
    fleet.show(["ses_a", "ses_b", "ses_c"]);
    expect(calls.slice(3)).toEqual(["with past ses_c"]);
  });

  it("keeps streams for the rows in view up to the cap, letting go of the longest out of view", () => {
    const o = opener();
    const fleet = new FleetStreams({ leases: new StreamLeases(o), cap: 3 });
    fleet.show(["ses_1", "ses_2", "ses_3", "ses_4"]);
    expect(fleet.openIds).toEqual(["ses_1", "ses_2", "ses_3"]);
    fleet.show(["ses_3", "ses_4", "ses_5"]);
    // ses_1 and ses_2 went out of view together; both go to make room.
    expect(fleet.openIds.sort()).toEqual(["ses_3", "ses_4", "ses_5"]);
    expect(o.calls.filter((c) => c.startsWith("close"))).toEqual(["close ses_1", "close ses_2"]);
    fleet.releaseAll();
    expect(fleet.openIds).toEqual([]);
    expect(o.calls.filter((c) => c.startsWith("open"))).toHaveLength(5);
  });

  it("a session no longer listed (gone, or hidden as destroyed) lets its stream go at once", () => {
    const o = opener();
    const fleet = new FleetStreams({ leases: new StreamLeases(o), cap: 10 });
    fleet.show(["ses_1", "ses_2"], new Set(["ses_1", "ses_2", "ses_3"]));
    fleet.show(["ses_3"], new Set(["ses_1", "ses_2", "ses_3"]));
    // Scrolled out of view, still listed: under the cap, the streams stay.
    expect(fleet.openIds.sort()).toEqual(["ses_1", "ses_2", "ses_3"]);
    fleet.show(["ses_3"], new Set(["ses_1", "ses_3"]));
    expect(fleet.openIds.sort()).toEqual(["ses_1", "ses_3"]);
    expect(o.calls.filter((c) => c.startsWith("close"))).toEqual(["close ses_2"]);
    fleet.releaseAll();
  });

  it("leaving the fleet lets its streams go only after the grace period", () => {
    const o = opener();
    let fire: (() => void) | null = null;
    const fleet = new FleetStreams({
      leases: new StreamLeases(o),
      cap: 5,
      setTimer: (fn) => {
        fire = fn;
        return 1;
      },
      clearTimer: () => {
        fire = null;
      },
    });
    fleet.show(["ses_1", "ses_2"]);
    fleet.hide();
    expect(fleet.openIds).toHaveLength(2);
    // Back in time: nothing is closed.
    fleet.show(["ses_1", "ses_2"]);
    expect(fire).toBeNull();
    fleet.hide();
    (fire as unknown as () => void)();
    expect(fleet.openIds).toEqual([]);
  });
});

describe("merged timeline", () => {
  it("interleaves the sessions' entries by time, each tagged, and follows a prompt line that grows", () => {
    const streams = createStreamsStore({ flushMs: 1000 });
    const st = streams.getState();
    st.ensure("ses_a", { state: "live", since: 0 });
    st.ensure("ses_b", { state: "live", since: 0 });
    const m = new MergedTimeline(streams);
    const detach = m.attach();
    st.pushItem("ses_a", "process_output", '{"stream":"stdout","text":"a1\\n"}', "1", 100);
    st.pushItem("ses_b", "process_output", '{"stream":"stdout","text":"b1\\n"}', "1", 50);
    st.pushItem("ses_a", "prompt_progress", '{"type":"text","content":"thinking "}', "2", 200);
    st.flushNow();
    expect(m.toArray().map((e) => [e.sessionId, e.text])).toEqual([
      ["ses_b", "b1"],
      ["ses_a", "a1"],
      ["ses_a", "thinking "],
    ]);
    expect(m.toArray().map((e) => e.seq)).toEqual([1, 2, 3]);
    const v = m.version;
    st.pushEvent("ses_a", {
      kind: "prompt_progress",
      id: "3",
      data: { type: "text", content: "about it" },
    });
    st.pushItem("ses_b", "file_changed", '{"path":"x.ts","action":"created"}', "2", 300);
    st.flushNow();
    expect(m.version).toBeGreaterThan(v);
    expect(m.toArray().map((e) => [e.sessionId, e.text])).toEqual([
      ["ses_b", "b1"],
      ["ses_a", "a1"],
      ["ses_a", "thinking about it"],
      ["ses_b", "created x.ts"],
    ]);
    expect(m.sessions).toEqual(["ses_b", "ses_a"]);
    detach();
    st.pushItem("ses_a", "process_output", '{"stream":"stdout","text":"a2\\n"}', "4", 400);
    st.flushNow();
    // Detached: it no longer follows (it catches up when shown again).
    expect(m.size).toBe(4);
    m.attach();
    expect(m.size).toBe(5);
  });
});
