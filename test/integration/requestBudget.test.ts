import { Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { type Subscription, subscribeToSession } from "../../src/client/eventStream.js";
import { RequestBudget } from "../../src/client/requestBudget.js";
import { startServer } from "../../src/server/index.js";
import { ManualClock } from "../helpers/manualClock.js";
import { json, startScriptedServer } from "../helpers/scriptedHttpServer.js";
import { stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";
import { waitFor } from "./serverTestUtils.js";

/**
 * One request budget per key, against real loopback servers: a fleet's worth of streams
 * opened at once against the documented limit (100 a minute, burst 20) draws no 429, and a
 * 429 seen by one caller holds the others of the same key.
 */

afterEach(stopStarted);

describe("request budget", () => {
  it("opening 50 streams at once against 100 a minute with burst 20 causes no 429", {
    timeout: 90_000,
  }, async () => {
    const limited: string[] = [];
    const server = await startServer({
      paceMs: 0,
      heartbeatMs: 1000,
      sessionCount: 50,
      seed: 11,
      rateLimit: { limit: 100, windowMs: 60_000, burst: 20 },
      log: (line) => {
        if (/ 429 /.test(line)) limited.push(line);
      },
    });
    stopAfterTest(() => server.close());
    const agent = new Agent({ keepAliveTimeout: 1000, connections: 64 });
    stopAfterTest(() => agent.destroy());
    const key = server.key("owner");
    const config = { baseUrl: server.url, apiKey: key, dispatcher: agent };
    const client = new ApiClient({ ...config, maxAttempts: 1 });

    // The list first (as the UI does), then every stream at once.
    const page = await client.listSessions({ limit: 50, includeDestroyed: true });
    const subs: Subscription[] = page.sessions.map((s) =>
      subscribeToSession({
        config,
        transport: client.transport,
        sessionId: s.session_id,
        onEvent: () => {},
      }),
    );
    for (const s of subs) stopAfterTest(() => s.close());
    expect(subs).toHaveLength(50);
    // A request made while the streams wait for their turn goes ahead of them.
    await expect(client.me()).resolves.toHaveProperty("principal_id");
    expect(subs.filter((s) => s.status.state === "live").length).toBeLessThan(50);

    await waitFor(
      () => subs.every((s) => s.status.state === "live"),
      80_000,
      "every stream to be live",
    );
    expect(limited).toEqual([]);
    const budget = client.budget;
    expect(budget.state.limited).toBe(0);
    expect(budget.state.figures).toMatchObject({ limit: 100, burst: 20, source: "server" });
    expect(server.connections()).toBe(50);
  });

  it("short waits for the budget are said once they add up to a second, never one line a request", async () => {
    // The service announces the documented limit; the budget runs on a clock only the test
    // moves, so how long each request waits does not depend on how fast the machine is.
    const srv = await startScriptedServer();
    stopAfterTest(() => srv.close());
    srv.fallback(
      json(
        200,
        { tenant_id: "t", principal_id: "usr_1", scopes: [] },
        { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "99", "x-ratelimit-reset": "60" },
      ),
    );
    const clock = new ManualClock(1_000_000);
    const client = new ApiClient({
      baseUrl: srv.url,
      apiKey: "ask_budget_test_key",
      maxAttempts: 1,
      budget: new RequestBudget({ clock }),
    });
    stopAfterTest(() => client.close());
    const said: string[] = [];
    stopAfterTest(
      client.rateLimit.subscribe(() => {
        const reason = client.rateLimit.waiting?.reason;
        if (reason !== undefined && said.at(-1) !== reason) said.push(reason);
      }),
    );
    // The burst goes at once, nothing said.
    for (let i = 0; i < 20; i++) await client.me();
    expect(said).toEqual([]);
    // Then each request waits its 0.6 s for a token: the second wait makes 1.2 s in all.
    for (let i = 0; i < 3; i++) {
      const done = client.me();
      await waitFor(() => clock.pending > 0, 5000, "the request to wait for a token");
      await clock.advance(600);
      await done;
    }
    expect(said).toEqual([
      "pacing requests to the service's limit (100 per minute, burst 20); short waits add up: 1.2 s so far",
    ]);
    expect(srv.seen).toHaveLength(23);
  });

  it("a 429 one caller gets holds every other caller of the client for its Retry-After", async () => {
    const srv = await startScriptedServer();
    stopAfterTest(() => srv.close());
    srv.reply(json(429, { detail: "slow down" }, { "retry-after": "1" }));
    srv.fallback((req, res) => {
      if (req.url?.endsWith("/events")) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(": open\n\n");
        return;
      }
      json(200, { tenant_id: "t", principal_id: "usr_1", scopes: [] })(req, res, "", 0);
    });
    const agent = new Agent({ keepAliveTimeout: 1000 });
    stopAfterTest(() => agent.destroy());
    const config = { baseUrl: srv.url, apiKey: "ask_budget_test_key", dispatcher: agent };
    const first = new ApiClient({ ...config, jitter: 0 });

    const firstDone = first.me();
    await waitFor(() => first.rateLimit.waiting !== null, 5000, "the 429 retry wait");
    const limitedAt = srv.seen[0]?.at ?? 0;
    // Another call and a stream of the same client, started while the first one waits.
    const otherDone = first.me();
    const sub = subscribeToSession({
      config,
      transport: first.transport,
      sessionId: "ses_budget1",
      onEvent: () => {},
    });
    stopAfterTest(() => sub.close());
    await Promise.all([firstDone, otherDone]);
    await waitFor(() => sub.status.state === "live", 5000, "the stream");

    expect(srv.seen).toHaveLength(4);
    // Nothing of this key reached the server before the Retry-After had passed.
    for (const r of srv.seen.slice(1)) expect(r.at - limitedAt).toBeGreaterThanOrEqual(990);
    expect(first.budget.state.limited).toBe(1);
  });

  it("two clients in one process have budgets of their own: one's hour-long 429 hold is not the other's", async () => {
    const srv = await startScriptedServer();
    stopAfterTest(() => srv.close());
    const limits = { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "99" };
    srv.reply(
      json(
        429,
        { detail: "slow down" },
        { "retry-after": "3600", ...limits, "x-ratelimit-remaining": "0" },
      ),
    );
    srv.fallback(json(200, { tenant_id: "t", principal_id: "usr_1", scopes: [] }, limits));
    const agent = new Agent({ keepAliveTimeout: 1000 });
    stopAfterTest(() => agent.destroy());
    const config = { baseUrl: srv.url, apiKey: "ask_budget_test_key", dispatcher: agent };
    // The first client is told to wait an hour: longer than it may wait, so it gives up.
    const held = new ApiClient({ ...config, maxAttempts: 1 });
    await expect(held.me()).rejects.toThrow();
    expect(held.budget.state.heldUntil).not.toBeNull();
    // The same service and key, another client: it goes at once.
    const other = new ApiClient({ ...config, maxAttempts: 1 });
    expect(other.budget).not.toBe(held.budget);
    expect(other.budget.state.heldUntil).toBeNull();
    const started = Date.now();
    await expect(other.me()).resolves.toHaveProperty("principal_id");
    expect(Date.now() - started).toBeLessThan(5000);
    expect(srv.seen).toHaveLength(2);
  });

  it("a 429 that says the key still has room (an hourly launch limit) fails that call only: the key's other calls go at once", async () => {
    const srv = await startScriptedServer();
    stopAfterTest(() => srv.close());
    const limits = { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "57" };
    srv.reply(
      json(
        429,
        { detail: "Launch limit reached: try again in 60 min" },
        {
          "retry-after": "3600",
          ...limits,
        },
      ),
    );
    srv.fallback(json(200, { tenant_id: "t", principal_id: "usr_1", scopes: [] }, limits));
    const agent = new Agent({ keepAliveTimeout: 1000 });
    stopAfterTest(() => agent.destroy());
    const client = new ApiClient({
      baseUrl: srv.url,
      apiKey: "ask_budget_test_key",
      dispatcher: agent,
    });
    await expect(client.me()).rejects.toThrow(/try again in 60 min/);
    expect(client.budget.state.heldUntil).toBeNull();
    const started = Date.now();
    await expect(client.me()).resolves.toHaveProperty("principal_id");
    expect(Date.now() - started).toBeLessThan(5000);
    expect(srv.seen).toHaveLength(2);
  });
});
