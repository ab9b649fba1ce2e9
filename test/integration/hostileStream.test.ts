import { Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { MalformedResponseError } from "../../src/client/errors.js";
import {
  type StreamStatus,
  type SubscribeOptions,
  type Subscription,
  subscribeToSession,
} from "../../src/client/eventStream.js";
import type { SessionEvent } from "../../src/protocol/index.js";
import {
  HOSTILE_KEY,
  type HostileServer,
  leakedPiece,
  sendJson,
  sseHead,
  sseItem,
  startHostile,
  TERMINAL_HOSTILE,
} from "../helpers/hostileServer.js";
import { stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";

/**
 * The event stream against hostile loopback servers: the reconnect floor, Retry-After within
 * a cap, ids sent back as UTF-8 bytes, data-less id items, one final stop, ids that would
 * leave their path, and server text in reasons. Delays are read from the published statuses
 * and connections counted at the server; nothing measures time.
 */

const BASE = 20;
afterEach(stopStarted);

interface Watched {
  sub: Subscription;
  events: SessionEvent[];
  statuses: StreamStatus[];
}

function watch(s: HostileServer, extra: Partial<SubscribeOptions> = {}): Watched {
  const agent = new Agent({ keepAliveTimeout: 1000 });
  const events: SessionEvent[] = [];
  const statuses: StreamStatus[] = [];
  const sub = subscribeToSession({
    config: { baseUrl: s.url, apiKey: HOSTILE_KEY, dispatcher: agent },
    sessionId: "ses_one",
    onEvent: (e) => events.push(e),
    onStatus: (st) => statuses.push(st),
    backoffBaseMs: BASE,
    maxDelayMs: 5000,
    random: () => 0.5, // no jitter
    watchdog: { floorMs: 50, initialMs: 5000, ceilingMs: 5000 },
    ...extra,
  });
  stopAfterTest(async () => {
    sub.close();
    await agent.destroy();
  });
  return { sub, events, statuses };
}

async function waitFor(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function delays(w: Watched): number[] {
  return w.statuses.flatMap((s) => (s.state === "reconnecting" ? [s.delayMs] : []));
}

function doubling(from: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => from * 2 ** i);
}

describe("reconnect floor: no storm, whatever the server says", () => {
  it("503 with Retry-After: 0 backs off like any failure", async () => {
    const s = await startHostile({
      events: (_q, res) => sendJson(res, 503, { detail: "busy" }, { "retry-after": "0" }),
    });
    const w = watch(s, { maxAttempts: 6 });
    await w.sub.done;
    expect(delays(w)).toEqual(doubling(BASE, 5));
    expect(s.requestsTo("/api/cloud/sessions/")).toHaveLength(6);
  });

  it("429 with a Retry-After date in the past backs off too", async () => {
    const past = new Date(Date.now() - 3_600_000).toUTCString();
    const s = await startHostile({
      events: (_q, res) => sendJson(res, 429, { detail: "slow" }, { "retry-after": past }),
    });
    const w = watch(s, { maxAttempts: 5 });
    await w.sub.done;
    expect(delays(w)).toEqual(doubling(BASE, 4));
  });

  it("retry: 0 with the same event on every short connection is a failure each time", async () => {
    const s = await startHostile({
      events: (_q, res) => {
        sseHead(res);
        res.end(`retry: 0\n\n${sseItem(1, "prompt_progress", { type: "text", content: "again" })}`);
      },
    });
    const w = watch(s, { lastEventId: "1", maxAttempts: 6 });
    await w.sub.done;
    expect(delays(w)).toEqual(doubling(BASE, 5));
  });

  it("heartbeats alone on short connections are no progress", async () => {
    const s = await startHostile({
      events: (_q, res) => {
        sseHead(res);
        res.end(sseItem(null, "heartbeat", { timestamp: new Date().toISOString() }));
      },
    });
    const w = watch(s, { maxAttempts: 5 });
    await w.sub.done;
    expect(delays(w)).toEqual(doubling(BASE, 4));
  });

  it("one new event per connection with retry: 0 never reconnects faster than the base delay", async () => {
    const s = await startHostile({
      events: (_q, res, n) => {
        sseHead(res);
        res.end(`retry: 0\n\n${sseItem(n + 1, "prompt_progress", { type: "text", content: "x" })}`);
      },
    });
    const w = watch(s);
    await waitFor(() => delays(w).length >= 8, "eight reconnects");
    w.sub.close();
    expect(new Set(delays(w))).toEqual(new Set([BASE]));
    expect(w.events.length).toBeGreaterThanOrEqual(8);
  });

  it("a huge Retry-After is cut to the cap, and the reason says so", async () => {
    const s = await startHostile({
      events: (_q, res) => sendJson(res, 429, {}, { "retry-after": "999999999" }),
    });
    const w = watch(s, { maxDelayMs: 300 });
    await waitFor(() => delays(w).length >= 1, "the wait");
    const wait = w.statuses.find((x) => x.state === "reconnecting");
    expect(wait).toMatchObject({ delayMs: 300 });
    expect(wait?.state === "reconnecting" && wait.reason).toMatch(
      /rate limited \(429\), retry after \d+d \(the server asked for \d+d; waiting at most 300 ms\)$/,
    );
  });
});

describe("SSE details", () => {
  it("an id beyond Latin-1 is sent back as its UTF-8 bytes, and reconnecting works", async () => {
    const s = await startHostile({
      events: (_q, res, n) => {
        sseHead(res);
        if (n === 0) res.end(sseItem("☃-1", "prompt_progress", { type: "text", content: "a" }));
        else res.write(sseItem("☃-2", "prompt_progress", { type: "text", content: "b" }));
      },
    });
    const w = watch(s);
    await waitFor(() => w.events.length === 2, "the event after the reconnect");
    const second = s.requestsTo("/api/cloud/sessions/")[1];
    const i = second?.rawHeaders.findIndex((h) => h.toLowerCase() === "last-event-id") ?? -1;
    const bytes = Buffer.from(second?.rawHeaders[i + 1] ?? "", "latin1");
    expect(bytes.toString("utf8")).toBe("☃-1");
    expect(w.sub.lastEventId).toBe("☃-2");
  });

  it("an item with an id and no data moves the last event id (WHATWG)", async () => {
    const s = await startHostile({
      events: (_q, res, n) => {
        sseHead(res);
        if (n === 0) {
          res.end(
            `${sseItem(1, "prompt_progress", { type: "text", content: "a" })}id: 7\n\n` +
              `event: prompt_progress\ndata: {"type":"text","content":"no id"}\n\n`,
          );
        } else res.write(sseItem(8, "prompt_progress", { type: "text", content: "b" }));
      },
    });
    const w = watch(s);
    await waitFor(() => w.events.length === 3, "the event after the reconnect");
    expect(s.requestsTo("/api/cloud/sessions/")[1]?.headers["last-event-id"]).toBe("7");
    expect(w.sub.lastEventId).toBe("8");
  });

  it("a stream that stops for good reports stopped once, also when closed afterwards", async () => {
    const s = await startHostile({
      events: (_q, res) => sendJson(res, 401, { detail: "bad key" }),
    });
    const w = watch(s);
    await w.sub.done;
    w.sub.close();
    w.sub.close();
    expect(w.statuses.filter((x) => x.state === "stopped")).toHaveLength(1);
  });
});

describe("ids that would leave their path", () => {
  it("are refused before any request, in the stream and the client", async () => {
    const s = await startHostile({});
    for (const id of ["..", ".", "a/../../events", "%2e%2e", "a?b=c"]) {
      const w = watch(s, { sessionId: id });
      const final = await w.sub.done;
      expect(final.state).toBe("stopped");
      if (final.state === "stopped") expect(final.error).toBeInstanceOf(MalformedResponseError);
      const client = new ApiClient({ baseUrl: s.url, apiKey: HOSTILE_KEY, maxAttempts: 1 });
      await expect(client.getSession(id)).rejects.toBeInstanceOf(MalformedResponseError);
      await expect(client.git(id, { kind: "push" })).rejects.toBeInstanceOf(MalformedResponseError);
    }
    expect(s.seen).toHaveLength(0);
  });
});

describe("server text in reasons and errors", () => {
  it("is one line without escapes, and never holds the key", async () => {
    const evil = `no\x1b]52;c;cHduZWQ=\x07 key ${HOSTILE_KEY}\n\x9b2J\u202e`;
    const s = await startHostile({
      events: (_q, res, n) =>
        n === 0
          ? sendJson(res, 503, { detail: evil })
          : sendJson(res, 403, { detail: evil, required_scope: `${HOSTILE_KEY}\x1b[2J` }),
    });
    const w = watch(s);
    const final = await w.sub.done;
    const texts = w.statuses.flatMap((x) =>
      x.state === "reconnecting" || x.state === "stopped" ? [x.reason] : [],
    );
    if (final.state === "stopped" && final.error) texts.push(final.error.message);
    expect(texts.length).toBeGreaterThanOrEqual(3);
    for (const t of texts) {
      expect(t).not.toMatch(TERMINAL_HOSTILE);
      expect(t).not.toContain("\n");
      expect(leakedPiece(t)).toBeNull();
    }
  });
});
