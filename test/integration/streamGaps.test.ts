import type { IncomingMessage, ServerResponse } from "node:http";
import { Agent } from "undici";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import {
  type StreamNotice,
  type StreamStatus,
  subscribeToSession,
} from "../../src/client/eventStream.js";
import type { SessionEvent } from "../../src/protocol/events.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { createSessionsStore } from "../../src/store/sessionsStore.js";
import { StreamsController } from "../../src/store/streams/streamsController.js";
import { createStreamsStore } from "../../src/store/streams/streamsStore.js";
import { ndjson, runCli, tempConfigHome } from "../helpers/cli.js";
import { serveOnLoopback } from "../helpers/scriptedHttpServer.js";
import { stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";

/**
 * Streams that send no ids (as the real service documents) and servers that replay what the
 * client already has: the client says where events may be missing, reads the session again,
 * and drops and counts duplicates instead of showing them twice.
 */

const KEY = "stream-gap-test-key";
afterEach(stopStarted);

interface Loopback {
  baseUrl: string;
  /** Per request: path and Last-Event-ID. */
  requests: { path: string; lastEventId: string | undefined }[];
}

/** A loopback server; `handler` gets the number of the request among those to `path`. */
async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, n: number) => void,
): Promise<Loopback> {
  const lb: Loopback = { baseUrl: "", requests: [] };
  let streams = 0;
  lb.baseUrl = await serveOnLoopback((req, res) => {
    lb.requests.push({
      path: req.url ?? "",
      lastEventId: req.headers["last-event-id"] as string | undefined,
    });
    handler(req, res, req.url?.endsWith("/events") ? streams++ : -1);
  });
  return lb;
}

function sseHead(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.flushHeaders();
}

function item(id: string | null, text: string): string {
  const data = JSON.stringify({ type: "text", content: text });
  return `${id === null ? "" : `id: ${id}\n`}event: prompt_progress\ndata: ${data}\n\n`;
}

interface Watched {
  events: SessionEvent[];
  statuses: StreamStatus[];
  notices: StreamNotice[];
  /** Statuses and notices in the order they came. */
  order: string[];
  sub: ReturnType<typeof subscribeToSession>;
}

function watch(baseUrl: string, opts: { now?: () => number } = {}): Watched {
  const agent = new Agent({ keepAliveTimeout: 1000 });
  const w: Omit<Watched, "sub"> = { events: [], statuses: [], notices: [], order: [] };
  const sub = subscribeToSession({
    config: { baseUrl, apiKey: KEY, dispatcher: agent },
    sessionId: "ses_gap1",
    backoffBaseMs: 5,
    maxDelayMs: 50,
    ...(opts.now ? { now: opts.now } : {}),
    onEvent: (ev) => w.events.push(ev),
    onStatus: (s) => {
      w.statuses.push(s);
      w.order.push(s.state);
    },
    onNotice: (n) => {
      w.notices.push(n);
      w.order.push(n.kind);
    },
  });
  stopAfterTest(async () => {
    sub.close();
    await sub.done;
    await agent.destroy();
  });
  return { ...w, sub };
}

const texts = (w: Watched) =>
  w.events.map((e) => (e.kind === "prompt_progress" ? e.data.content : `?${e.kind}`));
const wait = { timeout: 5000, interval: 5 };

describe("a stream without ids that drops", () => {
  it("announces a gap from the last bytes received to the moment it is live again", async () => {
    const lb = await serve((_req, res, n) => {
      sseHead(res);
      if (n === 0) res.end(item(null, "one") + item(null, "two"));
      else res.write(item(null, "three"));
    });
    let clock = 1000;
    const w = watch(lb.baseUrl, { now: () => ++clock });
    let activityAfterTwo: number | null = null;
    await vi.waitFor(() => {
      if (texts(w).length >= 2 && activityAfterTwo === null) {
        activityAfterTwo = w.sub.lastActivityAt;
      }
      expect(texts(w)).toEqual(["one", "two", "three"]);
    }, wait);
    expect(w.notices).toHaveLength(1);
    const gap = w.notices[0] as Extract<StreamNotice, { kind: "gap" }>;
    expect(gap.kind).toBe("gap");
    expect(gap.from).toBe(activityAfterTwo);
    const live = w.statuses.filter((s) => s.state === "live");
    expect(gap.to).toBe((live[1] as Extract<StreamStatus, { state: "live" }>).since);
    expect(gap.from).toBeLessThan(gap.to);
    // Told just before the "live" it belongs to.
    expect(w.order.slice(w.order.indexOf("gap"), w.order.indexOf("gap") + 2)).toEqual([
      "gap",
      "live",
    ]);
    // Nothing to resume from: no Last-Event-ID was sent.
    expect(lb.requests.map((r) => r.lastEventId)).toEqual([undefined, undefined]);
  });

  it("a stream with ids resumes instead: no gap", async () => {
    const lb = await serve((_req, res, n) => {
      sseHead(res);
      if (n === 0) res.end(item("1", "one") + item("2", "two"));
      else res.write(item("3", "three"));
    });
    const w = watch(lb.baseUrl);
    await vi.waitFor(() => expect(texts(w)).toEqual(["one", "two", "three"]), wait);
    expect(w.notices).toEqual([]);
    expect(lb.requests.map((r) => r.lastEventId)).toEqual([undefined, "2"]);
  });
});

