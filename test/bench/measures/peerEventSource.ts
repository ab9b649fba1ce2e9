import { performance } from "node:perf_hooks";
import { EventSource } from "eventsource";
import type { Rate } from "./parseCeiling.js";

const EVENT_NAMES = ["prompt_progress", "process_output", "file_changed", "state_changed"];

/**
 * B3: the same backlog through the `eventsource` package (WHATWG EventSource), the key sent
 * by its custom fetch, every event handed to a no-op. Timed like B2: from the first event to
 * the last one of the last session.
 */
export async function drainThroughEventSource(
  url: string,
  key: string,
  ids: readonly string[],
  lastId: number,
  timeoutMs: number,
): Promise<Rate> {
  const sources: EventSource[] = [];
  let events = 0;
  let firstAt: number | null = null;
  let finished = 0;
  const want = String(lastId);
  try {
    const end = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`B3: backlog not drained in ${timeoutMs} ms (${events} events)`)),
        timeoutMs,
      );
      for (const id of ids) {
        const es = new EventSource(`${url}/api/cloud/sessions/${id}/events`, {
          fetch: (input, init) => {
            const headers: Record<string, string> = {
              ...(init?.headers as Record<string, string> | undefined),
              authorization: `Bearer ${key}`,
            };
            const resuming = Object.keys(headers).some((h) => h.toLowerCase() === "last-event-id");
            if (!resuming) headers["last-event-id"] = "0";
            return fetch(input, { ...init, headers });
          },
        });
        sources.push(es);
        let done = false;
        const onEvent = (ev: MessageEvent) => {
          if (firstAt === null) firstAt = performance.now();
          events++;
          noop(ev.data);
          if (!done && ev.lastEventId === want) {
            done = true;
            if (++finished === ids.length) {
              clearTimeout(timer);
              resolve(performance.now());
            }
          }
        };
        for (const name of EVENT_NAMES) es.addEventListener(name, onEvent);
        es.addEventListener("error", () => {
          if (es.readyState === EventSource.CLOSED) reject(new Error("B3: EventSource closed"));
        });
      }
    });
    if (events !== lastId * ids.length) {
      throw new Error(`B3: ${events} events, expected ${lastId * ids.length}`);
    }
    const ms = end - (firstAt ?? end);
    // The first event started the clock, so it is not counted in the rate.
    return { events: events - 1, ms, perSecond: ((events - 1) * 1000) / ms };
  } finally {
    for (const es of sources) es.close();
  }
}

let sink: unknown;
function noop(x: unknown): void {
  sink = x;
}
export function keepSink(): unknown {
  return sink;
}
