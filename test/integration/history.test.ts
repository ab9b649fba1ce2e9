import type { ServerResponse } from "node:http";
import { Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { HISTORY_END_COMMENT, PATHS, type SessionHistory } from "../../src/protocol/index.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { StreamsController } from "../../src/store/streams/streamsController.js";
import { createStreamsStore, type StreamsStore } from "../../src/store/streams/streamsStore.js";
import {
  ANNOUNCED_LIMITS,
  type ScriptedServer,
  startScriptedServer,
} from "../helpers/scriptedHttpServer.js";
import { stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";
import { openSse, type SseClient, waitFor } from "./serverTestUtils.js";

/**
 * History on open: the documented `GET …/sessions/{id}/history` answers the session's log;
 * a pane shows it (no more than its scrollback holds), a divider where live events begin,
 * then live events. A server without the endpoint gets panes that start live, as before.
 */

afterEach(stopStarted);

async function reference(opts: Parameters<typeof startServer>[0] = {}): Promise<ReferenceServer> {
  // The real service's documented limits: panes here open streams and read histories.
  const s = await startServer({
    paceMs: 0,
    seed: 12,
    heartbeatMs: 60_000,
    rateLimit: { limit: 100, windowMs: 60_000, burst: 20 },
    ...opts,
  });
  stopAfterTest(() => s.close());
  return s;
}

interface PaneOptions {
  /** Entries the pane keeps (default 5000). */
  capacity?: number;
  /** Most history entries shown (default: the capacity). */
  history?: number;
  /** Wraps the history read (to make things happen around it). */
  around?: (
    read: () => Promise<SessionHistory | null>,
    id: string,
  ) => Promise<SessionHistory | null>;
  /** Told of each state change a stream brings. */
  onStateChange?: (sessionId: string, state: string) => void;
  /** The store's batch (default 5 ms). */
  flushMs?: number;
}

function pane(baseUrl: string, apiKey: string, o: PaneOptions = {}) {
  const { around, onStateChange } = o;
  const capacity = o.capacity ?? 5000;
  const history = o.history ?? capacity;
  const agent = new Agent();
  const store = createStreamsStore({ capacity, flushMs: o.flushMs ?? 5 });
  const api = new ApiClient({
    baseUrl,
    apiKey,
    dispatcher: agent,
    maxAttempts: 2,
    backoffBaseMs: 10,
  });
  const controller = new StreamsController({
    config: { baseUrl, apiKey, dispatcher: agent },
    transport: api.transport,
    store,
    history,
    fetchHistory: (id) =>
      around ? around(() => api.sessionHistory(id), id) : api.sessionHistory(id),
    subscribeOptions: { backoffBaseMs: 10, maxAttempts: 5 },
    ...(onStateChange ? { onStateChange } : {}),
  });
  stopAfterTest(async () => {
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

/** `prefix 1` … `prefix n`. */
function numbered(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);
}

/** `prefix 1` … `prefix n`, as process output lines of the session. */
function emitNumbered(s: ReferenceServer, id: string, prefix: string, n: number): void {
  for (const text of numbered(prefix, n)) s.emit(id, "process_output", { text: `${text}\n` });
}

/** A short shell session's lines, the first of which may happen again. */
const COMMANDS = ["$ npm test", "ok", "$ git commit"];

function emitCommands(s: ReferenceServer, id: string): void {
  for (const text of COMMANDS) s.emit(id, "process_output", { text: `${text}\n` });
}

/** Opens the pane's stream and waits for the divider below its history. */
async function openToDivider(p: Pick<ReturnType<typeof pane>, "store" | "controller">, id: string) {
  p.controller.openStream(id);
  await waitFor(() => entries(p.store, id).some((e) => e.kind === "divider"), 5_000, "divider");
}

/** A pane on a session of the reference service that holds `prefix 1` … `prefix n`, to its divider. */
async function numberedToDivider(prefix: string, n: number, o: PaneOptions = {}) {
  const s = await reference();
  const id = s.sessionIds()[0] as string;
  emitNumbered(s, id, prefix, n);
  const p = pane(s.url, s.key("member"), o);
  await openToDivider(p, id);
  return { ...p, id };
}

function waitLive(store: StreamsStore, id: string, ms: number): Promise<void> {
  return waitFor(() => store.getState().sessions[id]?.status.state === "live", ms, "live");
}

/** Emits one line and waits for the pane to show it. */
async function emitLive(s: ReferenceServer, store: StreamsStore, id: string, text: string) {
  s.emit(id, "process_output", { text: `${text}\n` });
  await waitFor(() => texts(store, id).includes(text), 5_000, "a live event");
}

/** The pane's `old …` and `new …` lines and its dividers. */
function oldAndNew(store: StreamsStore, id: string): string[] {
  return texts(store, id).filter((x) => /^(old|new) |^── /.test(x));
}

async function sse(url: string, key: string, lastEventId?: string): Promise<SseClient> {
  const c = await openSse(url, key, lastEventId === undefined ? {} : { lastEventId });
  stopAfterTest(() => c.close());
  return c;
}

describe("reference service: the documented history endpoint", () => {
  it("answers {events, count} from the session's kept events; the stream itself sends none", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    s.emit(id, "prompt_progress", { type: "user", content: "fix the tests" });
    s.emit(id, "prompt_progress", { type: "text", content: "Looking " });
    s.emit(id, "prompt_progress", { type: "text", content: "now.\n" });
    s.emit(id, "process_output", { text: "ok 1\n" });
    s.emit(id, "file_changed", { path: "a.ts", action: "modified" });
    for (const path of [PATHS.sessionHistory(id), `/api/cloud/sessions/${id}/history`]) {
      const res = await fetch(`${s.url}${path}`, {
        headers: { authorization: `Bearer ${s.key("member")}` },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { events: Record<string, unknown>[]; count: number };
      expect(body.count).toBe(body.events.length);
      expect(body.events.slice(-4)).toMatchObject([
        { type: "user", content: "fix the tests" },
        { type: "assistant_text", content: "Looking now.\n" },
        { type: "tool_result", content: "ok 1\n" },
        { type: "file_changed", path: "a.ts", action: "modified" },
      ]);
      expect(typeof body.events.at(-1)?.timestamp).toBe("string");
    }
    const c = await sse(`${s.url}${PATHS.events(id)}`, s.key("member"));
    s.emit(id, "process_output", { text: "live\n" });
    await waitFor(() => c.events().length === 1, 5_000, "the live event");
    expect(JSON.parse(c.events()[0]?.data ?? "{}").text).toBe("live\n");
  });

  it("takes `serve --history N`: recent events on open, then `: history-end`", async () => {
    const s = await reference({ historyOnOpen: 30 });
    const id = s.sessionIds()[0] as string;
    emitNumbered(s, id, "line", 50);
    const c = await sse(`${s.url}${PATHS.events(id)}?history=5`, s.key("member"));
    await waitFor(() => c.comments() === 1, 5_000, "the history end");
    // A ?history= parameter is not read (the real service has none).
    expect(c.events()).toHaveLength(30);
    expect(c.raw()).toContain(`: ${HISTORY_END_COMMENT}\n`);
  });

  it("sends a resuming subscriber what it missed", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    emitNumbered(s, id, "line", 10);
    const c = await sse(`${s.url}${PATHS.events(id)}`, s.key("member"), "8");
    await waitFor(() => c.comments() === 1, 5_000, "the end of the replay");
    expect(c.events().map((e) => Number(e.id))).toEqual([9, 10]);
  });
});

describe("client: a pane opens with the session's history", () => {
  it("shows the history at once, a divider, and live events below it", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    const before = texts(pane(s.url, s.key("member")).store, id).length;
    expect(before).toBe(0);
    s.emit(id, "prompt_progress", { type: "user", content: "run the tests" });
    emitNumbered(s, id, "line", 266);
    const { store, controller } = pane(s.url, s.key("member"));
    await openToDivider({ store, controller }, id);
    await waitLive(store, id, 5_000);
    s.emit(id, "process_output", { text: "live one\n" });
    await waitFor(() => texts(store, id).at(-1) === "live one", 5_000, "the live event");
    const all = entries(store, id);
    const user = all.find((e) => e.kind === "prompt" && e.promptType === "user");
    expect(user?.text).toBe("run the tests");
    const t = texts(store, id);
    const at = t.indexOf("line 1");
    expect(t.slice(at, at + 266)).toEqual(Array.from({ length: 266 }, (_, i) => `line ${i + 1}`));
    expect(t.at(-2)).toMatch(/^── live from here · above: \d+ from the server$/);
    // Outputs of history are drawn as live output is.
    expect(all.find((e) => e.text === "line 1")?.kind).toBe("output");
  });

  it("draws the history and its divider once read, not at the store's next batch", async () => {
    // A batch far longer than the test: only the history's own flush can show it.
    const { store, id } = await numberedToDivider("old", 3, { flushMs: 600_000 });
    expect(texts(store, id)).toEqual([
      ...numbered("old", 3),
      "── live from here · above: 3 from the server",
    ]);
  });

  it("keeps no more than its scrollback holds, and says so", async () => {
    const { store, id } = await numberedToDivider("line", 100, { capacity: 40 });
    const t = texts(store, id);
    // 38: the scrollback keeps room for the divider and a gap marker.
    expect(t[0]).toMatch(
      /^\d+ older entries of the session's history not shown \(the scrollback holds 38\)$/,
    );
    expect(t[1]).toBe("line 63");
    expect(t.at(-1)).toBe("── live from here · above: 38 from the server");
    expect(store.getState().sessions[id]?.timeline.dropped).toBe(0);
  });

  it("reads history once: a reconnect repeats nothing", async () => {
    const s = await reference({ faults: { dropAfter: 5 } });
    const id = s.sessionIds()[0] as string;
    emitNumbered(s, id, "old", 20);
    const { store, controller } = pane(s.url, s.key("member"));
    controller.openStream(id);
    await waitLive(store, id, 5_000);
    emitNumbered(s, id, "new", 12);
    await waitFor(() => texts(store, id).includes("new 12"), 5_000, "every new event");
    // The history may be read after the new events too: then the stream's are held until it
    // has sent what the history holds, and the divider follows them.
    await waitFor(() => entries(store, id).some((e) => e.kind === "divider"), 5_000, "the divider");
    const sub = controller.subscription(id);
    expect(sub?.stats.reconnects).toBeGreaterThanOrEqual(1);
    const events = entries(store, id).filter((e) => e.kind === "output");
    expect(events.map((e) => e.text).filter((x) => /^(old|new) /.test(x))).toEqual([
      ...Array.from({ length: 20 }, (_, i) => `old ${i + 1}`),
      ...Array.from({ length: 12 }, (_, i) => `new ${i + 1}`),
    ]);
    expect(entries(store, id).filter((e) => e.kind === "divider")).toHaveLength(1);
  });
});

describe("client: nothing falls between the history and the stream", () => {
  it("the stream opens first: an event during the history read shows once, one after it follows", async () => {
    const s = await reference({ faults: { noEventIds: true } });
    const id = s.sessionIds()[0] as string;
    s.emit(id, "process_output", { text: "before\n" });
    let liveAtRead: string | undefined;
    const { store, controller } = pane(s.url, s.key("member"), {
      around: async (read) => {
        // The stream is live already: what happens now reaches both the history and the stream.
        liveAtRead = store.getState().sessions[id]?.status.state;
        expect(s.connections()).toBe(1);
        s.emit(id, "prompt_progress", { type: "text", content: "Reading " });
        s.emit(id, "prompt_progress", { type: "text", content: "the config.\n" });
        s.emit(id, "process_output", { text: "during\n" });
        const h = await read();
        // Answered, not yet shown: this one is in the stream only.
        s.emit(id, "process_output", { text: "after\n" });
        await new Promise((done) => setTimeout(done, 50));
        return h;
      },
    });
    controller.openStream(id);
    await waitFor(() => texts(store, id).includes("after"), 5_000, "the event after the read");
    // Held while the history was read, the pane's title said so afterwards.
    expect(liveAtRead).toBe("connecting");
    const t = texts(store, id).filter((x) => x !== "");
    expect(t.filter((x) => x === "during")).toHaveLength(1);
    expect(t.filter((x) => x === "Reading the config.")).toHaveLength(1);
    const divider = t.findIndex((x) => x.startsWith("── live from here"));
    expect(t.indexOf("before")).toBeLessThan(t.indexOf("during"));
    expect(t.indexOf("during")).toBeLessThan(divider);
    expect(divider).toBeLessThan(t.indexOf("after"));
    expect(t[divider]).toBe(
      "── live from here · above: 3 from the server, 3 live events the history already held skipped",
    );
    s.emit(id, "process_output", { text: "later\n" });
    await waitFor(() => texts(store, id).includes("later"), 5_000, "a live event");
  });

  it("output of any shape during the history read shows once: the history's JSON text and the stream's payload are the same output", async () => {
    const s = await reference({ faults: { noEventIds: true } });
    const id = s.sessionIds()[0] as string;
    const { store, controller } = pane(s.url, s.key("member"), {
      around: async (read) => {
        // In both the history (its text: what was printed, or for a shape this service's log
        // does not read, the payload's JSON without the service's `ts`) and the stream (the
        // payload, with its `ts`).
        s.emit(id, "process_output", { pid: 4, note: "\u001b[31mred\u001b[0m end" });
        s.emit(id, "process_output", { stream: "stderr", data: "shape stderr" });
        s.emit(id, "process_output", { fd: 2, output: "shape fd two\n" });
        s.emit(id, "process_output", { line: "shape line" });
        return read();
      },
    });
    await openToDivider({ store, controller }, id);
    await emitLive(s, store, id, "after");
    expect(texts(store, id).filter((x) => x !== "")).toEqual([
      '{"pid":4,"note":"\\u001b[31mred\\u001b[0m end"}',
      "shape stderr",
      '{"fd":2,"output":"shape fd two\\n"}',
      '{"line":"shape line"}',
      "── live from here · above: 4 from the server, 4 live events the history already held skipped",
      "after",
    ]);
  });

  it("a history answered late, past what the stream sent before it dropped: every line once, in order", async () => {
    const s = await reference({ faults: { dropAfter: 5 } });
    const id = s.sessionIds()[0] as string;
    emitNumbered(s, id, "old", 3);
    const { store, controller } = pane(s.url, s.key("member"), {
      around: async (read) => {
        const sub = controller.subscription(id);
        // The stream's next connection is refused with a long Retry-After: it resumes only when
        // told to, after the history is answered.
        s.faults.set({
          statusFor: { path: /\/events$/, status: 503, count: 1 },
          failRetryAfter: "30",
        });
        // The stream sends new 1..5 and drops; new 6..8 happen before the history is read.
        emitNumbered(s, id, "new", 8);
        await waitFor(
          () => sub?.status.state === "reconnecting" && sub.status.delayMs >= 10_000,
          5_000,
          "the refused reconnect",
        );
        const h = await read();
        // Resumed from new 5 (Last-Event-ID): it sends new 6..8 again, after the history's answer.
        sub?.reconnectNow();
        return h;
      },
    });
    controller.openStream(id);
    await waitFor(() => texts(store, id).includes("new 8"), 5_000, "the history");
    await waitLive(store, id, 5_000);
    await emitLive(s, store, id, "new 9");
    expect(oldAndNew(store, id)).toEqual([
      ...numbered("old", 3),
      ...numbered("new", 8),
      expect.stringMatching(
        /^── live from here · above: .*8 live events the history already held skipped$/,
      ),
      "new 9",
    ]);
  });

  it("a line from long ago that happens again live is shown again, not taken for the history's", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    emitCommands(s, id);
    const { store, controller } = pane(s.url, s.key("member"), {
      around: async (read) => {
        const sub = controller.subscription(id);
        const h = await read();
        // After the read: in the stream only, and equal to the history's old first line.
        s.emit(id, "process_output", { text: "$ npm test\n" });
        await waitFor(() => (sub?.stats.events ?? 0) >= 1, 5_000, "the held event");
        return h;
      },
    });
    controller.openStream(id);
    await waitFor(() => texts(store, id).includes("$ git commit"), 5_000, "the history");
    // It could be the start of what the history holds after it: the stream is given the
    // chance to send that...
    expect(controller.readingPast(id)).toBe(true);
    // ...and sends something else: the line is new.
    s.emit(id, "process_output", { text: "2 failed\n" });
    await waitFor(() => texts(store, id).includes("2 failed"), 5_000, "the next event");
    expect(texts(store, id).filter((x) => x !== "")).toEqual([
      ...COMMANDS,
      "── live from here · above: 3 from the server",
      "$ npm test",
      "2 failed",
    ]);
  });

  it("a state change during the history read: shown once, and still heard as news", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    const heard: string[] = [];
    const { store, controller } = pane(s.url, s.key("member"), {
      around: async (read) => {
        const sub = controller.subscription(id);
        await waitLive(store, id, 5_000);
        // On the stream while the history is read, and in the history too.
        s.setState(id, "paused");
        await waitFor(() => (sub?.stats.events ?? 0) >= 1, 5_000, "the held state change");
        return read();
      },
      onStateChange: (sessionId, state) => heard.push(`${sessionId} ${state}`),
    });
    await openToDivider({ store, controller }, id);
    await emitLive(s, store, id, "after");
    expect(texts(store, id)).toEqual([
      "active → paused",
      "── live from here · above: 1 from the server, 1 live event the history already held skipped",
      "after",
    ]);
    // The catalogue is told: the session paused (a list read soon sees what else changed).
    expect(heard).toEqual([`${id} paused`]);
  });

  it("a stream live just as the history is drawn: a new line equal to an older one of the history shows at once", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    emitCommands(s, id);
    const { store, controller } = pane(s.url, s.key("member"), {
      around: async (read) => {
        const h = await read();
        // The history is drawn just as the stream goes live, before it sends anything: its
        // first burst is held to be compared with the history's end.
        await waitLive(store, id, 5_000);
        return h;
      },
    });
    controller.openStream(id);
    await waitFor(() => texts(store, id).includes("$ git commit"), 5_000, "the history");
    // Sent after going live, alone: not a burst that repeats the history, so not held until
    // the stream could have sent what the history holds after that older line (seconds).
    s.emit(id, "process_output", { text: "$ npm test\n" });
    await waitFor(
      () => texts(store, id).filter((x) => x === "$ npm test").length === 2,
      1_500,
      "the new line",
    );
    expect(texts(store, id).filter((x) => x !== "")).toEqual([
      ...COMMANDS,
      "── live from here · above: 3 from the server",
      "$ npm test",
    ]);
  });

  it("a stream that is not live in time: the history is read anyway, and the pane says what may be missing", async () => {
    const s = await reference({
      faults: { statusFor: { path: /\/events$/, status: 503, count: 1 } },
    });
    const id = s.sessionIds()[0] as string;
    s.emit(id, "process_output", { text: "old\n" });
    const { store, controller } = pane(s.url, s.key("member"));
    controller.openStream(id);
    await waitLive(store, id, 10_000);
    await waitFor(
      () => texts(store, id).some((x) => x.startsWith("The stream went live after the history")),
      5_000,
      "the notice",
    );
    const t = texts(store, id);
    expect(t.indexOf("old")).toBeLessThan(t.findIndex((x) => x.startsWith("── live from here")));
    expect(t.find((x) => x.startsWith("The stream went live"))).toMatch(
      /events from \d\d:\d\d(:\d\d)? to \d\d:\d\d(:\d\d)? may be missing\.$/,
    );
  });
  it("a stream live only after the history was read, whose server sends recent events on open: each line once", async () => {
    const s = await reference({
      historyOnOpen: 5,
      faults: { noEventIds: true, statusFor: { path: /\/events$/, status: 503, count: 1 } },
    });
    const id = s.sessionIds()[0] as string;
    emitNumbered(s, id, "old", 3);
    const { store, controller } = pane(s.url, s.key("member"));
    controller.openStream(id);
    await waitLive(store, id, 10_000);
    await emitLive(s, store, id, "new 1");
    // The stream's recent events on open are the history's end: not shown again, and the
    // pane does not say events may be missing (the stream reached back into the history).
    expect(oldAndNew(store, id)).toEqual([
      ...numbered("old", 3),
      "── live from here · above: 3 from the server",
      "new 1",
    ]);
    expect(texts(store, id).some((x) => x.startsWith("The stream went live after"))).toBe(false);
  });
});