describe("a server that replays what the client already has", () => {
  it.each([
    ["integer ids", ["1", "2", "3", "4"]],
    ["opaque ids", ["evt-q", "evt-b", "evt-x", "evt-k"]],
  ])("drops and counts the duplicates (%s)", async (_what, ids) => {
    const [a, b, c, d] = ids as [string, string, string, string];
    const lb = await serve((_req, res, n) => {
      sseHead(res);
      // Whatever Last-Event-ID says, every connection starts from the beginning.
      if (n === 0) res.end(item(a, "a") + item(b, "b") + item(c, "c"));
      else res.write(item(a, "a") + item(b, "b") + item(c, "c") + item(d, "d"));
    });
    const w = watch(lb.baseUrl);
    await vi.waitFor(() => expect(texts(w)).toEqual(["a", "b", "c", "d"]), wait);
    expect(w.notices).toEqual([{ kind: "duplicates", count: 3 }]);
    expect(w.sub.stats.duplicates).toBe(3);
    expect(w.sub.lastEventId).toBe(d);
    expect(lb.requests[1]?.lastEventId).toBe(c);
  });

  it("a server that honours Last-Event-ID loses nothing to the duplicate check", async () => {
    const lb = await serve((_req, res, n) => {
      sseHead(res);
      if (n === 0) res.end(item("7", "a") + item("8", "b"));
      else res.write(item("9", "c") + item("10", "d"));
    });
    const w = watch(lb.baseUrl);
    await vi.waitFor(() => expect(texts(w)).toEqual(["a", "b", "c", "d"]), wait);
    expect(w.notices).toEqual([]);
    expect(w.sub.stats.duplicates).toBe(0);
  });
});

describe("the streams controller after a gap", () => {
  it("writes a gap marker in the pane and reads the session again", async () => {
    const lb = await serve((req, res, n) => {
      if (req.url === "/api/sessions/ses_gap1") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ id: "ses_gap1", name: "Gap", state: "error" }));
        return;
      }
      sseHead(res);
      if (n === 0) res.end(item(null, "before"));
      else res.write(item(null, "after"));
    });
    const agent = new Agent({ keepAliveTimeout: 1000 });
    const config = { baseUrl: lb.baseUrl, apiKey: KEY, dispatcher: agent };
    const client = new ApiClient({ ...config, maxAttempts: 1 });
    const sessions = createSessionsStore({
      listSessions: async () => ({
        sessions: [{ session_id: "ses_gap1", state: "active" }],
        total: 1,
        hasMore: false,
        next: null,
      }),
      getSession: (id, signal) => client.getSession(id, signal),
    });
    await sessions.getState().load();
    const store = createStreamsStore({ flushMs: 5 });
    const controller = new StreamsController({
      config,
      store,
      sessions,
      subscribeOptions: { backoffBaseMs: 5, maxDelayMs: 50 },
    });
    stopAfterTest(async () => {
      await controller.closeAll();
      store.getState().dispose();
      await agent.destroy();
    });
    controller.openStream("ses_gap1");
    await vi.waitFor(() => {
      const s = store.getState().sessions.ses_gap1;
      expect(s?.attention?.reason).toBe("error");
    }, wait);
    const s = store.getState().sessions.ses_gap1;
    const lines = s?.timeline.toArray().map((e) => `${e.kind}: ${e.text}`) ?? [];
    const marker = lines.findIndex((l) => l.startsWith("notice: reconnected — events between"));
    expect(marker).toBeGreaterThan(lines.indexOf("prompt: before"));
    expect(lines[marker]).toMatch(
      /^notice: reconnected — events between \d\d:\d\d:\d\d and \d\d:\d\d:\d\d may be missing$/,
    );
    expect(s?.gaps).toBe(1);
    // The record was read again: the list and the pane show the state it is in now.
    expect(lb.requests.map((r) => r.path)).toContain("/api/sessions/ses_gap1");
    expect(sessions.getState().items[0]?.state).toBe("error");
    expect(s?.sessionState).toBe("error");
  });
});

