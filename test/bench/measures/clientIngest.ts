import { performance } from "node:perf_hooks";
import { createIngest } from "../ingest.js";
import type { Rate } from "./parseCeiling.js";

/**
 * B2: the sessions' backlog (lastId events each) drained through the product's ingest path
 * into the streams store. The clock runs from the first store update that holds events to the
 * one in which every session has its last event, and counts the events in between, so
 * connection set-up and the service's formatting of the replay are not charged to the client.
 */
export async function drainThroughStore(
  url: string,
  key: string,
  ids: readonly string[],
  lastId: number,
  timeoutMs: number,
): Promise<Rate> {
  const ingest = createIngest({ url, key, ids, resumeFrom: "0" });
  try {
    let first: { at: number; events: number } | null = null;
    const done = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`B2: backlog not drained in ${timeoutMs} ms (${ingest.total()} events)`),
          ),
        timeoutMs,
      );
      const unsubscribe = ingest.store.subscribe(() => {
        const now = performance.now();
        if (first === null) {
          const events = ingest.total();
          if (events > 0) first = { at: now, events };
        }
        if (ingest.reached(lastId)) {
          clearTimeout(timer);
          unsubscribe();
          resolve(now);
        }
      });
    });
    for (const id of ids) ingest.controller.openStream(id);
    const end = await done;
    const start = first as { at: number; events: number } | null;
    if (!start) throw new Error("B2: no events");
    const total = ingest.total();
    if (total !== lastId * ids.length) {
      throw new Error(`B2: ${total} events in the store, expected ${lastId * ids.length}`);
    }
    const events = total - start.events;
    const ms = end - start.at;
    return { events, ms, perSecond: (events * 1000) / ms };
  } finally {
    await ingest.close();
  }
}
