import { describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { createIdentityStore } from "../../src/store/identityStore.js";
import { createRateLimitStore } from "../../src/store/rateLimitStore.js";
import { startScriptedServer, unusedPort } from "../helpers/scriptedHttpServer.js";

/** The stores the UI reads carry what a network failure was, not only its message. */

describe("network failures in the stores", () => {
  it("a refused key check is classified as refused in the identity store", async () => {
    const port = await unusedPort();
    const client = new ApiClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "k".repeat(20) });
    const identity = createIdentityStore();
    await identity.getState().load(client);
    const { error, identityError } = identity.getState();
    expect(error?.code).toBe("network");
    expect(error?.network).toBe("refused");
    expect(error?.message).toContain("connection refused");
    expect(error?.hint).toMatch(/nothing is listening/i);
    expect(identityError?.network).toBe("refused");
  });

  it("a retry wait in the rate-limit store names its cause", async () => {
    const srv = await startScriptedServer();
    try {
      srv.reply((req) => req.socket.destroy());
      srv.fallback((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ tenant_id: "t", principal_id: "p", scopes: [] }));
      });
      const client = new ApiClient({
        baseUrl: srv.url,
        apiKey: "k".repeat(20),
        backoffBaseMs: 5,
        jitter: 0,
      });
      const store = createRateLimitStore(client.rateLimit);
      const seen: unknown[] = [];
      const unsubscribe = store.subscribe((s) => {
        if (s.waiting) seen.push(s.waiting.cause);
      });
      await client.me();
      unsubscribe();
      store.dispose();
      expect(seen).toEqual([{ kind: "network", failure: "reset" }]);
    } finally {
      await srv.close();
    }
  });
});