describe("watch on the reference service", () => {
  let ref: ReferenceServer | null = null;
  const cfg = tempConfigHome();
  afterEach(async () => {
    await ref?.close();
    ref = null;
  });
  afterAll(() => cfg.cleanup());

  const env = (s: ReferenceServer) => ({
    XDG_CONFIG_HOME: cfg.dir,
    AGENT_SESSIONS_BASE_URL: s.url,
    AGENT_SESSIONS_API_KEY: s.key("member"),
  });

  /**
   * Runs watch; `step` is called with everything written so far whenever the child writes,
   * and drives the service (bounded by runCli's timeout).
   */
  function runWatch(
    s: ReferenceServer,
    args: string[],
    step: (out: string, err: string) => void,
  ): ReturnType<typeof runCli> {
    let out = "";
    let err = "";
    return runCli(["watch", ...args], {
      env: env(s),
      timeoutMs: 20_000,
      onSpawn: (child) => {
        child.stdout?.on("data", (d: Buffer) => {
          out += d.toString();
          step(out, err);
        });
        child.stderr?.on("data", (d: Buffer) => {
          err += d.toString();
          step(out, err);
        });
      },
    });
  }

  it("--json: an id-less stream that drops gives a gap line, then the session read again", async () => {
    ref = await startServer({ seed: 5, paceMs: 0, sessionCount: 1 });
    const s = ref;
    const id = s.sessionIds()[0] as string;
    s.faults.set({ noEventIds: true, dropAfter: 1 });
    let sent = 0;
    const r = await runWatch(s, [id, "--json", "--max-events", "2"], (out, err) => {
      const lives = err.split("\n").filter((l) => l.includes('"status":"live"')).length;
      if (lives === 1 && sent === 0) {
        sent = 1;
        s.emit(id, "prompt_progress", { type: "text", content: "first" });
      }
      if (out.includes('"event":"session"') && sent === 1) {
        sent = 2;
        s.faults.set({ dropAfter: null });
        s.emit(id, "prompt_progress", { type: "text", content: "second" });
      }
    });
    expect(r.code).toBe(0);
    const lines = ndjson(r.stdout);
    expect(lines.map((l) => (l.gap ? "gap" : l.event))).toEqual([
      "prompt_progress",
      "gap",
      "session",
      "prompt_progress",
    ]);
    const gap = lines[1] as { session_id: string; gap: boolean; from: string; to: string };
    expect(gap.session_id).toBe(id);
    expect(Date.parse(gap.from)).toBeLessThanOrEqual(Date.parse(gap.to));
    expect(lines[2]).toMatchObject({ session_id: id, data: { id, state: "active" } });
    // No ids: nothing identifies an event, so none carries one.
    expect(lines.filter((l) => l.event === "prompt_progress").map((l) => l.id)).toEqual([
      null,
      null,
    ]);
  });

  it("plain: the gap marker line and the state read again", async () => {
    ref = await startServer({ seed: 5, paceMs: 0, sessionCount: 1 });
    const s = ref;
    const id = s.sessionIds()[0] as string;
    s.faults.set({ noEventIds: true, dropAfter: 1 });
    let sent = 0;
    const r = await runWatch(s, [id, "--max-events", "2"], (out, err) => {
      if (err.includes(`${id}: live`) && sent === 0) {
        sent = 1;
        s.emit(id, "prompt_progress", { type: "text", content: "first" });
      }
      if (out.includes("read again after the gap") && sent === 1) {
        sent = 2;
        s.faults.set({ dropAfter: null });
        s.emit(id, "prompt_progress", { type: "text", content: "second" });
      }
    });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    // One session watched: no session column; the gap and state lines start like the events'.
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d prompt +first$/);
    expect(lines[1]).toMatch(
      /^\d\d:\d\d:\d\d gap {4}reconnected — events between \d\d:\d\d:\d\d and \d\d:\d\d:\d\d may be missing$/,
    );
    expect(lines[2]).toMatch(/^\d\d:\d\d:\d\d state {2}now active \(read again after the gap\)$/);
    expect(lines[3]).toMatch(/^\d\d:\d\d:\d\d prompt +second$/);
  });

  it("--json: a server replaying from the start shows each event once and counts the rest", async () => {
    ref = await startServer({ seed: 5, paceMs: 0, sessionCount: 1 });
    const s = ref;
    const id = s.sessionIds()[0] as string;
    for (const t of ["a", "b", "c"]) s.emit(id, "prompt_progress", { type: "text", content: t });
    s.faults.set({ ignoreLastEventId: true });
    let step = 0;
    const r = await runWatch(s, [id, "--json", "--max-events", "5"], (out, err) => {
      const events = out.split("\n").filter((l) => l.includes('"event":"prompt_progress"'));
      if (step === 0 && events.length === 3) {
        step = 1;
        // The next event is the last this connection carries; the service then replays all.
        s.faults.set({ dropAfter: 4 });
        s.emit(id, "prompt_progress", { type: "text", content: "d" });
        s.faults.set({ dropAfter: null });
      }
      const lives = err.split("\n").filter((l) => l.includes('"status":"live"')).length;
      if (step === 1 && lives === 2) {
        step = 2;
        s.emit(id, "prompt_progress", { type: "text", content: "e" });
      }
    });
    expect(r.code).toBe(0);
    const events = ndjson(r.stdout);
    expect(events.map((e) => e.id)).toEqual(["1", "2", "3", "4", "5"]);
    expect(events.map((e) => (e.data as { content: string }).content)).toEqual([
      "a",
      "b",
      "c",
      "d",
      "e",
    ]);
    expect(ndjson(r.stderr).filter((l) => "duplicates_dropped" in l)).toEqual([
      { session_id: id, duplicates_dropped: 4 },
    ]);
  });
});
