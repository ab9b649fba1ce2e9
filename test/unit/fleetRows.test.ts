import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createStore } from "zustand/vanilla";
import type { Session } from "../../src/protocol/resources.js";
import { createAttentionStore } from "../../src/store/attention/attentionStore.js";
import { ActivityTracker } from "../../src/store/fleet/activity.js";
import { createOverlapStore } from "../../src/store/fleet/overlaps.js";
import type { SessionsState } from "../../src/store/sessionsStore.js";
import { createStreamsStore } from "../../src/store/streams/streamsStore.js";
import { throttled } from "../../src/ui/hooks/throttle.js";
import {
  cutEnd,
  cutStart,
  type FleetRow,
  fleetColumns,
  fleetRows,
} from "../../src/ui/model/fleetRows.js";

/** The fleet table's rows as drawn, and the beat they are refreshed on. */

const s = (id: string, fields: Record<string, unknown> = {}) =>
  ({ session_id: id, name: `name of ${id}`, state: "running", ...fields }) as Session;

function rowServices() {
  const activity = new ActivityTracker();
  const sessions = createStore<Pick<SessionsState, "items">>()(() => ({ items: [] }));
  return {
    streams: createStreamsStore(),
    activity,
    attention: createAttentionStore(),
    overlaps: createOverlapStore(
      sessions as unknown as Parameters<typeof createOverlapStore>[0],
      activity,
    ),
  };
}

const prompt = (content: string) => JSON.stringify({ type: "text", content });

describe("fleet rows", () => {
  it("cuts the columns: the start of most, the end of the step (the sentence being written)", () => {
    expect(cutEnd("abc", 6)).toBe("abc   ");
    expect(cutEnd("abcdefgh", 6)).toBe("abcd… ");
    expect(cutStart("abc", 6)).toBe("abc");
    expect(cutStart("now running the tests", 10)).toBe("…he tests");
    const cols = fleetColumns(198);
    expect(cols.step).toBeGreaterThan(0);
    expect(cols.agent).toBeGreaterThan(0);
  });

  it("keeps a row's object while it draws the same, and the array when no row changed", () => {
    const svc = rowServices();
    const shown = [s("ses_a"), s("ses_b")];
    const cols = fleetColumns(198);
    const t = 60_000 * 1000;
    svc.activity.note("ses_a", "prompt_progress", prompt("Reading the config. "), t);
    const first = fleetRows(svc, shown, t, cols, []);
    expect(first.map((r) => r.id)).toEqual(["ses_a", "ses_b"]);
    expect(first[0]?.step).toBe("Reading the config.");

    // More output in the same second: counts grow, nothing drawn changes (the sparkline is
    // scaled to its busiest minute, the activity still says "just now").
    svc.activity.note("ses_a", "process_output", "{}", t + 10);
    svc.activity.note("ses_a", "process_output", "{}", t + 20);
    const same = fleetRows(svc, shown, t + 30, cols, first);
    expect(same).toBe(first);

    // A new step: that row is a new object, the other is the one it was.
    svc.activity.note("ses_a", "prompt_progress", prompt("Now fixing the retry loop"), t + 40);
    const next = fleetRows(svc, shown, t + 50, cols, same);
    expect(next).not.toBe(first);
    expect(next[0]).not.toBe(first[0]);
    expect(next[0]?.step).toBe("Now fixing the retry loop");
    expect(next[1]).toBe(first[1]);
  });

  it("counts an event that came after the clock's last tick, in a minute the tick has not reached", () => {
    const svc = rowServices();
    const shown = [s("ses_a")];
    const cols = fleetColumns(198);
    const minute = 60_000 * 1000;
    // The UI's clock last ticked half a second before the minute; the event came just after it.
    svc.activity.note(
      "ses_a",
      "prompt_progress",
      prompt("Now fixing the retry loop"),
      minute + 200,
    );
    const [row] = fleetRows(svc, shown, minute - 500, cols, []);
    expect(row?.spark.trim()).toBe("·········█");
  });

  it("shows the newest words of a step longer than its column", () => {
    const svc = rowServices();
    const cols = fleetColumns(198);
    const long = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    svc.activity.note("ses_a", "prompt_progress", prompt(long), 1);
    const [row] = fleetRows(svc, [s("ses_a")], 2, cols, []) as FleetRow[];
    expect(row?.step.startsWith("…")).toBe(true);
    expect(row?.step.endsWith("word39")).toBe(true);
    expect(row?.step.length).toBe(cols.step - 1);
  });
});

describe("throttled beat", () => {
  beforeEach(() => {
    // setImmediate stays real: a beat is told on the immediate after its timer.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Time passes by `ms`; the immediates its timers queued run too. */
  async function pass(ms: number): Promise<void> {
    vi.advanceTimersByTime(ms);
    await new Promise((resolve) => setImmediate(resolve));
  }

  function source() {
    const fns = new Set<() => void>();
    return {
      subscribe: (fn: () => void) => {
        fns.add(fn);
        return () => fns.delete(fn);
      },
      change: () => {
        for (const fn of fns) fn();
      },
      subscribers: () => fns.size,
    };
  }

  it("tells the first change at once, then at most once a beat, on a steady beat", async () => {
    const src = source();
    const beat = throttled(src.subscribe, 100);
    let told = 0;
    let alsoTold = 0;
    const off = beat.subscribe(() => told++);
    const off2 = beat.subscribe(() => alsoTold++);
    expect(src.subscribers()).toBe(1);
    src.change();
    expect(told).toBe(1);
    // A change every 16 ms for a second: ten beats, every listener told on each.
    for (let i = 0; i < 62; i++) {
      await pass(16);
      src.change();
    }
    await pass(100);
    expect(told).toBe(11);
    expect(alsoTold).toBe(told);
    off();
    off2();
    expect(src.subscribers()).toBe(0);
  });

  it("tells a beat after the input that came meanwhile: a key read then is handled first", async () => {
    const src = source();
    const beat = throttled(src.subscribe, 100);
    const order: string[] = [];
    beat.subscribe(() => order.push("beat"));
    src.change();
    src.change();
    await pass(99);
    expect(order).toEqual(["beat"]);
    // The beat's timer and a key's input are both due: the key (I/O, here an immediate
    // queued first) is handled before the beat's listeners are told.
    setImmediate(() => order.push("key"));
    await pass(1);
    expect(order).toEqual(["beat", "key", "beat"]);
    src.change();
    await pass(100);
    expect(order).toEqual(["beat", "key", "beat", "beat"]);
    // The beat's timer fired, then a key drew and read the store: the beat is not told.
    src.change();
    await pass(99);
    vi.advanceTimersByTime(1);
    beat.caughtUp();
    await pass(1000);
    expect(order).toEqual(["beat", "key", "beat", "beat"]);
  });

  it("counts a read of the store in between (a key, the clock) as a beat", async () => {
    const src = source();
    const beat = throttled(src.subscribe, 100);
    let told = 0;
    beat.subscribe(() => told++);
    src.change();
    expect(told).toBe(1);
    await pass(70);
    src.change();
    // The view drew for a key and read the store: the change is shown, no beat for it.
    beat.caughtUp();
    await pass(50);
    expect(told).toBe(1);
    // The next change waits a whole beat from that read (at 70: told at 170, not 100).
    src.change();
    await pass(40);
    expect(told).toBe(1);
    await pass(10);
    expect(told).toBe(2);
  });
});
