import type { IncomingMessage, ServerResponse } from "node:http";
import { Agent } from "undici";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { type StreamNotice, subscribeToSession } from "../../src/client/eventStream.js";
import type { SessionEvent } from "../../src/protocol/events.js";
import { ndjson, runCli, tempConfigHome } from "../helpers/cli.js";
import { serveOnLoopback } from "../helpers/scriptedHttpServer.js";
import { stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";

/**
 * What counts as a replay after a reconnect: only the same event again (the same id, name and
 * data, in order). A server that restarted, or one that numbers its events per connection,
 * sends ids the client has seen with new events: every one of them is delivered.
 */

const KEY = "replay-identity-test-key";
const SESSION = "ses_replay1";
afterEach(stopStarted);
const cfg = tempConfigHome();
afterAll(() => cfg.cleanup());

/**
 * A loopback service whose event stream answers the n-th connection with `items(n)` (each a
 * whole SSE item); the last connection's response stays open. Every answer carries the rate
 * limit headers of a service allowing 100 requests a minute.
 */
async function serve(
  items: (n: number) => string[],
): Promise<{ baseUrl: string; opened: () => number }> {
  let streams = 0;
  let remaining = 100;
  const baseUrl = await serveOnLoopback((req: IncomingMessage, res: ServerResponse) => {
    remaining = Math.max(0, remaining - 1);
    const limits = {
      "x-ratelimit-limit": "100",
      "x-ratelimit-remaining": String(remaining),
      "x-ratelimit-reset": String(Math.ceil(Date.now() / 1000) + 60),
    };
    if (!(req.url ?? "").split("?")[0]?.endsWith(`/${SESSION}/events`)) {
      res.writeHead(404, { "content-type": "application/json", ...limits });
      res.end(JSON.stringify({ detail: "not found" }));
      return;
    }
    const n = streams++;
    const batch = items(n);
    res.writeHead(200, { "content-type": "text/event-stream", ...limits });
    res.flushHeaders();
    const text = batch.join("");
    // Every connection but the last ends after its items, as a server restarting would.
    if (items(n + 1).length > 0) res.end(text);
    else if (text !== "") res.write(text);
  });
  return { baseUrl, opened: () => streams };
}

function item(id: string, text: string, event = "prompt_progress"): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify({ type: "text", content: text })}\n\n`;
}

/** Ids 1… with texts `prefix1`…: what a server numbering from 1 sends. */
function numbered(prefix: string, from: number, to: number): string[] {
  const out: string[] = [];
  for (let i = from; i <= to; i++) out.push(item(String(i), `${prefix}${i}`));
  return out;
}

function subscribe(baseUrl: string) {
  const agent = new Agent({ keepAliveTimeout: 1000 });
  const w = { events: [] as SessionEvent[], notices: [] as StreamNotice[] };
  const sub = subscribeToSession({
    config: { baseUrl, apiKey: KEY, dispatcher: agent },
    sessionId: SESSION,
    backoffBaseMs: 5,
    maxDelayMs: 50,
    onEvent: (ev) => w.events.push(ev),
    onNotice: (n) => w.notices.push(n),
  });
  stopAfterTest(async () => {
    sub.close();
    await sub.done;
    await agent.destroy();
  });
  return { ...w, sub };
}

const shown = (w: { events: SessionEvent[] }) =>
  w.events.map((e) =>
    e.kind === "prompt_progress" ? `${e.id}:${e.data.content}` : `${e.id}:?${e.kind}`,
  );
const wait = { timeout: 5000, interval: 5 };

/** Lets the stream sit a moment: nothing more may arrive. */
const settle = () => new Promise((r) => setTimeout(r, 100));

describe("ids used again after a reconnect", () => {
  it("a server that numbers from 1 again delivers every new event; nothing counts as a duplicate", async () => {
    const lb = await serve((n) =>
      n === 0 ? numbered("old", 1, 5) : n === 1 ? numbered("new", 1, 5) : [],
    );
    const w = subscribe(lb.baseUrl);
    const all = ["old", "new"].flatMap((p) => [1, 2, 3, 4, 5].map((i) => `${i}:${p}${i}`));
    await vi.waitFor(() => expect(shown(w)).toEqual(all), wait);
    await settle();
    expect(shown(w)).toEqual(all);
    expect(w.sub.stats.duplicates).toBe(0);
    expect(w.notices).toEqual([]);
    expect(w.sub.lastEventId).toBe("5");
  });

  it("a true replay (the same ids and data) is still dropped and counted", async () => {
    const lb = await serve((n) =>
      n === 0 ? numbered("t", 1, 5) : n === 1 ? [...numbered("t", 1, 5), item("6", "t6")] : [],
    );
    const w = subscribe(lb.baseUrl);
    await vi.waitFor(() => expect(w.notices).toEqual([{ kind: "duplicates", count: 5 }]), wait);
    await settle();
    expect(shown(w)).toEqual(["1:t1", "2:t2", "3:t3", "4:t4", "5:t5", "6:t6"]);
    expect(w.sub.stats.duplicates).toBe(5);
  });

  it("a replay of the first three, then new events under used ids: exactly the new ones arrive", async () => {
    const lb = await serve((n) =>
      n === 0
        ? numbered("a", 1, 5)
        : n === 1
          ? [...numbered("a", 1, 3), ...numbered("b", 4, 7)]
          : [],
    );
    const w = subscribe(lb.baseUrl);
    const expected = ["1:a1", "2:a2", "3:a3", "4:a4", "5:a5", "4:b4", "5:b5", "6:b6", "7:b7"];
    await vi.waitFor(() => expect(shown(w)).toEqual(expected), wait);
    await settle();
    expect(shown(w)).toEqual(expected);
    expect(w.sub.stats.duplicates).toBe(3);
    expect(w.notices).toEqual([{ kind: "duplicates", count: 3 }]);
  });

  it("the same id and data under another event name is another event", async () => {
    const same = JSON.stringify({ type: "text", content: "x" });
    const lb = await serve((n) =>
      n === 0
        ? [`id: 1\nevent: prompt_progress\ndata: ${same}\n\n`]
        : n === 1
          ? [`id: 1\nevent: brand_new\ndata: ${same}\n\n`]
          : [],
    );
    const w = subscribe(lb.baseUrl);
    await vi.waitFor(() => expect(shown(w)).toEqual(["1:x", "1:?unknown"]), wait);
    expect(w.sub.stats.duplicates).toBe(0);
  });

  it("a replay is in order: an event seen earlier than the last replay is new again", async () => {
    // The second connection replays 2 and 3, then sends 1 with the data it had before: after
    // the replay has moved past it, that is the server sending it once more, not a replay.
    const lb = await serve((n) =>
      n === 0
        ? numbered("r", 1, 3)
        : n === 1
          ? [item("2", "r2"), item("3", "r3"), item("1", "r1")]
          : [],
    );
    const w = subscribe(lb.baseUrl);
    await vi.waitFor(() => expect(shown(w)).toEqual(["1:r1", "2:r2", "3:r3", "1:r1"]), wait);
    expect(w.sub.stats.duplicates).toBe(2);
  });

  it("long data (kept as a digest) is compared whole: one changed character is a new event", async () => {
    const long = (c: string) => `${"x".repeat(3000)}${c}${"y".repeat(3000)}`;
    const lb = await serve((n) =>
      n === 0
        ? [item("1", long("a")), item("2", long("b"))]
        : n === 1
          ? [item("1", long("a")), item("2", long("c"))]
          : [],
    );
    const w = subscribe(lb.baseUrl);
    await vi.waitFor(() => expect(w.events).toHaveLength(3), wait);
    await settle();
    const tail = w.events.map((e) =>
      e.kind === "prompt_progress" ? `${e.id}:${e.data.content.charAt(3000)}` : "?",
    );
    expect(tail).toEqual(["1:a", "2:b", "2:c"]);
    expect(w.sub.stats.duplicates).toBe(1);
  });
});

describe("watch --json when the service restarts and numbers from 1 again", () => {
  it("prints the new events and drops none as duplicates", async () => {
    const lb = await serve((n) =>
      n === 0 ? numbered("before", 1, 5) : n === 1 ? numbered("after", 1, 5) : [],
    );
    const r = await runCli(["watch", SESSION, "--json", "--max-events", "10"], {
      env: {
        XDG_CONFIG_HOME: cfg.dir,
        AGENT_SESSIONS_BASE_URL: lb.baseUrl,
        AGENT_SESSIONS_API_KEY: KEY,
      },
    });
    expect(r.code).toBe(0);
    const events = ndjson(r.stdout).filter((l) => l.event === "prompt_progress");
    expect(events.map((e) => `${e.id}:${(e.data as { content: string }).content}`)).toEqual([
      ...[1, 2, 3, 4, 5].map((i) => `${i}:before${i}`),
      ...[1, 2, 3, 4, 5].map((i) => `${i}:after${i}`),
    ]);
    const dropped = ndjson(r.stderr).filter((l) => "duplicates_dropped" in l);
    expect(dropped).toEqual([]);
    expect(lb.opened()).toBe(2);
  });
});
