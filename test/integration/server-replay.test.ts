import { Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { type Subscription, subscribeToSession } from "../../src/client/eventStream.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { waitFor } from "./serverTestUtils.js";

/**
 * A Last-Event-ID replay larger than the service's slow-reader guard. Written in one go, it
 * filled the response buffer past the guard, the service cut the stream, and the client
 * reconnected with the same Last-Event-ID into the same replay, forever.
 */

let server: ReferenceServer | null = null;
let agent: Agent | null = null;
const subs: Subscription[] = [];

afterEach(async () => {
  for (const s of subs.splice(0)) s.close();
  await agent?.close();
  agent = null;
  await server?.close();
  server = null;
});

const GUARD = 64 * 1024;
const BACKLOG = 20_000;

describe("reference service: replay larger than the slow-reader guard", () => {
  it("completes in one connection, with live events that came during it after it", async () => {
    const s = await startServer({
      paceMs: 0,
      seed: 5,
      heartbeatMs: 60_000,
      historyLimit: BACKLOG,
      maxQueuedBytes: GUARD,
    });
    server = s;
    const id = s.sessionIds()[0] as string;
    for (let i = 1; i <= BACKLOG; i++) {
      s.emit(id, "process_output", {
        stream: "stdout",
        text: `backlog line ${i} ${"x".repeat(60)}\n`,
      });
    }
    agent = new Agent();
    const ids: number[] = [];
    let liveSent = false;
    const sub = subscribeToSession({
      config: { baseUrl: s.url, apiKey: s.key("member"), dispatcher: agent },
      sessionId: id,
      lastEventId: "0",
      backoffBaseMs: 10,
      onEvent: (ev) => {
        if (ev.id === null) return;
        ids.push(Number(ev.id));
        if (!liveSent) {
          // The replay has only begun: these must be held and sent after it.
          liveSent = true;
          for (let k = 1; k <= 5; k++) s.emit(id, "process_output", { text: `live ${k}\n` });
        }
      },
    });
    subs.push(sub);
    await waitFor(() => ids.length >= BACKLOG + 5, 15_000, "the whole replay and the live events");
    expect(ids).toEqual(Array.from({ length: BACKLOG + 5 }, (_, i) => i + 1));
    expect(sub.stats.reconnects).toBe(0);
    expect(sub.stats.bytes).toBeGreaterThan(20 * GUARD);
    expect(sub.status.state).toBe("live");
  });
});
