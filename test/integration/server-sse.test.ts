import { afterEach, describe, expect, it } from "vitest";
import { PATHS } from "../../src/protocol/index.js";
import { type ReferenceServer, type ServerOptions, startServer } from "../../src/server/index.js";
import { advanceUntil } from "../helpers/simulatedClock.js";
import { api, openSse, type SseClient, waitFor } from "./serverTestUtils.js";

let server: ReferenceServer | null = null;
const clients: SseClient[] = [];

async function start(opts: ServerOptions = {}): Promise<ReferenceServer> {
  server = await startServer({ paceMs: 0, seed: 11, heartbeatMs: 60_000, ...opts });
  return server;
}
async function sse(s: ReferenceServer, id: string, lastEventId?: string, path = PATHS.events) {
  const c = await openSse(`${s.url}${path(id)}`, s.key("member"), { lastEventId });
  clients.push(c);
  return c;
}
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server?.close();
  server = null;
});

const ids = (c: SseClient) => c.events().map((e) => Number(e.id));

describe("reference service: event stream", () => {
  it("serves an SSE response on both paths with monotonic ids and timestamps", async () => {
    const s = await start();
    const id = s.sessionIds()[0] as string;
    const a = await sse(s, id);
    const b = await sse(s, id, undefined, PATHS.eventsAlt);
    for (const c of [a, b]) {
      expect(c.status).toBe(200);
      expect(c.headers["content-type"]).toBe("text/event-stream");
      expect(c.headers["cache-control"]).toBe("no-cache");
      expect(c.headers["x-ratelimit-remaining"]).toMatch(/^\d+$/);
    }
    await waitFor(() => s.connections() === 2);
    const before = Date.now();
    s.emit(id, "prompt_progress", { type: "text", content: "Hello " });
    s.emit(id, "file_changed", { path: "src/a.ts", action: "created" });
    s.emit(id, "process_output", { stream: "stdout", text: "ok\n" });
    for (const c of [a, b]) {
      await waitFor(() => c.events().length === 3, 2_000, "three events");
      expect(ids(c)).toEqual([1, 2, 3]);
      expect(c.events().map((e) => e.event)).toEqual([
        "prompt_progress",
        "file_changed",
        "process_output",
      ]);
      const first = JSON.parse(c.events()[0]?.data as string);
      expect(first).toMatchObject({ type: "text", content: "Hello " });
      expect(first.ts).toBeGreaterThanOrEqual(before);
    }
    const record = await api(s.url, `/api/sessions/${id}`, { key: s.key("member") });
    expect(record.body).toMatchObject({ event_count: 3 });
  });

  it("replays events after Last-Event-ID, then continues live", async () => {
    const s = await start({ historyLimit: 4 });
    const id = s.sessionIds()[0] as string;
    for (let i = 1; i <= 6; i++) s.emit(id, "process_output", { text: `line ${i}\n` });
    const c = await sse(s, id, "3");
    await waitFor(() => c.events().length === 3, 2_000, "replay");
    expect(ids(c)).toEqual([4, 5, 6]);
    s.emit(id, "process_output", { text: "line 7\n" });
    await waitFor(() => c.events().length === 4, 2_000, "live event");
    expect(ids(c)).toEqual([4, 5, 6, 7]);

    // History is bounded: only the newest 4 remain for a client that is far behind.
    const late = await sse(s, id, "0");
    await waitFor(() => late.events().length === 4, 2_000, "bounded replay");
    expect(ids(late)).toEqual([4, 5, 6, 7]);
    // Without Last-Event-ID: live events only (the stream has no history).
    const fresh = await openSse(`${s.url}${PATHS.events(id)}`, s.key("member"));
    clients.push(fresh);
    s.emit(id, "process_output", { text: "line 8\n" });
    await waitFor(() => fresh.events().length === 1, 2_000, "live only");
    expect(ids(fresh)).toEqual([8]);
  });

  it("sends heartbeats without an id at the configured interval", async () => {
    const s = await start({ heartbeatMs: 30 });
    const c = await sse(s, s.sessionIds()[0] as string);
    await waitFor(() => c.heartbeats().length >= 2, 2_000, "two heartbeats");
    const hb = c.heartbeats()[0];
    expect(hb?.id).toBeNull();
    const data = JSON.parse(hb?.data as string);
    expect(Object.keys(data)).toEqual(["timestamp"]);
    expect(new Date(data.timestamp).toISOString()).toBe(data.timestamp);
    expect(c.raw()).not.toMatch(/id:[^\n]*\nevent: heartbeat/);
  });

  it("drops a stream after N events and loses nothing on resume", async () => {
    const s = await start({ faults: { dropAfter: 3 } });
    const id = s.sessionIds()[0] as string;
    for (let i = 1; i <= 7; i++) s.emit(id, "process_output", { text: `${i}\n` });
    const received: number[] = [];
    let last = "0";
    for (let round = 0; round < 5 && received.length < 7; round++) {
      const c = await sse(s, id, last);
      const before = received.length;
      await waitFor(
        () => c.ended() || before + c.events().length === 7,
        2_000,
        "the stream to end or catch up",
      );
      expect(c.events().length).toBeLessThanOrEqual(3);
      if (c.events().length === 3) await waitFor(() => c.ended(), 2_000, "the drop after 3");
      received.push(...ids(c));
      last = c.events().at(-1)?.id ?? last;
    }
    expect(received).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("stalls a stream: headers, then silence (no heartbeats) while others keep beating", async () => {
    const s = await start({ heartbeatMs: 20 });
    const id = s.sessionIds()[0] as string;
    s.faults.set({ stall: true });
    const stalled = await sse(s, id);
    expect(stalled.status).toBe(200);
    s.faults.set({ stall: false });
    const healthy = await sse(s, id);
    s.emit(id, "process_output", { text: "x\n" });
    await waitFor(() => healthy.heartbeats().length >= 3 && healthy.events().length === 1);
    expect(stalled.raw()).toBe("");
    expect(s.connections()).toBe(2);
  });

  it("keeps the same events whatever the line ending, with comments and a retry field", async () => {
    const payloads = [
      { type: "text", content: "a " },
      { type: "text", content: "b\n" },
    ];
    const seen: string[] = [];
    for (const lineEnding of ["lf", "crlf", "cr"] as const) {
      const s = await start({ faults: { lineEnding, comments: true, retryMs: 1234 } });
      const id = s.sessionIds()[0] as string;
      const c = await sse(s, id);
      await waitFor(() => s.connections() === 1);
      for (const p of payloads) s.emit(id, "prompt_progress", { ...p, ts: 1 });
      await waitFor(() => c.events().length === 2, 2_000, `events with ${lineEnding}`);
      const raw = c.raw();
      if (lineEnding === "cr") expect(raw).not.toContain("\n");
      if (lineEnding === "crlf") expect(raw.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
      expect(raw.startsWith(": stream opened")).toBe(true);
      expect(raw).toMatch(/retry: 1234(\r\n|\r|\n)/);
      expect(c.comments()).toBeGreaterThanOrEqual(3);
      seen.push(JSON.stringify(c.events()));
      c.close();
      await s.close();
      server = null;
    }
    expect(new Set(seen).size).toBe(1);
  });

  it("injects failure statuses, with Retry-After, for a number of requests", async () => {
    const s = await start();
    const id = s.sessionIds()[0] as string;
    s.faults.set({ failStatus: 429, failCount: 2, failRetryAfter: "1" });
    for (let i = 0; i < 2; i++) {
      const r = await api(s.url, PATHS.events(id), { key: s.key("member") });
      expect(r.status).toBe(429);
      expect(r.headers.get("retry-after")).toBe("1");
      expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
    }
    expect(s.faults.get().failCount).toBe(0);
    const ok = await sse(s, id);
    expect(ok.status).toBe(200);

    s.faults.set({ statusFor: { path: /\/events$/, status: 204, count: 1 } });
    const noContent = await api(s.url, PATHS.events(id), { key: s.key("member") });
    expect(noContent.status).toBe(204);
    expect(noContent.body).toBeNull();
    const verify = await api(s.url, PATHS.verify, { key: s.key("member") });
    expect(verify.status).toBe(200);
    s.faults.set({ failStatus: 502, failCount: Number.POSITIVE_INFINITY });
    expect((await api(s.url, PATHS.verify, { key: s.key("member") })).status).toBe(502);
    s.faults.reset();
    expect((await api(s.url, PATHS.verify, { key: s.key("member") })).status).toBe(200);
  });

  it("refuses streams without a key or without sessions:prompt", async () => {
    const s = await start();
    const id = s.sessionIds()[0] as string;
    const anon = await openSse(`${s.url}${PATHS.events(id)}`, undefined);
    clients.push(anon);
    expect(anon.status).toBe(401);
    const r = await openSse(`${s.url}${PATHS.events(id)}`, s.key("listonly"));
    clients.push(r);
    expect(r.status).toBe(403);
    expect(s.connections()).toBe(0);
  });

  it("forgets a connection when the client goes away", async () => {
    const s = await start();
    const c = await sse(s, s.sessionIds()[0] as string);
    await waitFor(() => s.connections() === 1);
    c.close();
    await waitFor(() => s.connections() === 0, 2_000, "connection cleanup");
  });

  it("announces state changes", async () => {
    const s = await start();
    const id = s.sessions().find((x) => x.state === "active")?.id as string;
    const c = await sse(s, id);
    await waitFor(() => s.connections() === 1);
    s.setState(id, "paused");
    s.setState(id, "paused");
    s.setState(id, "active");
    await waitFor(() => c.events().length === 2);
    expect(c.events().map((e) => JSON.parse(e.data))).toMatchObject([
      { state: "paused", previous_state: "active" },
      { state: "active", previous_state: "paused" },
    ]);
  });
});

describe("reference service: simulator and flood", () => {
  it("simulates realistic events with timestamps and consecutive ids", async () => {
    const s = await start({ paceMs: 2, sessionCount: 2, clock: "manual" });
    const id = s.sessions().find((x) => x.state === "active")?.id as string;
    const c = await sse(s, id, "0");
    const kinds = () => new Set(c.events().map((e) => e.event));
    await advanceUntil(
      s,
      () => ["prompt_progress", "process_output", "file_changed"].every((k) => kinds().has(k)),
      "every kind of simulated event",
      { stepMs: 2 },
    );
    const list = ids(c);
    expect(list).toEqual(list.map((_, i) => i + 1));
    for (const e of c.events()) {
      const d = JSON.parse(e.data);
      expect(typeof d.ts).toBe("number");
      // Progress text, and each prompt's end: done, or now and then an error with its message.
      if (e.event === "prompt_progress") expect(["text", "done", "error"]).toContain(d.type);
      if (e.event === "process_output") {
        // Output comes in the shapes real servers send: {stream, text}, {content}, {stream, data}.
        expect(d.stream ?? "stdout").toMatch(/^(stdout|stderr)$/);
        expect(typeof (d.text ?? d.content ?? d.data)).toBe("string");
      }
      if (e.event === "file_changed") expect(d.action).toMatch(/^(created|modified|deleted)$/);
    }
    const text = c
      .events()
      .filter((e) => e.event === "prompt_progress")
      .map((e) => JSON.parse(e.data).content)
      .join("");
    expect(text).toMatch(/[a-z]+ [a-z]+/);
  });

  it("injects malformed JSON, oversized events (never replayed) and escape sequences", async () => {
    const s = await start({
      paceMs: 1,
      sessionCount: 1,
      faults: { malformedEvery: 5, oversizedEvery: 7, oversizedBytes: 300_000, escapes: true },
      clock: "manual",
    });
    const id = s.sessionIds()[0] as string;
    s.setState(id, "active");
    const c = await sse(s, id);
    const isBad = (d: string) => {
      try {
        JSON.parse(d);
        return false;
      } catch {
        return true;
      }
    };
    await advanceUntil(
      s,
      () =>
        c.events().some((e) => isBad(e.data)) &&
        c.events().some((e) => e.data.length >= 299_000) &&
        c.events().some((e) => e.event === "process_output" && e.data.includes("\\u001b")),
      "malformed, oversized and escaped events",
      { stepMs: 1 },
    );
    const big = c.events().find((e) => e.data.length >= 299_000);
    const replay = await sse(s, id, String(Number(big?.id) - 1));
    await waitFor(() => replay.events().length > 0);
    expect(replay.events().every((e) => e.data.length < 1000)).toBe(true);
    expect(replay.events()[0]?.id).not.toBe(big?.id);
  });

  it("floods sessions at the asked rate in batches", async () => {
    const s = await start({ sessionCount: 2 });
    const [a, b] = s.sessionIds() as [string, string];
    const ca = await sse(s, a);
    const cb = await sse(s, b);
    await waitFor(() => s.connections() === 2);
    const result = await s.flood([a, b], 5_000, 200);
    expect(result.perSession).toBe(1_000);
    expect(result.sent).toBe(2_000);
    await waitFor(() => ca.events().length === 1_000 && cb.events().length === 1_000);
    expect(ids(ca)).toEqual(Array.from({ length: 1_000 }, (_, i) => i + 1));
    expect(JSON.parse(ca.events()[0]?.data as string).ts).toEqual(expect.any(Number));
  });
});
