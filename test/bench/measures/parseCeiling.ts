import { request } from "node:http";
import { performance } from "node:perf_hooks";
import { createParser } from "eventsource-parser";

/** The raw bytes of one session's stream, in the chunks they arrived in. */
export type Capture = Buffer[];

/**
 * Reads a session's stream from the start of the service's history (Last-Event-ID: 0) up to
 * and including event `lastId`, keeping the bytes exactly as received.
 */
export function captureStream(
  url: string,
  key: string,
  sessionId: string,
  lastId: number,
): Promise<Capture> {
  const marker = `id: ${lastId}\n`;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let tail = "";
    let seen = false;
    const req = request(
      `${url}/api/cloud/sessions/${sessionId}/events`,
      {
        headers: {
          authorization: `Bearer ${key}`,
          accept: "text/event-stream",
          "last-event-id": "0",
        },
      },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`capture: HTTP ${res.statusCode}`));
          res.destroy();
          return;
        }
        res.on("data", (b: Buffer) => {
          chunks.push(b);
          tail = (tail + b.toString("latin1")).slice(-4096);
          const at = tail.lastIndexOf(marker);
          if (at !== -1) seen = true;
          // Done once the blank line that ends the last event is in.
          if (seen && tail.indexOf("\n\n", at === -1 ? 0 : at) !== -1) {
            res.destroy();
            resolve(chunks);
          }
        });
        res.on("error", () => {});
      },
    );
    req.on("error", reject);
    req.end();
  });
}

export interface Rate {
  events: number;
  ms: number;
  perSecond: number;
}

/** One pass over every capture: streaming UTF-8 decode, eventsource-parser, JSON.parse. */
function parseOnce(captures: readonly Capture[]): number {
  let n = 0;
  for (const chunks of captures) {
    const decoder = new TextDecoder("utf-8");
    const parser = createParser({
      onEvent(m) {
        JSON.parse(m.data);
        n++;
      },
    });
    for (const c of chunks) parser.feed(decoder.decode(c, { stream: true }));
  }
  return n;
}

/** B1: the in-memory parse rate, repeated for at least minMs after a warm-up pass. */
export function parseCeiling(captures: readonly Capture[], minMs: number): Rate {
  parseOnce(captures);
  let events = 0;
  const t0 = performance.now();
  let ms = 0;
  do {
    events += parseOnce(captures);
    ms = performance.now() - t0;
  } while (ms < minMs);
  return { events, ms, perSecond: (events * 1000) / ms };
}
