import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Agent } from "undici";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  HttpError,
  InvalidKeyError,
  MalformedResponseError,
  MissingScopeError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
} from "../../src/client/errors.js";
import {
  type StreamStatus,
  type SubscribeOptions,
  type Subscription,
  subscribeToSession,
} from "../../src/client/eventStream.js";
import { ServiceRoutes } from "../../src/client/routes.js";
import { Transport } from "../../src/client/transport.js";
import { PATHS, type SessionEvent } from "../../src/protocol/index.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import {
  type ScriptedServer,
  type SeenRequest,
  startScriptedServer,
} from "../helpers/scriptedHttpServer.js";
import { stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";

const SESSION = "ses_test1";
/** The compiled module, as the published package runs it (npm run build). */
const BUILT_EVENT_STREAM = join(
  import.meta.dirname,
  "..",
  "..",
  "dist",
  "client",
  "eventStream.js",
);
const KEY = "test-key-do-not-print";

// ---------------------------------------------------------------------------------------------
// Scripted loopback servers (the shared helper): each request goes to the test's handler with
// its index.

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

afterEach(stopStarted);

async function serve(handler: Handler): Promise<ScriptedServer> {
  const srv = await startScriptedServer();
  srv.fallback((req, res, _body, n) => handler(req, res, n));
  stopAfterTest(srv.close);
  return srv;
}

/** The Last-Event-ID a request carried. */
function lastIdOf(r: SeenRequest | undefined): string | undefined {
  return r?.headers["last-event-id"] as string | undefined;
}

function sseHead(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
  res.flushHeaders();
}

function item(id: number | string | null, event: string, data: unknown): string {
  const idLine = id === null ? "" : `id: ${id}\n`;
  return `${idLine}event: ${event}\ndata: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

function progress(id: number | null, content = `step ${id}`): string {
  return item(id, "prompt_progress", { type: "text", content });
}

function heartbeat(): string {
  return item(null, "heartbeat", { timestamp: new Date().toISOString() });
}

function jsonError(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

// ---------------------------------------------------------------------------------------------
// Subscribing with fast, deterministic settings.

interface Watched {
  sub: Subscription;
  events: SessionEvent[];
  statuses: StreamStatus[];
}

function watch(baseUrl: string, extra: Partial<SubscribeOptions> = {}): Watched {
  const agent = new Agent({ keepAliveTimeout: 1000 });
  const events: SessionEvent[] = [];
  const statuses: StreamStatus[] = [];
  const sub = subscribeToSession({
    config: { baseUrl, apiKey: KEY, dispatcher: agent },
    sessionId: SESSION,
    onEvent: (e) => events.push(e),
    onStatus: (s) => statuses.push(s),
    backoffBaseMs: 10,
    maxAttempts: 8,
    random: () => 0.5, // no jitter: 1 - 0.2 + 2 * 0.2 * 0.5 = 1
    watchdog: { floorMs: 50, initialMs: 2000, ceilingMs: 5000 },
    ...extra,
  });
  stopAfterTest(async () => {
    sub.close();
    await agent.destroy();
  });
  return { sub, events, statuses };
}

async function waitFor(cond: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function reconnects(w: Watched): Extract<StreamStatus, { state: "reconnecting" }>[] {
  return w.statuses.filter(
    (s): s is Extract<StreamStatus, { state: "reconnecting" }> => s.state === "reconnecting",
  );
}

function idsOf(events: SessionEvent[]): (string | null)[] {
  return events.filter((e) => e.kind !== "heartbeat").map((e) => e.id);
}

// ---------------------------------------------------------------------------------------------

describe("event stream: connecting and reading", () => {
  it.each([
    ["its Date header", "Sat, 28 Nov 2026 10:41:07 GMT", Date.UTC(2026, 10, 28, 10, 41, 7)],
    ["no readable Date", "yesterday-ish", undefined],
    ["an absurd Date header", `Sat, 28 Nov 2026 10:41:07 GMT${" ".repeat(5000)}x`, undefined],
  ])("says the server's time at going live from %s", async (_, date, expected) => {
    const srv = await serve((_req, res) => {
      res.sendDate = false;
      res.writeHead(200, { "content-type": "text/event-stream", date });
      res.flushHeaders();
      res.write(heartbeat());
    });
    const w = watch(srv.url);
    await waitFor(() => w.events.length === 1, "a heartbeat");
    const live = w.statuses.find((s) => s.state === "live");
    expect(live && "serverTime" in live ? live.serverTime : undefined).toBe(expected);
  });

  it("asks for an event stream with the key, publishes connecting → live, delivers events", async () => {
    const srv = await serve((_req, res) => {
      sseHead(res);
      res.write(
        progress(1) +
          heartbeat() +
          item(2, "state_changed", { state: "paused", previous_state: "active" }),
      );
    });
    const w = watch(srv.url);
    await waitFor(() => w.events.length === 3, "three events");
    const r = srv.seen[0];
    expect(r?.url).toBe(PATHS.events(SESSION));
    expect(r?.headers.accept).toBe("text/event-stream");
    expect(r?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(r?.headers["user-agent"]).toMatch(/^agent-sessions-tui\//);
    expect(lastIdOf(r)).toBeUndefined();
    expect(w.events.map((e) => e.kind)).toEqual(["prompt_progress", "heartbeat", "state_changed"]);
    expect(w.statuses.map((s) => s.state)).toEqual(["connecting", "live"]);
    expect(w.sub.status.state).toBe("live");
    expect(w.sub.lastEventId).toBe("2");
    expect(w.sub.lastActivityAt).not.toBeNull();
    expect(w.sub.stats.events).toBe(3);
    expect(w.sub.stats.bytes).toBeGreaterThan(100);
  });

  it("parses the same events whatever the TCP chunking and line endings", async () => {
    const text =
      ": hi\n" +
      progress(1, "Größe – 日本語 🎉") +
      heartbeat() +
      item(2, "process_output", { text: "ok ✓" }) +
      item(3, "file_changed", { path: "ü/ß.ts", action: "created" });
    const variants = {
      lf: text,
      crlf: text.replace(/\n/g, "\r\n"),
      cr: text.replace(/\n/g, "\r"),
    };
    for (const [name, body] of Object.entries(variants)) {
      const bytes = Buffer.from(body, "utf8");
      const srv = await serve((_req, res) => {
        sseHead(res);
        res.socket?.setNoDelay(true);
        // Odd-sized pieces, each its own write, so boundaries fall inside lines and characters.
        let i = 0;
        let size = 1;
        const step = () => {
          if (i >= bytes.length || res.destroyed) return;
          res.write(bytes.subarray(i, i + size), () => setImmediate(step));
          i += size;
          size = (size % 7) + 1;
        };
        step();
      });
      const w = watch(srv.url);
      await waitFor(() => w.events.length === 4, `four events (${name})`);
      expect(
        w.events.map((e) => e.kind),
        name,
      ).toEqual(["prompt_progress", "heartbeat", "process_output", "file_changed"]);
      expect(w.events[0], name).toMatchObject({ data: { content: "Größe – 日本語 🎉" } });
      expect(w.events[3], name).toMatchObject({ id: "3", data: { path: "ü/ß.ts" } });
      w.sub.close();
    }
  });

  it("keeps malformed JSON visible and goes on; unknown event names are delivered", async () => {
    const srv = await serve((_req, res) => {
      sseHead(res);
      res.write(
        progress(1) +
          item(2, "prompt_progress", '{"type":"text","content": nope}') +
          item(3, "brand_new_kind", { x: 1 }) +
          progress(4),
      );
    });
    const w = watch(srv.url);
    await waitFor(() => w.events.length === 4, "four events");
    expect(w.events.map((e) => e.kind)).toEqual([
      "prompt_progress",
      "malformed",
      "unknown",
      "prompt_progress",
    ]);
    expect(w.events[1]).toMatchObject({
      event: "prompt_progress",
      id: "2",
      raw: '{"type":"text","content": nope}',
    });
    expect(w.events[2]).toMatchObject({ event: "brand_new_kind", data: { x: 1 } });
    expect(w.sub.stats.reconnects).toBe(0);
    expect(srv.seen).toHaveLength(1);
  });

  it("cuts an oversized event with a visible item, reconnects after it, and stops reading it", async () => {
    const srv = await serve((_req, res, n) => {
      sseHead(res);
      if (n === 0) {
        res.write(`${progress(1)}id: 2\nevent: huge\ndata: "`);
        const chunk = "x".repeat(4096);
        let floodBytes = 0;
        // Bounded for safety; the client must hang up long before.
        const pump = () => {
          while (!res.destroyed && floodBytes < 64 * 1024 * 1024) {
            floodBytes += chunk.length;
            if (!res.write(chunk)) {
              res.once("drain", pump);
              return;
            }
          }
        };
        pump();
        return;
      }
      res.write(progress(3));
    });
    const w = watch(srv.url, { maxEventBytes: 16 * 1024 });
    await waitFor(() => w.events.some((e) => e.id === "3"), "the event after the cut");
    expect(w.events.map((e) => e.kind)).toEqual([
      "prompt_progress",
      "malformed",
      "prompt_progress",
    ]);
    const cut = w.events[1];
    expect(cut).toMatchObject({
      kind: "malformed",
      event: "huge",
      id: "2",
      error: "event larger than 16384 bytes cut off; reconnecting",
    });
    if (cut?.kind !== "malformed") throw new Error("unreachable");
    expect(cut.raw.startsWith('id: 2\nevent: huge\ndata: "xxx')).toBe(true);
    expect(cut.raw.length).toBeLessThanOrEqual(200);
    expect(reconnects(w)[0]?.reason).toBe("event larger than 16384 bytes cut off; reconnecting");
    // The cut item's id came before the flood, so the resume skips it instead of replaying it.
    expect(lastIdOf(srv.seen[1])).toBe("2");
    await waitFor(() => srv.seen[0]?.closed === true, "the flooding connection to close");
    // The client stopped reading at the bound (plus what was already in its hands).
    expect(w.sub.stats.bytes).toBeLessThan(16 * 1024 + 256 * 1024);
  });

  it("a callback that closes the subscription gets no further events", async () => {
    const srv = await serve((_req, res) => {
      sseHead(res);
      res.write(progress(1) + progress(2) + progress(3));
    });
    const events: SessionEvent[] = [];
    const w = watch(srv.url, {
      onEvent: (e) => {
        events.push(e);
        w.sub.close();
      },
    });
    await w.sub.done;
    expect(events).toHaveLength(1);
    await waitFor(() => srv.seen[0]?.closed === true, "the connection to close");
  });
});

