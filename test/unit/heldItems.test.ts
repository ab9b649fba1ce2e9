import { afterEach, describe, expect, it, vi } from "vitest";
import { logSequence } from "../../src/store/history/historyOverlap.js";
import { HeldItems } from "../../src/store/streams/heldItems.js";
import { StreamAdmission } from "../../src/store/streams/streamAdmission.js";
import { createStreamsStore } from "../../src/store/streams/streamsStore.js";

/**
 * What a pane's stream sent while the history was read, joined with a history answered late:
 * the held items wait (a few seconds at most) for the stream to send what the history holds
 * after them, then the repeats go and the rest is shown, each line once.
 */

const out = (text: string) => ({ event: "process_output", data: JSON.stringify({ text }) });

function held(...texts: string[]): HeldItems {
  const h = new HeldItems();
  for (const t of texts) push(h, t);
  return h;
}

function push(h: HeldItems, text: string): void {
  const { event, data } = out(text);
  h.push({ kind: "item", event, data, id: undefined, at: 0 });
}

/** What the held items leave in a pane once drained, as its lines. */
function shown(h: HeldItems): string[] {
  const store = createStreamsStore();
  store.getState().ensure("s");
  h.drainInto(new StreamAdmission({ store }, "s", () => null));
  store.getState().flushNow();
  const lines = store.getState().sessions.s?.timeline.toArray() ?? [];
  store.getState().dispose();
  return lines.map((e) => e.text);
}

/** Whether the promise has settled by the time queued callbacks have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => {
    done = true;
  });
  await new Promise((r) => setImmediate(r));
  return done;
}

const history = logSequence(["a", "b", "c", "d", "e"].map(out));

afterEach(() => {
  vi.useRealTimers();
});

describe("HeldItems.settle", () => {
  it("waits for the stream to send what the history holds after the held items, then drops them all", async () => {
    const h = held("b", "c");
    const skipped = h.settle(history, undefined);
    expect(await settled(skipped)).toBe(false);
    push(h, "d");
    expect(await settled(skipped)).toBe(false);
    push(h, "e");
    expect(await skipped).toBe(4);
    push(h, "f");
    expect(shown(h)).toEqual(["f"]);
  });

  it("the stream sends something else first: nothing is dropped, the held lines are shown", async () => {
    const h = held("b");
    const skipped = h.settle(history, undefined);
    push(h, "x");
    expect(await skipped).toBe(0);
    expect(shown(h)).toEqual(["b", "x"]);
  });

  it("the stream stops: no more waiting, the held lines are shown", async () => {
    const h = held("b", "c");
    const skipped = h.settle(history, undefined);
    h.stop();
    expect(await skipped).toBe(0);
    expect(shown(h)).toEqual(["b", "c"]);
  });

  it("nothing comes: the wait ends after 3 s and the held lines are shown", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const h = held("b", "c");
    const skipped = h.settle(history, undefined);
    await vi.advanceTimersByTimeAsync(2_999);
    expect(await settled(skipped)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await skipped).toBe(0);
    expect(shown(h)).toEqual(["b", "c"]);
  });

  it("held items at the history's end are dropped at once", async () => {
    const h = held("d", "e", "f");
    expect(await settled(h.settle(history, undefined))).toBe(true);
    expect(shown(h)).toEqual(["f"]);
  });
});
