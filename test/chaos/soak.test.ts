import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { StreamsController } from "../../src/store/streams/streamsController.js";
import { createStreamsStore } from "../../src/store/streams/streamsStore.js";

/**
 * Soak, short form: one stream through the product's ingest path (controller → subscription
 * → store) forced to reconnect after every event, 200 times after a warm-up. A leak per
 * reconnect (a listener, a timer, a socket, a buffer) shows up as a warning, a growing handle
 * count or a growing heap.
 */

const WARM_UP = 50;
const RECONNECTS = 200;
const CAPACITY = 100;

// The workers of the test runner have no --expose-gc; V8 can still be asked for it at run time.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function handleCounts(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of process.getActiveResourcesInfo()) out[k] = (out[k] ?? 0) + 1;
  return out;
}

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

async function waitFor(cond: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("soak", () => {
  it("200 forced reconnects: no listener-leak warning, heap and handles flat", async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    cleanups.push(() => {
      process.off("warning", onWarning);
    });

    const total = WARM_UP + RECONNECTS + 1;
    const ref: ReferenceServer = await startServer({
      seed: 99,
      paceMs: 0,
      heartbeatMs: 60_000,
      sessionCount: 1,
      // A generous limit the service announces: the client's request budget learns it (without
      // the headers it would pace every reconnect at the documented 100 a minute).
      rateLimit: { limit: 1_000_000, windowMs: 60_000 },
      // Every connection carries one event and ends: the client resumes with Last-Event-ID.
      faults: { dropAfter: 1 },
    });
    cleanups.push(() => ref.close());
    const session = ref.sessionIds()[0] as string;
    const emitted: string[] = [];
    for (let i = 1; i <= total; i++) {
      emitted.push(ref.emit(session, "process_output", { stream: "stdout", text: `line ${i}\n` }));
    }

    const agent = new Agent({ keepAliveTimeout: 1000 });
    cleanups.push(() => agent.destroy());
    const store = createStreamsStore({ capacity: CAPACITY, flushMs: 5 });
    cleanups.push(() => store.getState().dispose());
    const controller = new StreamsController({
      config: { baseUrl: ref.url, apiKey: ref.key("owner"), dispatcher: agent },
      store,
      subscribeOptions: { backoffBaseMs: 1, maxDelayMs: 5 },
    });
    cleanups.push(() => controller.closeAll());
    // Resume from the very start: each connection replays the rest, of which it sends one.
    store.getState().ensure(session);
    store.getState().pushMeta(session, { lastEventId: "0" });
    store.getState().flushNow();
    // Every event the store takes in, in order: the scrollback keeps only the last CAPACITY
    // entries (events and connection notices), so the new ones (by sequence number) are read
    // at each flush; a flush that evicted one unread would show as a missing id below.
    const received: string[] = [];
    let lastSeq = -1;
    const unsubscribe = store.subscribe((st) => {
      const tl = st.sessions[session]?.timeline;
      if (!tl) return;
      let from = tl.size;
      while (from > 0 && (tl.get(from - 1)?.seq ?? -1) > lastSeq) from--;
      for (let i = from; i < tl.size; i++) {
        const e = tl.get(i);
        if (!e) continue;
        lastSeq = e.seq;
        if (e.kind !== "notice" && e.id !== null) received.push(e.id);
      }
    });
    cleanups.push(unsubscribe);
    controller.openStream(session);
    const sub = () => controller.subscription(session);
    const reconnects = () => sub()?.stats.reconnects ?? 0;

    await waitFor(() => reconnects() >= WARM_UP, "the warm-up reconnects");
    const handlesBefore = handleCounts();
    const heapBefore = heapAfterGc();

    await waitFor(() => sub()?.lastEventId === String(total), "the last event", 30_000);
    expect(reconnects()).toBeGreaterThanOrEqual(WARM_UP + RECONNECTS);
    store.getState().flushNow();
    // Still the one live stream, every event in order, the scrollback within its bound.
    const slice = store.getState().sessions[session];
    expect(slice?.totalEvents).toBe(total);
    expect(received).toEqual(emitted);
    expect(slice?.timeline.size).toBeLessThanOrEqual(CAPACITY);
    expect(ref.connections()).toBeLessThanOrEqual(1);

    const heapAfter = heapAfterGc();
    const handlesAfter = handleCounts();
    expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
    // One connection at a time: at most the same sockets and timers as after the warm-up
    // (one may be mid-reconnect when either is counted).
    for (const kind of ["TCPSocketWrap", "Timeout"]) {
      expect(handlesAfter[kind] ?? 0, kind).toBeLessThanOrEqual((handlesBefore[kind] ?? 0) + 1);
    }
    // 200 reconnects leaking even 5 KB each would be 1 MB.
    expect(heapAfter - heapBefore).toBeLessThan(1024 * 1024);
  }, 40_000);
});