describe("event stream: resume", () => {
  it("sends Last-Event-ID on reconnect, keeps it across items without id, and an empty id clears it", async () => {
    const srv = await serve((_req, res, n) => {
      sseHead(res);
      if (n === 0) res.end(progress(1) + progress(2) + progress(null));
      else if (n === 1) res.end(`${item("", "prompt_progress", { type: "text", content: "x" })}`);
      else res.write(progress(9));
    });
    const w = watch(srv.url, { lastEventId: "0" });
    await waitFor(() => srv.seen.length === 3, "three connections");
    expect(srv.seen.map(lastIdOf)).toEqual(["0", "2", undefined]);
    await waitFor(() => w.sub.lastEventId === "9", "id 9");
    expect(reconnects(w).map((s) => s.reason)).toEqual([
      "stream ended by the server",
      "stream ended by the server",
    ]);
  });

  it("retry: replaces the reconnect delay", async () => {
    const srv = await serve((_req, res, n) => {
      sseHead(res);
      if (n === 0) res.end(`retry: 137\n\n${progress(1)}`);
      else res.write(progress(2));
    });
    const w = watch(srv.url);
    await waitFor(() => w.sub.lastEventId === "2", "event 2");
    expect(reconnects(w).map((s) => s.delayMs)).toEqual([137]);
  });

  it("survives drops mid-event: every event exactly once, in order", async () => {
    const TOTAL = 40;
    const srv = await serve((req, res) => {
      sseHead(res);
      const from = Number(req.headers["last-event-id"] ?? "0") + 1;
      if (from > TOTAL) return; // caught up: stay open and quiet
      let out = "";
      for (let id = from; id < Math.min(from + 7, TOTAL + 1); id++) out += progress(id);
      if (from + 7 <= TOTAL) {
        // Half an event, then the connection is cut: it must not be delivered.
        out += `id: ${from + 7}\nevent: prompt_progress\ndata: {"type":"te`;
        res.write(out, () => res.socket?.destroy());
      } else res.write(out);
    });
    const w = watch(srv.url, { maxAttempts: 3 });
    await waitFor(() => w.sub.lastEventId === String(TOTAL), `event ${TOTAL}`);
    const expected = Array.from({ length: TOTAL }, (_, i) => String(i + 1));
    expect(idsOf(w.events)).toEqual(expected);
    expect(w.sub.stats.reconnects).toBe(Math.ceil(TOTAL / 7) - 1);
    // Each connection delivered something, so the failure count starts over: no growth.
    expect(new Set(reconnects(w).map((s) => s.delayMs))).toEqual(new Set([10]));
    expect(reconnects(w).every((s) => s.attempt === 1)).toBe(true);
  });
});

