import type { ServerResponse } from "node:http";
import { Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { HISTORY_END_COMMENT, PATHS, withHistoryParam } from "../../src/protocol/index.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { StreamsController } from "../../src/store/streams/streamsController.js";
import { createStreamsStore, type StreamsStore } from "../../src/store/streams/streamsStore.js";
import { type ScriptedServer, startScriptedServer } from "../helpers/scriptedHttpServer.js";
import { openSse, type SseClient, waitFor } from "./serverTestUtils.js";

/**
 * History on open: the reference service sends a new subscriber its recent events, the
 * client asks for no more than its scrollback holds, shows a divider where live events begin,
 * and does not ask again on a reconnect.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function reference(opts: Parameters<typeof startServer>[0] = {}): Promise<ReferenceServer> {
  const s = await startServer({ paceMs: 0, seed: 12, heartbeatMs: 60_000, ...opts });
  cleanups.push(() => s.close());
  return s;
}

function pane(baseUrl: string, apiKey: string, capacity: number, history = capacity) {
  const agent = new Agent();
  const store = createStreamsStore({ capacity, flushMs: 5 });
  const controller = new StreamsController({
    config: { baseUrl, apiKey, dispatcher: agent },
    store,
    history,
    subscribeOptions: { backoffBaseMs: 10, maxAttempts: 5 },
  });
  cleanups.push(async () => {
    await controller.closeAll();
    store.getState().dispose();
    await agent.close();
  });
  return { store, controller };
}

function entries(store: StreamsStore, id: string) {
  return store.getState().sessions[id]?.timeline.toArray() ?? [];
}

function texts(store: StreamsStore, id: string): string[] {
  return entries(store, id).map((e) => (e.kind === "divider" ? `── ${e.text}` : e.text));
}

async function sse(url: string, key: string, lastEventId?: string): Promise<SseClient> {
  const c = await openSse(url, key, lastEventId === undefined ? {} : { lastEventId });
  cleanups.push(() => c.close());
  return c;
}

describe("reference service: history for a new subscriber", () => {
  it("sends the newest 200 events by default, then `: history-end`, then live ones", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    for (let i = 1; i <= 266; i++) s.emit(id, "process_output", { text: `line ${i}\n` });
    const c = await sse(`${s.url}${PATHS.events(id)}`, s.key("member"));
    await waitFor(() => c.events().length === 200 && c.comments() === 1, 5_000, "history");
    expect(JSON.parse(c.events()[0]?.data ?? "{}").text).toBe("line 67\n");
    expect(c.raw()).toContain(`: ${HISTORY_END_COMMENT}\n`);
    s.emit(id, "process_output", { text: "live\n" });
    await waitFor(() => c.events().length === 201, 5_000, "the live event");
    // The comment came after the history and before the live event.
    const raw = c.raw();
    expect(raw.indexOf(`: ${HISTORY_END_COMMENT}`)).toBeGreaterThan(raw.indexOf("line 266"));
    expect(raw.indexOf(`: ${HISTORY_END_COMMENT}`)).toBeLessThan(raw.indexOf("live\\n"));
  });

  it("takes `serve --history N` as its default and a client's ?history=M as a lower cap", async () => {
    const s = await reference({ historyOnOpen: 30 });
    const id = s.sessionIds()[0] as string;
    for (let i = 1; i <= 50; i++) s.emit(id, "process_output", { text: `line ${i}\n` });
    const key = s.key("member");
    const plain = await sse(`${s.url}${PATHS.events(id)}`, key);
    const asksFive = await sse(`${s.url}${withHistoryParam(PATHS.events(id), 5)}`, key);
    const asksMore = await sse(`${s.url}${withHistoryParam(PATHS.events(id), 1000)}`, key);
    const asksNone = await sse(`${s.url}${withHistoryParam(PATHS.events(id), 0)}`, key);
    const all = [plain, asksFive, asksMore, asksNone];
    await waitFor(() => all.every((c) => c.comments() === 1), 5_000, "every history end");
    expect(all.map((c) => c.events().length)).toEqual([30, 5, 30, 0]);
    expect(asksFive.events().map((e) => Number(e.id))).toEqual([46, 47, 48, 49, 50]);
  });

  it("sends no history to a resuming subscriber, only what it missed", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    for (let i = 1; i <= 10; i++) s.emit(id, "process_output", { text: `line ${i}\n` });
    const c = await sse(`${s.url}${withHistoryParam(PATHS.events(id), 100)}`, s.key("member"), "8");
    await waitFor(() => c.comments() === 1, 5_000, "the end of the replay");
    expect(c.events().map((e) => Number(e.id))).toEqual([9, 10]);
  });
});

describe("client: a pane opens with the session's history", () => {
  it("shows the recent events at once, a divider, and live events below it", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    for (let i = 1; i <= 266; i++) s.emit(id, "process_output", { text: `line ${i}\n` });
    const { store, controller } = pane(s.url, s.key("member"), 5000);
    controller.openStream(id);
    await waitFor(() => entries(store, id).some((e) => e.kind === "divider"), 5_000, "divider");
    s.emit(id, "process_output", { text: "live one\n" });
    await waitFor(() => texts(store, id).at(-1) === "live one", 5_000, "the live event");
    const t = texts(store, id);
    expect(t).toHaveLength(202);
    expect(t[0]).toBe("line 67");
    expect(t[199]).toBe("line 266");
    expect(t[200]).toBe("── live from here · above: 200 from the server");
  });

  it("never asks for more than its scrollback holds", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    for (let i = 1; i <= 100; i++) s.emit(id, "process_output", { text: `line ${i}\n` });
    const { store, controller } = pane(s.url, s.key("member"), 40);
    controller.openStream(id);
    await waitFor(() => entries(store, id).some((e) => e.kind === "divider"), 5_000, "divider");
    const t = texts(store, id);
    // 38: the scrollback keeps room for the divider and a gap marker.
    expect(t[0]).toBe("line 63");
    expect(t.at(-1)).toBe("── live from here · above: 38 from the server");
    // Nothing was evicted: the server sent exactly what fits.
    expect(store.getState().sessions[id]?.timeline.dropped).toBe(0);
  });

  it("does not ask for history again on a reconnect, and repeats nothing", async () => {
    const s = await reference({ faults: { dropAfter: 25 } });
    const id = s.sessionIds()[0] as string;
    for (let i = 1; i <= 20; i++) s.emit(id, "process_output", { text: `old ${i}\n` });
    const { store, controller } = pane(s.url, s.key("member"), 5000);
    controller.openStream(id);
    await waitFor(() => entries(store, id).some((e) => e.kind === "divider"), 5_000, "divider");
    // 5 more end the first connection (dropAfter 25); the client resumes with Last-Event-ID.
    for (let i = 1; i <= 12; i++) s.emit(id, "process_output", { text: `new ${i}\n` });
    await waitFor(() => texts(store, id).includes("new 12"), 5_000, "every new event");
    const sub = controller.subscription(id);
    expect(sub?.stats.reconnects).toBeGreaterThanOrEqual(1);
    const events = entries(store, id).filter((e) => e.kind === "output");
    expect(events.map((e) => e.text)).toEqual([
      ...Array.from({ length: 20 }, (_, i) => `old ${i + 1}`),
      ...Array.from({ length: 12 }, (_, i) => `new ${i + 1}`),
    ]);
    expect(entries(store, id).filter((e) => e.kind === "divider")).toHaveLength(1);
  });
});

describe("client: other servers", () => {
  let scripted: ScriptedServer;

  function sseHead(res: ServerResponse): void {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.flushHeaders();
  }

  it("asks ?history=N first and history=0 after a reconnect", async () => {
    scripted = await startScriptedServer();
    cleanups.push(() => scripted.close());
    // Two connections that end at once, then one that stays open.
    scripted.reply(
      (_q, res) => {
        sseHead(res);
        res.end('event: process_output\ndata: {"text":"a"}\n\n');
      },
      (_q, res) => {
        sseHead(res);
        res.end();
      },
    );
    scripted.fallback((_q, res) => sseHead(res));
    const { controller } = pane(scripted.url, "k".repeat(20), 123);
    controller.openStream("ses_x");
    await waitFor(() => scripted.seen.length >= 3, 5_000, "three connections");
    const queries = scripted.seen.map((r) =>
      new URL(r.url, "http://x").searchParams.get("history"),
    );
    // 121: the scrollback of 123 less room for the divider and a gap marker.
    expect(queries.slice(0, 3)).toEqual(["121", "0", "0"]);
  });

  it("copes with a server that sends more history than asked: the scrollback keeps the newest", async () => {
    scripted = await startScriptedServer();
    cleanups.push(() => scripted.close());
    let body = "";
    for (let i = 1; i <= 3000; i++) {
      body += `id: ${i}\nevent: process_output\ndata: {"text":"h ${i}"}\n\n`;
    }
    scripted.fallback((_q, res) => {
      sseHead(res);
      res.write(body);
      res.write('event: heartbeat\ndata: {"timestamp":"2024-01-01T00:00:00Z"}\n\n');
    });
    const { store, controller } = pane(scripted.url, "k".repeat(20), 100);
    controller.openStream("ses_x");
    await waitFor(
      () => entries(store, "ses_x").some((e) => e.kind === "divider"),
      5_000,
      "divider",
    );
    const t = texts(store, "ses_x");
    expect(t).toHaveLength(100);
    expect(t[0]).toBe("h 2902");
    expect(t.at(-1)).toBe("── live from here · above: 3000 from the server");
    expect(store.getState().sessions.ses_x?.timeline.dropped).toBe(2901);
  });
});