describe("client: other servers", () => {
  let scripted: ScriptedServer;

  function sseHead(res: ServerResponse): void {
    res.writeHead(200, { "content-type": "text/event-stream", ...ANNOUNCED_LIMITS });
    res.flushHeaders();
  }

  function isHistory(url: string | undefined): boolean {
    return /\/history(\?|$)/.test(url ?? "");
  }

  /** A pane on ses_x of the scripted server, once it has drawn the divider. */
  async function scriptedPaneToDivider(url: string) {
    const p = pane(url, "k".repeat(20), { capacity: 100 });
    await openToDivider(p, "ses_x");
    return p;
  }

  it("reads the documented entry types, keeps unknown ones and shows malformed ones", async () => {
    scripted = await startScriptedServer();
    stopAfterTest(() => scripted.close());
    const events = [
      { type: "user", message: "add a test", timestamp: "2026-01-01T10:00:00Z", extra: 1 },
      { type: "assistant", message: { content: [{ type: "text", text: "Sure." }] } },
      { type: "tool_use", content: { name: "bash", input: { cmd: "npm test" } } },
      { type: "tool_result", content: "1 passed" },
      { type: "completion", content: "done" },
      { type: "thinking_done" },
      "not an entry",
      { message: "no type" },
    ];
    scripted.fallback((req, res) => {
      if (isHistory(req.url)) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ events, count: events.length, next: null }));
      } else sseHead(res);
    });
    const { store } = await scriptedPaneToDivider(scripted.url);
    const shown = entries(store, "ses_x").map((e) => [
      e.kind,
      e.promptType ?? e.event ?? "",
      e.text,
    ]);
    expect(shown).toEqual([
      ["prompt", "user", "add a test"],
      ["prompt", "", "Sure."],
      ["prompt", "tool_use", 'bash {"cmd":"npm test"}'],
      ["output", "", "1 passed"],
      ["prompt", "completion", "done"],
      ["unknown", "history:thinking_done", '{"type":"thinking_done"}'],
      ["malformed", "history", 'history entry is not an object: "not an entry"'],
      ["malformed", "history", 'history entry has no type: {"message":"no type"}'],
      ["divider", "", "live from here · above: 8 from the server"],
    ]);
    const user = entries(store, "ses_x")[0];
    expect(user?.ts).toBe(Date.parse("2026-01-01T10:00:00Z"));
    // No ?history= on the stream.
    const stream = scripted.seen.find((r) => !isHistory(r.url));
    expect(new URL(stream?.url ?? "/", "http://x").searchParams.has("history")).toBe(false);
  });

  it("a server without the endpoint (404): the pane starts live", async () => {
    scripted = await startScriptedServer();
    stopAfterTest(() => scripted.close());
    scripted.fallback((req, res) => {
      if (isHistory(req.url)) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end('{"detail":"Not Found"}');
      } else {
        sseHead(res);
        res.write('event: process_output\ndata: {"text":"live"}\n\n');
      }
    });
    const { store, controller } = pane(scripted.url, "k".repeat(20), { capacity: 100 });
    controller.openStream("ses_x");
    await waitFor(() => texts(store, "ses_x").includes("live"), 5_000, "the live event");
    // Both mounts of the history were tried once each.
    expect(scripted.seen.filter((r) => isHistory(r.url)).map((r) => r.url)).toEqual([
      "/api/sessions/ses_x/history",
      "/api/cloud/sessions/ses_x/history",
    ]);
    expect(store.getState().sessions.ses_x?.status.state).toBe("live");
    expect(texts(store, "ses_x").some((t) => t.includes("could not be read"))).toBe(false);
  });

  it("a huge history converts no more than the scrollback", async () => {
    scripted = await startScriptedServer();
    stopAfterTest(() => scripted.close());
    const events = Array.from({ length: 200_000 }, (_, i) => ({
      type: "tool_result",
      content: `h ${i + 1}`,
    }));
    const body = JSON.stringify({ events, count: events.length });
    scripted.fallback((req, res) => {
      if (isHistory(req.url)) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(body);
      } else sseHead(res);
    });
    const { store, controller } = pane(scripted.url, "k".repeat(20), { capacity: 100 });
    controller.openStream("ses_x");
    await waitFor(
      () => entries(store, "ses_x").some((e) => e.kind === "divider"),
      10_000,
      "divider",
    );
    const t = texts(store, "ses_x");
    expect(t).toHaveLength(100);
    expect(t[0]).toBe(
      "199902 older entries of the session's history not shown (the scrollback holds 98)",
    );
    expect(t[1]).toBe("h 199903");
    expect(t.at(-1)).toBe("── live from here · above: 98 from the server");
    expect(store.getState().sessions.ses_x?.timeline.dropped).toBe(0);
  });

  /** The agent's log of ses_x on the scripted servers below: what the history answers. */
  const SAID = ["add a test", "run it", "commit"];

  /**
   * A scripted server whose stream goes live at once and sends nothing until the history is
   * answered (`SAID`, after `answerAfterMs`); then `then` gets a way to send the agent's lines
   * on the stream, and the pane's store. Returns the store once the pane has drawn the divider.
   */
  async function historyThenStream(
    answerAfterMs: number,
    then: (send: (content: string) => void, store: StreamsStore) => void,
    /** The entries' time, read when the history is answered (none by default). */
    timestamp?: () => string,
  ) {
    scripted = await startScriptedServer();
    stopAfterTest(() => scripted.close());
    let stream: ServerResponse | null = null;
    const send = (content: string) =>
      stream?.write(
        `event: prompt_progress\ndata: ${JSON.stringify({ type: "user", content })}\n\n`,
      );
    scripted.fallback((req, res) => {
      if (isHistory(req.url)) {
        setTimeout(() => {
          res.writeHead(200, { "content-type": "application/json", ...ANNOUNCED_LIMITS });
          const at = timestamp ? { timestamp: timestamp() } : {};
          const events = SAID.map((message) => ({ type: "user", message, ...at }));
          res.end(JSON.stringify({ events, count: events.length }));
          then(send, p.store);
        }, answerAfterMs);
        return;
      }
      sseHead(res);
      stream = res;
    });
    const p = pane(scripted.url, "k".repeat(20), { capacity: 100 });
    await openToDivider(p, "ses_x");
    return p.store;
  }

  it("a server that sends the history's end on the stream just after its answer: each line once, the divider not kept waiting", async () => {
    let dividerBeforeBurst: boolean | null = null;
    // The stream's recent events, sent a moment after the history's answer, then a new one.
    const store = await historyThenStream(0, (send, shown) =>
      setTimeout(() => {
        dividerBeforeBurst = texts(shown, "ses_x").some((t) => t.startsWith("── live from"));
        for (const content of SAID) send(content);
        setTimeout(() => send("push"), 20);
      }, 60),
    );
    await waitFor(() => texts(store, "ses_x").includes("push"), 5_000, "a live event");
    expect(dividerBeforeBurst).toBe(true);
    expect(texts(store, "ses_x")).toEqual([
      ...SAID,
      "── live from here · above: 3 from the server",
      "push",
    ]);
  });

  it.each([
    ["without times", undefined],
    ["timed after the stream opened", () => new Date().toISOString()],
  ])(
    "a stream live long before a slow history's answer, its events behind the history's (%s): each line once",
    async (_, timestamp) => {
      // Answered well after the stream went live; the stream, behind the service's record,
      // sends the same three only after the answer (a service whose stream polls what it keeps).
      const store = await historyThenStream(
        600,
        (send) =>
          setTimeout(() => {
            for (const content of SAID) send(content);
            setTimeout(() => send("push"), 20);
          }, 400),
        timestamp,
      );
      await waitFor(() => texts(store, "ses_x").includes("push"), 5_000, "a live event");
      expect(texts(store, "ses_x")).toEqual([
        ...SAID,
        "── live from here · above: 3 from the server",
        "push",
      ]);
    },
  );

  it.each([
    // The history's entries are a minute older than the stream (the server's Date on it).
    [
      "whose entries are older than it: a new line equal to the last is shown",
      "commit",
      () => new Date(Date.now() - 60_000).toISOString(),
    ],
    // New lines, the first the same as one further back in the history.
    ["that sends news after it: shown, an older line's equal too", "run it", undefined],
  ])("a stream live long before a slow history's answer %s", async (_, first, timestamp) => {
    const store = await historyThenStream(
      600,
      (send) =>
        setTimeout(() => {
          send(first);
          send("push");
        }, 50),
      timestamp,
    );
    await waitFor(() => texts(store, "ses_x").includes("push"), 5_000, "a live event");
    expect(texts(store, "ses_x")).toEqual([
      ...SAID,
      "── live from here · above: 3 from the server",
      first,
      "push",
    ]);
  });

  it("copes with a server that also sends history on the stream when it has no endpoint", async () => {
    scripted = await startScriptedServer();
    stopAfterTest(() => scripted.close());
    let body = "";
    for (let i = 1; i <= 3000; i++) {
      body += `id: ${i}\nevent: process_output\ndata: {"text":"h ${i}"}\n\n`;
    }
    scripted.fallback((req, res) => {
      if (isHistory(req.url)) {
        res.writeHead(404);
        res.end();
        return;
      }
      sseHead(res);
      res.write(body);
      res.write('event: heartbeat\ndata: {"timestamp":"2024-01-01T00:00:00Z"}\n\n');
    });
    const { store } = await scriptedPaneToDivider(scripted.url);
    const t = texts(store, "ses_x");
    expect(t).toHaveLength(100);
    expect(t[0]).toBe("h 2902");
    expect(t.at(-1)).toBe("── live from here · above: 3000 from the server");
    expect(store.getState().sessions.ses_x?.timeline.dropped).toBe(2901);
  });
});