describe("event stream: watchdog", () => {
  it("a stalled stream is aborted after the silence bound and reconnected", async () => {
    const srv = await serve((_req, res, n) => {
      sseHead(res);
      if (n === 0)
        res.write(progress(1)); // then silence, connection kept open
      else res.write(progress(2));
    });
    const w = watch(srv.url, { watchdog: { floorMs: 50, initialMs: 150, ceilingMs: 1000 } });
    await waitFor(() => w.sub.lastEventId === "2", "event 2 after the stall");
    expect(reconnects(w)[0]?.reason).toBe("no data for 150 ms (watchdog)");
    await waitFor(() => srv.seen[0]?.closed === true, "the server to see the abort");
    expect(lastIdOf(srv.seen[1])).toBe("1");
  });

  it("learns the heartbeat interval, tightens the bound, and any byte keeps it quiet", async () => {
    const COMMENTS = 40;
    /** Bytes the server wrote on the first connection, and whether it had gone quiet by itself when the client hung up. */
    let written = 0;
    let quietAtClose: boolean | null = null;
    const srv = await serve((_req, res, n) => {
      sseHead(res);
      if (n > 0) return;
      let ticks = 0;
      const send = (text: string) => {
        written += Buffer.byteLength(text);
        res.write(text);
      };
      const t = setInterval(() => {
        if (res.destroyed) return clearInterval(t);
        // Six heartbeats 20 ms apart, then only comments (for several bounds), then silence.
        if (ticks < 6) send(heartbeat());
        else if (ticks < 6 + COMMENTS) send(": still here\n");
        else clearInterval(t);
        ticks++;
      }, 20);
      res.on("close", () => {
        quietAtClose = ticks > 6 + COMMENTS;
      });
      stopAfterTest(() => clearInterval(t));
    });
    // The floor keeps a loaded machine's scheduling gaps from tripping it.
    const w = watch(srv.url, { watchdog: { floorMs: 250, initialMs: 3000, ceilingMs: 5000 } });
    expect(w.sub.watchdogMs).toBe(3000);
    await waitFor(() => w.sub.heartbeatIntervalMs !== null, "an observed interval");
    await waitFor(() => w.events.length === 6, "six heartbeats");
    const interval = w.sub.heartbeatIntervalMs ?? 0;
    expect(w.sub.watchdogMs).toBe(Math.min(5000, Math.max(250, 3 * interval)));
    // The comments outlast the bound several times over; the watchdog trips only once they
    // stop, on the first connection, having read every byte the server wrote.
    await waitFor(() => reconnects(w).length === 1, "the watchdog after the comments stop");
    await waitFor(() => srv.seen[0]?.closed === true, "the server to see the abort");
    expect(reconnects(w)[0]?.reason).toMatch(/^no data for \d+(\.\d+)? m?s \(watchdog\)$/);
    expect(quietAtClose).toBe(true);
    expect(w.events.filter((e) => e.kind === "heartbeat")).toHaveLength(6);
    expect(w.sub.stats.bytes).toBe(written);
  });
});

