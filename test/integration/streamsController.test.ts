import type { IncomingMessage, ServerResponse } from "node:http";
import { Agent } from "undici";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import type { SessionPage } from "../../src/protocol/resources.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { createActionsStore } from "../../src/store/actionsStore.js";
import { createJournalStatus, type SessionJournal } from "../../src/store/history/journal.js";
import { createIdentityStore } from "../../src/store/identityStore.js";
import { createSessionsStore } from "../../src/store/sessionsStore.js";
import { StreamsController } from "../../src/store/streams/streamsController.js";
import { createStreamsStore, type StreamsStore } from "../../src/store/streams/streamsStore.js";
import { serveOnLoopback } from "../helpers/scriptedHttpServer.js";
import { stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";

// The controller over the real SSE client against a loopback server scripted per request.

const KEY = "controller-test-key";
const ESC = "\x1b";

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

interface Loopback {
  baseUrl: string;
  /** Last-Event-ID of each request, in order. */
  lastEventIds: (string | undefined)[];
  paths: string[];
}

afterEach(stopStarted);

async function serve(handler: Handler): Promise<Loopback> {
  const lb: Loopback = { baseUrl: "", lastEventIds: [], paths: [] };
  lb.baseUrl = await serveOnLoopback((req, res) => {
    lb.paths.push(req.url ?? "");
    lb.lastEventIds.push(req.headers["last-event-id"] as string | undefined);
    handler(req, res, lb.paths.length - 1);
  });
  return lb;
}

function sseHead(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
  res.flushHeaders();
}

function item(id: number | null, event: string, data: unknown): string {
  return `${id === null ? "" : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function setup(baseUrl: string, sessionsStore?: ReturnType<typeof createSessionsStore>) {
  const agent = new Agent({ keepAliveTimeout: 1000 });
  const store = createStreamsStore({ flushMs: 5 });
  const controller = new StreamsController({
    config: { baseUrl, apiKey: KEY, dispatcher: agent },
    store,
    ...(sessionsStore ? { sessions: sessionsStore } : {}),
    subscribeOptions: {
      backoffBaseMs: 10,
      maxAttempts: 3,
      watchdog: { floorMs: 50, initialMs: 5000, ceilingMs: 5000 },
    },
  });
  stopAfterTest(async () => {
    await controller.closeAll();
    store.getState().dispose();
    await agent.destroy();
  });
  return { store, controller };
}

function texts(store: StreamsStore, id: string): string[] {
  return (store.getState().sessions[id]?.timeline.toArray() ?? []).map((e) => e.text);
}

const wait = { timeout: 5000, interval: 5 };

describe("StreamsController", () => {
  it("streams events into the store, sanitized once, and shows the stream live", async () => {
    const lb = await serve((_req, res) => {
      sseHead(res);
      res.write(item(1, "prompt_progress", { type: "text", content: "Reading " }));
      res.write(item(2, "prompt_progress", { type: "text", content: "the tests" }));
      res.write(
        item(3, "process_output", {
          text: `${ESC}[32m✓ 212 passed${ESC}[0m${ESC}]52;c;ZXZpbA==\x07${ESC}[2J`,
        }),
      );
      res.write(item(null, "heartbeat", { timestamp: new Date().toISOString() }));
    });
    const { store, controller } = setup(lb.baseUrl);
    controller.openStream("ses_a1");
    expect(store.getState().sessions.ses_a1?.status.state).toBe("connecting");
    await vi.waitFor(() => expect(texts(store, "ses_a1")).toHaveLength(2), wait);
    const a = store.getState().sessions.ses_a1!;
    expect(texts(store, "ses_a1")).toEqual([
      "Reading the tests",
      `${ESC}[32m✓ 212 passed${ESC}[0m`,
    ]);
    expect(a.status.state).toBe("live");
    expect(a.lastEventId).toBe("3");
    await vi.waitFor(
      () => expect(store.getState().sessions.ses_a1!.lastHeartbeatAt).not.toBeNull(),
      wait,
    );
    expect(lb.paths[0]).toBe("/api/cloud/sessions/ses_a1/events");
  });

  it("shows a dropped stream reconnecting and resumes from the last event id", async () => {
    const lb = await serve((_req, res, n) => {
      sseHead(res);
      if (n === 0) {
        res.write(item(7, "file_changed", { path: "src/a.ts", action: "created" }));
        // Let the client read the item before the connection drops.
        setTimeout(() => res.socket?.destroy(), 30);
      } else {
        res.write(item(8, "file_changed", { path: "README.md", action: "modified" }));
      }
    });
    const { store, controller } = setup(lb.baseUrl);
    controller.openStream("ses_a1");
    await vi.waitFor(() => expect(texts(store, "ses_a1")).toContain("modified README.md"), wait);
    expect(lb.lastEventIds).toEqual([undefined, "7"]);
    const t = texts(store, "ses_a1");
    expect(t[0]).toBe("created src/a.ts");
    expect(t[1]).toMatch(/^connection lost \(.+\); reconnecting$/);
    expect(t[2]).toMatch(/^reconnected after \d+s$/);
    expect(store.getState().sessions.ses_a1!.status.state).toBe("live");
  });

  it("reopens a closed stream where it stopped", async () => {
    const lb = await serve((_req, res, n) => {
      sseHead(res);
      res.write(item(n + 1, "prompt_progress", { type: "text", content: `part ${n}\n` }));
    });
    const { store, controller } = setup(lb.baseUrl);
    controller.openStream("ses_a1");
    await vi.waitFor(() => expect(texts(store, "ses_a1")).toEqual(["part 0"]), wait);
    controller.closeStream("ses_a1");
    expect(controller.isOpen("ses_a1")).toBe(false);
    expect(store.getState().sessions.ses_a1).toBeUndefined();
    controller.openStream("ses_a1");
    await vi.waitFor(() => expect(texts(store, "ses_a1")).toEqual(["part 1"]), wait);
    expect(lb.lastEventIds).toEqual([undefined, "1"]);
  });

  it("flags a stream that stopped on an error for attention", async () => {
    const lb = await serve((_req, res) => {
      res.writeHead(403, { "content-type": "application/json" });
      res.end(JSON.stringify({ detail: "Organization mismatch: not org_other" }));
    });
    const { store, controller } = setup(lb.baseUrl);
    controller.openStream("ses_a1");
    await vi.waitFor(
      () => expect(store.getState().sessions.ses_a1!.status.state).toBe("stopped"),
      wait,
    );
    const a = store.getState().sessions.ses_a1!;
    expect(a.attention?.reason).toBe("stopped");
    expect(a.attention?.message).toContain("Organization mismatch");
    expect(a.attention?.message).not.toContain(KEY);
    expect(controller.isOpen("ses_a1")).toBe(false);
    expect(store.getState().attentionVersion).toBe(1);
  });

  it("marks a paused session and updates its row in the session list", async () => {
    const lb = await serve((_req, res) => {
      sseHead(res);
      res.write(item(1, "state_changed", { state: "paused", previous_state: "active" }));
    });
    const sessions = createSessionsStore({
      listSessions: async (): Promise<SessionPage> => ({
        sessions: [{ session_id: "ses_a1", state: "active" }],
        total: 1,
        hasMore: false,
        next: null,
      }),
    });
    await sessions.getState().load();
    const { store, controller } = setup(lb.baseUrl, sessions);
    controller.openStream("ses_a1");
    controller.openStream("ses_b2");
    await vi.waitFor(
      () => expect(store.getState().sessions.ses_a1!.attention?.reason).toBe("paused"),
      wait,
    );
    expect(sessions.getState().items[0]!.state).toBe("paused");
    expect(controller.openIds.sort()).toEqual(["ses_a1", "ses_b2"]);
    await controller.closeAll();
    expect(controller.openIds).toEqual([]);
    expect(store.getState().sessions.ses_b2!.status).toMatchObject({
      state: "stopped",
      reason: "closed",
    });
  });
});

// ---------------------------------------------------------------------------------------------
// The stores fed by the reference service over real loopback HTTP.

describe("stores against the reference service", () => {
  async function reference(opts: Parameters<typeof startServer>[0] = {}) {
    const server = await startServer({
      paceMs: 0,
      seed: 7,
      heartbeatMs: 40,
      // A generous limit the service announces: the client's request budget learns it (without
      // the headers it would pace at the documented 100 a minute).
      rateLimit: { limit: 100_000, windowMs: 60_000 },
      ...opts,
    });
    stopAfterTest(() => server.close());
    return server;
  }

  function clientFor(server: ReferenceServer, keyName: string) {
    const agent = new Agent({ keepAliveTimeout: 1000 });
    stopAfterTest(() => agent.destroy());
    return {
      agent,
      config: { baseUrl: server.url, apiKey: server.key(keyName), dispatcher: agent },
      api: new ApiClient({
        baseUrl: server.url,
        apiKey: server.key(keyName),
        dispatcher: agent,
        backoffBaseMs: 10,
      }),
    };
  }

  it("loads identity and sessions, then streams two sessions into their own slices", async () => {
    const server = await reference();
    const { api, config } = clientFor(server, "owner");
    const identity = createIdentityStore();
    await identity.getState().load(api);
    expect(identity.getState().error).toBeNull();
    expect(identity.getState().keyInfo?.role).toBe("owner");

    const sessions = createSessionsStore(api, { pageSize: 2 });
    await sessions.getState().load();
    expect(
      sessions
        .getState()
        .items.map((s) => s.session_id)
        .sort(),
    ).toEqual(server.sessionIds().sort());

    const [a, b] = server.sessionIds() as [string, string];
    const store = createStreamsStore({ flushMs: 5 });
    const controller = new StreamsController({ config, store, sessions });
    stopAfterTest(async () => {
      await controller.closeAll();
      store.getState().dispose();
    });
    controller.openStream(a);
    controller.openStream(b);
    await vi.waitFor(() => {
      expect(store.getState().sessions[a]!.status.state).toBe("live");
      expect(store.getState().sessions[b]!.status.state).toBe("live");
    }, wait);
    server.emit(a, "process_output", {
      text: `${ESC}[31mFAIL${ESC}[0m${ESC}]52;c;ZXZpbA==\x07${ESC}]0;pwned\x07${ESC}[2J${ESC}[3;1H ok`,
    });
    server.emit(a, "prompt_progress", { type: "text", content: "Fixing " });
    server.emit(a, "prompt_progress", { type: "text", content: "the test." });
    await vi.waitFor(
      () => expect(texts(store, a).filter((t) => t.includes("the test"))).toHaveLength(1),
      wait,
    );
    expect(texts(store, a)).toContain(`${ESC}[31mFAIL${ESC}[0m ok`);
    expect(texts(store, a)).toContain("Fixing the test.");
    // b saw heartbeats at most, never a's events.
    expect(
      store
        .getState()
        .sessions[b]!.timeline.toArray()
        .map((e) => e.text),
    ).not.toContain("Fixing the test.");

    // setState emits nothing when the session is already in that state.
    server.setState(a, "active");
    server.setState(a, "paused");
    await vi.waitFor(
      () => expect(store.getState().sessions[a]!.attention?.reason).toBe("paused"),
      wait,
    );
    expect(sessions.getState().items.find((s) => s.session_id === a)?.state).toBe("paused");
  });

  it("reconnects after the service drops the stream, without losing or repeating events", async () => {
    const server = await reference();
    server.faults.set({ dropAfter: 5 });
    const { config } = clientFor(server, "member");
    const [a] = server.sessionIds() as [string];
    const store = createStreamsStore({ flushMs: 5 });
    const controller = new StreamsController({
      config,
      store,
      subscribeOptions: { backoffBaseMs: 10 },
    });
    stopAfterTest(async () => {
      await controller.closeAll();
      store.getState().dispose();
    });
    controller.openStream(a);
    await vi.waitFor(() => expect(store.getState().sessions[a]!.status.state).toBe("live"), wait);
    for (let i = 0; i < 12; i++)
      server.emit(a, "file_changed", { path: `f${i}.ts`, action: "created" });
    const files = () =>
      (store.getState().sessions[a]?.timeline.toArray() ?? [])
        .filter((e) => e.kind === "file")
        .map((e) => e.path);
    await vi.waitFor(() => expect(files()).toHaveLength(12), wait);
    expect(files()).toEqual(Array.from({ length: 12 }, (_, i) => `f${i}.ts`));
    expect(texts(store, a).some((t) => t.startsWith("connection lost"))).toBe(true);
  });

  it("applies a flood in few batches with every event kept in order", async () => {
    const server = await reference();
    const { config } = clientFor(server, "owner");
    const [a] = server.sessionIds() as [string];
    const store = createStreamsStore({ flushMs: 16, capacity: 100_000 });
    const controller = new StreamsController({ config, store });
    stopAfterTest(async () => {
      await controller.closeAll();
      store.getState().dispose();
    });
    controller.openStream(a);
    await vi.waitFor(() => expect(store.getState().sessions[a]!.status.state).toBe("live"), wait);
    let notifications = 0;
    store.subscribe(() => {
      notifications++;
    });
    const before = store.getState().sessions[a]!.totalEvents;
    const result = await server.flood([a], 5000, 300);
    await vi.waitFor(
      () => expect(store.getState().sessions[a]!.totalEvents - before).toBe(result.sent),
      wait,
    );
    expect(result.sent).toBeGreaterThan(500);
    // At most one notification per 16 ms frame, however many events arrived.
    expect(notifications).toBeLessThan(result.sent / 10);
    const seqs = store
      .getState()
      .sessions[a]!.timeline.toArray()
      .map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
  });

  it("marks a stream refused for an expired key, and shows git's 403 verbatim", async () => {
    const server = await reference();
    const [a] = server.sessionIds() as [string];
    const expired = clientFor(server, "expired");
    const store = createStreamsStore({ flushMs: 5 });
    const controller = new StreamsController({ config: expired.config, store });
    stopAfterTest(async () => {
      await controller.closeAll();
      store.getState().dispose();
    });
    controller.openStream(a);
    await vi.waitFor(
      () => expect(store.getState().sessions[a]!.attention?.reason).toBe("stopped"),
      wait,
    );
    expect(store.getState().sessions[a]!.attention?.message).toMatch(/expired|invalid/i);

    const readonly = clientFor(server, "readonly");
    const actions = createActionsStore();
    const outcome = await actions
      .getState()
      .run({ kind: "push" }, a, (signal) => readonly.api.git(a, { kind: "push" }, signal));
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.code).toBe("missing_scope");
    expect(outcome.error?.requiredScope).toBe("sessions:write");
    expect(outcome.message).not.toContain(server.key("readonly"));
    expect(actions.getState().last).toBe(outcome);
  });
});

describe("a journal that cannot be read", () => {
  it("says so in the pane, its reason made safe, and goes live", async () => {
    const lb = await serve((_req, res) => {
      sseHead(res);
      res.write(item(1, "prompt_progress", { type: "text", content: "live after all\n" }));
    });
    const agent = new Agent({ keepAliveTimeout: 1000 });
    const store = createStreamsStore({ flushMs: 5 });
    // A journal breaking its promise never to reject (a disk gone, a bug): the pane must not
    // wait for it forever.
    const journal: SessionJournal = {
      load: () =>
        Promise.reject(new Error(`EIO: i/o error, read ${ESC}]0;pwned\x07${ESC}[2J\nses.ndjson`)),
      record: () => {},
      closeSession: () => {},
      clean: (text) => text,
      status: createJournalStatus({ state: "on", dir: "/journal", reason: null }),
    };
    const controller = new StreamsController({
      config: { baseUrl: lb.baseUrl, apiKey: KEY, dispatcher: agent },
      store,
      journal,
      subscribeOptions: { backoffBaseMs: 10, maxAttempts: 3 },
    });
    stopAfterTest(async () => {
      await controller.closeAll();
      store.getState().dispose();
      await agent.destroy();
    });
    controller.openStream("ses_j");
    await vi.waitFor(() => expect(texts(store, "ses_j")).toContain("live after all"), {
      timeout: 5000,
    });
    const shown = texts(store, "ses_j");
    expect(shown[0]).toBe(
      "The journal could not be read (EIO: i/o error, read  ⏎ ses.ndjson): only what the server sends is shown.",
    );
    expect(store.getState().sessions.ses_j?.status.state).toBe("live");
    expect(lb.paths.map((p) => new URL(p, "http://x").pathname)).toEqual([
      "/api/cloud/sessions/ses_j/events",
    ]);
  });
});

describe("StreamsController: a key without sessions:prompt", () => {
  async function readOnlyPane(liveAllowed: (() => boolean) | undefined, firstRefused = false) {
    const ref = await startServer({
      paceMs: 0,
      seed: 3,
      heartbeatMs: 60_000,
      // The stream's first connection answered 503: not live when the history is read.
      ...(firstRefused
        ? { faults: { statusFor: { path: /\/events$/, status: 503, count: 1 } } }
        : {}),
    });
    stopAfterTest(() => ref.close());
    const id = ref.sessionIds()[0] as string;
    ref.emit(id, "prompt_progress", { type: "user", content: "what changed?" });
    ref.emit(id, "process_output", { text: "3 files\n" });
    const key = ref.key("listonly");
    const agent = new Agent({ keepAliveTimeout: 1000 });
    const api = new ApiClient({ baseUrl: ref.url, apiKey: key, dispatcher: agent });
    const sessions = createSessionsStore(api);
    const store = createStreamsStore({ flushMs: 5 });
    const controller = new StreamsController({
      config: { baseUrl: ref.url, apiKey: key, dispatcher: agent },
      transport: api.transport,
      store,
      sessions,
      fetchHistory: (sid) => api.sessionHistory(sid),
      ...(liveAllowed ? { liveAllowed } : {}),
      recordPollMs: 40,
      subscribeOptions: { backoffBaseMs: 10, maxAttempts: 3 },
    });
    stopAfterTest(async () => {
      await controller.closeAll();
      store.getState().dispose();
      await agent.destroy();
    });
    return { ref, id, store, controller };
  }

  for (const [known, firstRefused] of [
    [true, false],
    [false, false],
    [false, true],
  ] as const) {
    it(`shows the history, says once that live events need sessions:prompt, and follows the record (scopes ${known ? "known" : `unknown: the stream's 403${firstRefused ? ", after a 503 that kept it from being live before the history" : ""}`})`, async () => {
      const { ref, id, store, controller } = await readOnlyPane(
        known ? () => false : undefined,
        firstRefused,
      );
      controller.openStream(id);
      await vi.waitFor(
        () =>
          expect(texts(store, id).some((t) => t.includes("live events need sessions:prompt"))).toBe(
            true,
          ),
        wait,
      );
      expect(controller.isOpen(id)).toBe(true);
      // Known scopes: no stream was opened at all.
      if (known) expect(ref.connections()).toBe(0);
      const before = ref.requestCounts().requests;
      await new Promise((r) => setTimeout(r, 150));
      ref.setState(id, "paused");
      await vi.waitFor(
        () =>
          expect(
            store
              .getState()
              .sessions[id]?.timeline.toArray()
              .some((e) => e.kind === "state" && e.state === "paused"),
          ).toBe(true),
        wait,
      );
      const t = texts(store, id);
      expect(t).toContain("what changed?");
      expect(t).toContain("3 files");
      expect(t.filter((x) => x.includes("live events need sessions:prompt"))).toHaveLength(1);
      const slice = store.getState().sessions[id];
      expect(slice?.status.state).toBe("stopped");
      // Not an error: the stream's stop asks for no attention (a state change may).
      expect(slice?.attention?.reason).not.toBe("stopped");
      // The record was read again and again, through the budget, and nothing asked the stream
      // when the scopes were known.
      expect(ref.requestCounts().requests).toBeGreaterThan(before);
      controller.closeStream(id);
      expect(controller.isOpen(id)).toBe(false);
      const after = ref.requestCounts().requests;
      await new Promise((r) => setTimeout(r, 120));
      expect(ref.requestCounts().requests).toBe(after);
    });
  }
});