describe("event stream: undici's body timeout", () => {
  it("is off: a stream quiet for many of the dispatcher's body timeouts stays on one connection", async () => {
    let speak: () => void = () => {};
    const spoken = new Promise<void>((r) => {
      speak = r;
    });
    const srv = await serve((_req, res) => {
      sseHead(res);
      res.write(progress(1));
      void spoken.then(() => res.write(progress(2)));
    });
    // A dispatcher whose own body timeout would cut any response body quiet for 50 ms.
    const strict = new Agent({ bodyTimeout: 50 });
    stopAfterTest(() => strict.destroy());
    const w = watch(srv.url, {
      config: { baseUrl: srv.url, apiKey: KEY, dispatcher: strict },
      watchdog: { floorMs: 5000, initialMs: 10_000, ceilingMs: 10_000 },
    });
    await waitFor(() => w.events.length === 1, "the first event");
    // Quiet for 2 s (not a wait for something: the quiet is the test). undici checks its
    // timeouts on a 1 s tick, so a 50 ms body timeout would have cut the body by then.
    await new Promise((r) => setTimeout(r, 2000));
    speak();
    await waitFor(() => w.events.length === 2, "the event after the quiet");
    expect(reconnects(w)).toEqual([]);
    expect(srv.seen).toHaveLength(1);
  });
});

describe("event stream: stopping for good", () => {
  async function stopsWith(handler: Handler, requests = 1) {
    const srv = await serve(handler);
    const w = watch(srv.url);
    const final = await w.sub.done;
    expect(final.state).toBe("stopped");
    expect(reconnects(w)).toEqual([]);
    expect(srv.seen).toHaveLength(requests);
    if (final.state !== "stopped") throw new Error("unreachable");
    return { final, srv, w };
  }

  it("204: the server has no stream for this session", async () => {
    const { final } = await stopsWith((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    expect(final.reason).toBe("server has no stream for this session (204)");
    expect(final.error).toBeNull();
  });

  it("401: invalid key, with the server's message", async () => {
    const { final } = await stopsWith((_req, res) =>
      jsonError(res, 401, { detail: "API key expired on 2024-01-01" }),
    );
    expect(final.error).toBeInstanceOf(InvalidKeyError);
    expect(final.error?.message).toBe("API key expired on 2024-01-01");
    expect(final.reason).toContain("API key expired");
    expect(JSON.stringify(final)).not.toContain(KEY);
  });

  it("403: missing scope sessions:prompt, with the server's message", async () => {
    const { final } = await stopsWith((_req, res) =>
      jsonError(res, 403, { detail: { error: "Key lacks sessions:prompt" } }),
    );
    expect(final.error).toBeInstanceOf(MissingScopeError);
    expect((final.error as MissingScopeError).requiredScope).toBe("sessions:prompt");
    expect(final.error?.message).toBe("Key lacks sessions:prompt");
  });

  it("404 on both paths: the alternative path is tried once, then not found", async () => {
    const { final, srv } = await stopsWith(
      (_req, res) => jsonError(res, 404, { detail: "no such session" }),
      2,
    );
    expect(srv.seen.map((r) => r.url)).toEqual([PATHS.events(SESSION), PATHS.eventsAlt(SESSION)]);
    expect(final.error).toBeInstanceOf(NotFoundError);
    expect(final.error?.message).toContain(SESSION);
  });

  it("a content type other than text/event-stream", async () => {
    const { final } = await stopsWith((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>login</html>");
    });
    expect(final.error).toBeInstanceOf(MalformedResponseError);
    expect(final.reason).toContain("text/html");
  });

  it("remembers the alternative path when the first one is 404", async () => {
    const srv = await serve((req, res, n) => {
      if (req.url === PATHS.events(SESSION)) return jsonError(res, 404, { detail: "Not Found" });
      sseHead(res);
      if (n < 3) res.end(progress(n));
      else res.write(progress(n));
    });
    const w = watch(srv.url);
    await waitFor(() => w.sub.lastEventId === "3", "event 3");
    expect(srv.seen.map((r) => r.url)).toEqual([
      PATHS.events(SESSION),
      PATHS.eventsAlt(SESSION),
      PATHS.eventsAlt(SESSION),
      PATHS.eventsAlt(SESSION),
    ]);
  });
});

describe("event stream: the key never goes to another origin", () => {
  it("a redirect is not followed: the stream stops and the other server sees no request", async () => {
    const other = await serve((_req, res) => {
      sseHead(res);
      res.write(progress(1));
    });
    for (const status of [301, 302, 303, 307, 308]) {
      // To another origin, and to the same origin (not followed either: only the REST reads
      // follow same-origin redirects).
      for (const target of [`${other.url}${PATHS.events(SESSION)}`, PATHS.eventsAlt(SESSION)]) {
        const srv = await serve((_req, res) => {
          res.writeHead(status, { location: target });
          res.end();
        });
        const w = watch(srv.url);
        const final = await w.sub.done;
        expect(final, `${status} → ${target}`).toMatchObject({
          state: "stopped",
          reason: `HTTP ${status}`,
        });
        if (final.state !== "stopped") throw new Error("unreachable");
        expect(final.error).toBeInstanceOf(HttpError);
        expect(w.events).toEqual([]);
        expect(reconnects(w)).toEqual([]);
        expect(srv.seen.map((r) => r.url)).toEqual([PATHS.events(SESSION)]);
      }
    }
    expect(other.seen).toEqual([]);
  });
});

describe("event stream: documented defaults, no overrides", () => {
  /** A subscription with nothing but the required options. */
  function plain(url: string): Watched {
    const events: SessionEvent[] = [];
    const statuses: StreamStatus[] = [];
    const sub = subscribeToSession({
      config: { baseUrl: url, apiKey: KEY },
      sessionId: SESSION,
      onEvent: (e) => events.push(e),
      onStatus: (st) => statuses.push(st),
    });
    stopAfterTest(() => sub.close());
    return { sub, events, statuses };
  }

  it("the watchdog allows 45 s of silence before any heartbeat, then 3 × the interval, at least 5 s", async () => {
    const srv = await serve((_req, res) => {
      sseHead(res);
      res.write(progress(1));
    });
    const w = plain(srv.url);
    await waitFor(() => w.events.length === 1, "the first event");
    expect(w.sub.heartbeatIntervalMs).toBeNull();
    expect(w.sub.watchdogMs).toBe(45_000);
    const beats = await serve((_req, res) => {
      sseHead(res);
      res.write(heartbeat() + heartbeat() + heartbeat());
    });
    const fast = plain(beats.url);
    await waitFor(() => fast.events.length === 3, "three heartbeats");
    // Heartbeats moments apart: 3 × the interval is far below the floor.
    expect(fast.sub.heartbeatIntervalMs).not.toBeNull();
    expect(fast.sub.watchdogMs).toBe(5_000);
  });

  it("an event up to 1 MiB arrives whole; a larger one is cut off with a visible item", async () => {
    const MIB = 1024 * 1024;
    // Everything of an item counts: its field names, the data, the line ends.
    const fits = "a".repeat(MIB - 200);
    const tooBig = "b".repeat(MIB + 16);
    const srv = await serve((_req, res, n) => {
      sseHead(res);
      // One write each: the whole item may reach the client in one read.
      if (n === 0) {
        res.write(item(1, "process_output", { text: fits }));
        res.write(item(2, "process_output", { text: tooBig }));
      } else res.write(progress(3));
    });
    const w = plain(srv.url);
    await waitFor(() => w.sub.lastEventId === "3", "the event after the cut");
    expect(w.events.map((e) => e.kind)).toEqual(["process_output", "malformed", "prompt_progress"]);
    const first = w.events[0];
    expect(first?.kind === "process_output" && first.data.text === fits).toBe(true);
    expect(w.events[1]).toMatchObject({
      id: "2",
      event: "process_output",
      error: `event larger than ${MIB} bytes cut off; reconnecting`,
    });
    expect(lastIdOf(srv.seen[1])).toBe("2");
  });
});

describe("event stream: retrying", () => {
  it("5xx is retried with growing delays, then the stream goes live", async () => {
    const srv = await serve((_req, res, n) => {
      if (n < 4) return jsonError(res, 503, { detail: "warming up" });
      sseHead(res);
      res.write(progress(1));
    });
    const w = watch(srv.url);
    await waitFor(() => w.events.length === 1, "the event after the 503s");
    expect(reconnects(w).map((s) => s.delayMs)).toEqual([10, 20, 40, 80]);
    expect(reconnects(w).map((s) => s.attempt)).toEqual([1, 2, 3, 4]);
    expect(reconnects(w)[0]?.reason).toBe("HTTP 503: warming up");
    expect(w.statuses.map((s) => s.state)).toEqual([
      "connecting",
      ...Array(4).fill(["reconnecting", "connecting"]).flat(),
      "live",
    ]);
  });

  it("5xx gives up after maxAttempts with the HTTP error", async () => {
    const srv = await serve((_req, res) => jsonError(res, 500, { detail: "boom" }));
    const w = watch(srv.url, { maxAttempts: 3 });
    const final = await w.sub.done;
    expect(srv.seen).toHaveLength(3);
    expect(final).toMatchObject({
      state: "stopped",
      reason: "gave up after 3 failed attempts: HTTP 500: boom",
    });
    if (final.state !== "stopped") throw new Error("unreachable");
    expect(final.error).toBeInstanceOf(HttpError);
  });

  it("429 waits Retry-After (skippable with reconnectNow), and gives up as rate limited", async () => {
    const srv = await serve((_req, res, n) => {
      if (n === 0) return jsonError(res, 429, { detail: "slow down" }, { "retry-after": "30" });
      sseHead(res);
      res.write(progress(1));
    });
    const w = watch(srv.url);
    await waitFor(() => reconnects(w).length === 1, "the 429 backoff");
    const wait = reconnects(w)[0];
    expect(wait?.delayMs).toBe(30_000);
    expect(wait?.reason).toBe("rate limited (429), retry after 30 s");
    w.sub.reconnectNow();
    await waitFor(() => w.events.length === 1, "the event after reconnectNow");

    const limited = await serve((_req, res) =>
      jsonError(res, 429, { detail: "slow down" }, { "retry-after": "0" }),
    );
    const w2 = watch(limited.url, { maxAttempts: 2 });
    const final = await w2.sub.done;
    if (final.state !== "stopped") throw new Error("unreachable");
    expect(final.error).toBeInstanceOf(RateLimitedError);
    expect((final.error as RateLimitedError).attempts).toBe(2);
    // Retry-After: 0 is no reason to hurry: the reconnect floor (the base delay) still holds.
    expect(reconnects(w2).map((s) => s.delayMs)).toEqual([10]);
  });

  it("a 503's Retry-After (read by the transport) sets the reconnect wait; garbage does not", async () => {
    const srv = await serve((_req, res, n) => {
      if (n === 0) return jsonError(res, 503, { detail: "busy" }, { "retry-after": "7" });
      if (n === 1) return jsonError(res, 503, { detail: "busy" }, { "retry-after": "soon" });
      sseHead(res);
      res.write(progress(1));
    });
    const w = watch(srv.url);
    await waitFor(() => reconnects(w).length === 1, "the first 503");
    expect(reconnects(w)[0]?.delayMs).toBe(7000);
    w.sub.reconnectNow();
    await waitFor(() => reconnects(w).length === 2, "the second 503");
    // No usable Retry-After: the backoff schedule (the base delay, doubled after a failure).
    expect(reconnects(w)[1]?.delayMs).toBe(20);
    await waitFor(() => w.events.length === 1, "the event after the 503s");
  });

  it("retry: 0 cannot go below the base delay, and repeated failures back off", async () => {
    const srv = await serve((_req, res, n) => {
      if (n === 0) {
        sseHead(res);
        return res.end(`retry: 0\n\n${progress(1)}`);
      }
      if (n < 4) return jsonError(res, 502, { detail: "bad gateway" });
      sseHead(res);
      res.write(progress(2));
    });
    const w = watch(srv.url);
    await waitFor(() => w.sub.lastEventId === "2", "event 2");
    expect(reconnects(w).map((s) => s.delayMs)).toEqual([10, 20, 40, 80]);
  });

  it("an error body that never ends does not hang the stream", async () => {
    const srv = await serve((_req, res, n) => {
      if (n === 0) {
        res.writeHead(503, { "content-type": "application/json" });
        res.write('{"detail": "half a bo');
        return; // never ends
      }
      sseHead(res);
      res.write(progress(1));
    });
    const w = watch(srv.url, { headersTimeoutMs: 100 });
    await waitFor(() => w.events.length === 1, "the event after the hanging 503");
    expect(reconnects(w)[0]?.reason).toBe("HTTP 503");
  });

  it("refused on loopback before the stream ever connected stops at once, saying so", async () => {
    const srv = await serve(() => {});
    const { url } = srv;
    await srv.close();
    const w = watch(url, { maxAttempts: 5 });
    const final = await w.sub.done;
    expect(reconnects(w)).toHaveLength(0);
    if (final.state !== "stopped") throw new Error("unreachable");
    expect(final.reason).toBe("connection failed: connection refused, ECONNREFUSED");
    expect(final.error).toBeInstanceOf(NetworkError);
    expect((final.error as NetworkError).failure.kind).toBe("refused");
  });

  it("refused after the stream has been live is retried (the service may be restarting)", async () => {
    const srv = await serve((_req, res) => {
      sseHead(res);
      res.write(progress(1));
    });
    const w = watch(srv.url, { maxAttempts: 3 });
    await waitFor(() => w.events.length === 1, "the first event");
    await srv.close();
    const final = await w.sub.done;
    const reasons = reconnects(w).map((r) => r.reason);
    expect(reasons).toContain("connection failed: connection refused, ECONNREFUSED");
    if (final.state !== "stopped") throw new Error("unreachable");
    expect(final.reason).toMatch(
      /^gave up after 3 failed attempts: connection failed: connection refused/,
    );
    expect(final.error).toBeInstanceOf(NetworkError);
  });

  it("no response headers in time is retried", async () => {
    const srv = await serve((_req, _res, n) => {
      if (n === 0) return; // never answers
      _res.writeHead(200, { "content-type": "text/event-stream" });
      _res.write(progress(1));
    });
    const w = watch(srv.url, { headersTimeoutMs: 100 });
    await waitFor(() => w.events.length === 1, "the event on the second connection");
    expect(reconnects(w)[0]?.reason).toBe("connection failed: no response headers in time");
  });
});

describe("event stream: close() leaves nothing behind", () => {
  function keepingAlive(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const r of process.getActiveResourcesInfo()) counts[r] = (counts[r] ?? 0) + 1;
    return counts;
  }

  it("mid-backoff: no timer left, done resolves with stopped 'closed'", async () => {
    const srv = await serve((_req, res) => jsonError(res, 503, { detail: "down" }));
    const before = keepingAlive().Timeout ?? 0;
    const w = watch(srv.url, { backoffBaseMs: 60_000 });
    await waitFor(() => reconnects(w).length === 1, "the backoff");
    expect(keepingAlive().Timeout ?? 0).toBe(before + 1);
    w.sub.close();
    expect(await w.sub.done).toEqual({ state: "stopped", reason: "closed", error: null });
    expect(w.sub.status.state).toBe("stopped");
    expect(keepingAlive().Timeout ?? 0).toBe(before);
    expect(srv.seen).toHaveLength(1);
  });

  it("while live: the server sees the connection closed", async () => {
    const srv = await serve((_req, res) => {
      sseHead(res);
      res.write(progress(1));
    });
    const w = watch(srv.url);
    await waitFor(() => w.events.length === 1, "the first event");
    w.sub.close();
    await waitFor(() => srv.seen[0]?.closed === true, "the server to see the close");
    expect(w.statuses.at(-1)).toEqual({ state: "stopped", reason: "closed", error: null });
  });

  it("while connecting: the pending request is aborted", async () => {
    const srv = await serve(() => {}); // never answers
    const w = watch(srv.url);
    await waitFor(() => srv.seen.length === 1, "the request");
    w.sub.close();
    await waitFor(() => srv.seen[0]?.closed === true, "the server to see the close");
    await w.sub.done;
    expect(reconnects(w)).toEqual([]);
  });

  it("a process whose subscription is cancelled mid-backoff exits on its own", async () => {
    expect(existsSync(BUILT_EVENT_STREAM), "run npm run build first").toBe(true);
    const srv = await serve((_req, res) => jsonError(res, 503, { detail: "down" }));
    // The built module in a process of its own. The backoff is an hour: a timer or socket
    // left behind would keep the process alive past any test timeout.
    const script = `
import { subscribeToSession } from ${JSON.stringify(pathToFileURL(BUILT_EVENT_STREAM).href)};
const sub = subscribeToSession({
  config: { baseUrl: process.argv[1], apiKey: "k" },
  sessionId: "ses_x",
  backoffBaseMs: 3600000,
  onEvent() {},
  onStatus(s) { if (s.state === "reconnecting") setImmediate(() => sub.close()); },
});
sub.done.then((s) => console.log("done:" + s.reason));
`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script, srv.url], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    stopAfterTest(() => {
      if (child.exitCode === null) child.kill();
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      out += d.toString();
    });
    const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
    expect(out.trim()).toBe("done:closed");
    expect(code).toBe(0);
    expect(srv.seen).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------
// Against the reference service, with its fault switches.

describe("event stream against the reference service", () => {
  let ref: ReferenceServer;
  const log: string[] = [];

  beforeAll(async () => {
    ref = await startServer({
      paceMs: 0,
      heartbeatMs: 40,
      seed: 7,
      // A generous limit the service announces: the client's request budget learns it (without
      // the headers it would pace at the documented 100 a minute).
      rateLimit: { limit: 100_000, windowMs: 60_000 },
      log: (line) => log.push(line),
    });
  });
  afterAll(async () => {
    await ref?.close();
  });
  beforeEach(() => {
    ref.faults.reset();
    log.length = 0;
  });

  function owner(extra: Partial<SubscribeOptions> = {}): Partial<SubscribeOptions> {
    return { config: { baseUrl: ref.url, apiKey: ref.key("owner") }, ...extra };
  }

  /** A transport of its own whose routes know nothing yet (no store, nothing learned). */
  function freshRoutes(extra: Partial<SubscribeOptions>): Partial<SubscribeOptions> {
    const config = extra.config as { baseUrl: string; apiKey: string };
    const routes = new ServiceRoutes(config.baseUrl, config.apiKey, null);
    return { ...extra, transport: new Transport({ ...config, routes }) };
  }

  function contents(events: SessionEvent[]): string[] {
    return events.flatMap((e) => (e.kind === "prompt_progress" ? [e.data.content] : []));
  }

  async function live(w: Watched): Promise<void> {
    await waitFor(() => w.sub.status.state === "live", "the stream to be live");
  }

  it("drop and resume with Last-Event-ID: every event exactly once, in order", async () => {
    const session = ref.sessionIds()[0] as string;
    ref.faults.set({ dropAfter: 4 });
    const w = watch(ref.url, owner({ sessionId: session }));
    await live(w);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      ids.push(ref.emit(session, "prompt_progress", { type: "text", content: `n${i}` }));
    }
    await waitFor(() => w.sub.lastEventId === ids.at(-1), "the last emitted event");
    expect(contents(w.events)).toEqual(ids.map((_, i) => `n${i}`));
    expect(idsOf(w.events.filter((e) => e.kind === "prompt_progress"))).toEqual(ids);
    expect(w.sub.stats.reconnects).toBeGreaterThanOrEqual(7);
    expect(reconnects(w).every((r) => r.reason === "stream ended by the server")).toBe(true);
  });

  it("a stalled stream is caught by the watchdog, then heartbeats set the bound", async () => {
    const session = ref.sessionIds()[1] as string;
    ref.faults.set({ stall: true });
    const w = watch(
      ref.url,
      owner({ sessionId: session, watchdog: { floorMs: 100, initialMs: 200, ceilingMs: 2000 } }),
    );
    await waitFor(() => reconnects(w).length === 1, "the watchdog");
    expect(reconnects(w)[0]?.reason).toBe("no data for 200 ms (watchdog)");
    ref.faults.set({ stall: false });
    await waitFor(() => w.sub.heartbeatIntervalMs !== null, "two heartbeats");
    await waitFor(() => ref.connections() === 1, "the stalled connection to be gone");
    // The bound now follows the heartbeats: 3 × their interval, within the bounds given.
    const interval = w.sub.heartbeatIntervalMs ?? 0;
    expect(w.sub.watchdogMs).toBe(Math.min(2000, Math.max(100, 3 * interval)));
    const id = ref.emit(session, "prompt_progress", { type: "text", content: "after stall" });
    await waitFor(() => w.sub.lastEventId === id, "the event after the stall");
  });

  it("5xx is retried with growing delays; 429 honours Retry-After", async () => {
    const session = ref.sessionIds()[2] as string;
    ref.faults.set({ failStatus: 503, failCount: 3 });
    const w = watch(ref.url, owner({ sessionId: session }));
    await live(w);
    expect(reconnects(w).map((r) => r.delayMs)).toEqual([10, 20, 40]);
    expect(reconnects(w)[0]?.reason).toBe("HTTP 503: Injected fault: HTTP 503");
    w.sub.close();

    ref.faults.set({ failStatus: 429, failCount: 1, failRetryAfter: "7" });
    // Another key: a 429 holds every request of its key for the Retry-After (the request
    // budget), which would hold the owner's streams of the tests after this one.
    const w2 = watch(ref.url, {
      sessionId: session,
      config: { baseUrl: ref.url, apiKey: ref.key("admin") },
    });
    await waitFor(() => reconnects(w2).length === 1, "the 429 wait");
    expect(reconnects(w2)[0]).toMatchObject({
      delayMs: 7000,
      reason: "rate limited (429), retry after 7 s",
    });
    w2.sub.reconnectNow();
    await live(w2);
  });

  it("401, 403 and an unknown session stop without retry", async () => {
    const session = ref.sessionIds()[0] as string;
    const bad = watch(ref.url, {
      sessionId: session,
      config: { baseUrl: ref.url, apiKey: "nope" },
    });
    const s401 = await bad.sub.done;
    if (s401.state !== "stopped") throw new Error("unreachable");
    expect(s401.error).toBeInstanceOf(InvalidKeyError);
    expect(s401.reason).toMatch(/^401: /);

    const expired = watch(ref.url, {
      sessionId: session,
      config: { baseUrl: ref.url, apiKey: ref.key("expired") },
    });
    expect((await expired.sub.done).state).toBe("stopped");
    expect(reconnects(expired)).toEqual([]);

    const listonly = watch(ref.url, {
      sessionId: session,
      config: { baseUrl: ref.url, apiKey: ref.key("listonly") },
    });
    const s403 = await listonly.sub.done;
    if (s403.state !== "stopped") throw new Error("unreachable");
    expect(s403.error).toBeInstanceOf(MissingScopeError);
    expect((s403.error as MissingScopeError).requiredScope).toBe("sessions:prompt");
    expect(s403.error?.message).toContain("sessions:prompt");

    log.length = 0;
    // Routes nobody has learned yet: both forms are tried (once one answers, only that one).
    const missing = watch(ref.url, freshRoutes(owner({ sessionId: "ses_doesnotexist" })));
    const s404 = await missing.sub.done;
    if (s404.state !== "stopped") throw new Error("unreachable");
    expect(s404.error).toBeInstanceOf(NotFoundError);
    await waitFor(() => log.length === 2, "two logged requests");
    expect(log.map((l) => l.split(" ").slice(0, 3).join(" "))).toEqual([
      `GET ${PATHS.events("ses_doesnotexist")} 404`,
      `GET ${PATHS.eventsAlt("ses_doesnotexist")} 404`,
    ]);
    for (const w of [bad, expired, listonly, missing]) expect(reconnects(w)).toEqual([]);
    expect(JSON.stringify([s401, s403, s404])).not.toContain(ref.key("owner"));
  });

  it("falls back to the alternative path on 404 and keeps using it", async () => {
    const session = ref.sessionIds()[3] as string;
    ref.faults.set({
      statusFor: { path: /^\/api\/cloud\/sessions\/[^/]+\/events$/, status: 404, count: 1 },
      dropAfter: 1,
    });
    const w = watch(ref.url, freshRoutes(owner({ sessionId: session })));
    await live(w);
    ref.emit(session, "prompt_progress", { type: "text", content: "a" });
    const last = ref.emit(session, "prompt_progress", { type: "text", content: "b" });
    await waitFor(() => w.sub.lastEventId === last, "both events");
    const paths = log.map((l) => l.split(" ")[1]);
    expect(paths.slice(0, 3)).toEqual([
      PATHS.events(session),
      PATHS.eventsAlt(session),
      PATHS.eventsAlt(session),
    ]);
    expect(contents(w.events)).toEqual(["a", "b"]);
  });

  it("malformed JSON and unknown events survive; an oversized event is cut and not replayed", async () => {
    const session = ref.sessionIds()[4] as string;
    const w = watch(ref.url, owner({ sessionId: session, maxEventBytes: 16 * 1024 }));
    await live(w);
    ref.emit(session, "prompt_progress", { type: "text", content: "before" });
    ref.emitRaw(session, "prompt_progress", '{"type":"text","content":"cut off');
    ref.emit(session, "brand_new", { hello: "world" });
    const bigId = ref.emitRaw(
      session,
      "process_output",
      JSON.stringify({ text: "y".repeat(512 * 1024) }),
    );
    await waitFor(() => reconnects(w).length === 1, "the cut");
    await live(w);
    const after = ref.emit(session, "prompt_progress", { type: "text", content: "after" });
    await waitFor(() => w.sub.lastEventId === after, "the event after the cut");
    const kinds = w.events.filter((e) => e.kind !== "heartbeat").map((e) => e.kind);
    expect(kinds).toEqual([
      "prompt_progress",
      "malformed",
      "unknown",
      "malformed",
      "prompt_progress",
    ]);
    const cut = w.events.filter((e) => e.kind === "malformed")[1];
    expect(cut).toMatchObject({
      event: "process_output",
      id: bigId,
      error: "event larger than 16384 bytes cut off; reconnecting",
    });
    expect(contents(w.events)).toEqual(["before", "after"]);
    expect(w.sub.stats.bytes).toBeLessThan(512 * 1024);
  });

  for (const lineEnding of ["cr", "crlf"] as const) {
    it(`${lineEnding} line endings with comments and retry: give the same events`, async () => {
      const session = ref.sessionIds()[5] as string;
      ref.faults.set({ lineEnding, comments: true, retryMs: 23, dropAfter: 2 });
      // From now on: the earlier loop's events stay in the session's history.
      const w = watch(ref.url, owner({ sessionId: session }));
      await live(w);
      const ids = ["é", "日本", "🎉"].map((c) =>
        ref.emit(session, "prompt_progress", { type: "text", content: c }),
      );
      await waitFor(() => w.sub.lastEventId === ids.at(-1), "the three events");
      expect(contents(w.events)).toEqual(["é", "日本", "🎉"]);
      expect(reconnects(w)[0]?.delayMs).toBe(23);
      await waitFor(() => w.events.some((e) => e.kind === "heartbeat"), "a heartbeat");
      expect(w.events.filter((e) => e.kind === "malformed")).toEqual([]);
    });
  }
});
