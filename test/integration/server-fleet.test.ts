import { afterEach, describe, expect, it } from "vitest";
import { type ReferenceServer, type ServerOptions, startServer } from "../../src/server/index.js";
import { api } from "./serverTestUtils.js";

/** The reference service's behaviour for fleets: the documented burst limit. */

const servers: ReferenceServer[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function start(opts: ServerOptions): Promise<ReferenceServer> {
  const s = await startServer({ paceMs: 0, sessionCount: 2, ...opts });
  servers.push(s);
  return s;
}

describe("reference service: burst limit", () => {
  it("lets `burst` requests through at once, then refuses with a Retry-After for the next token", async () => {
    const s = await start({ rateLimit: { limit: 6, windowMs: 60_000, burst: 3 } });
    const key = s.key("member");
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await api(s.url, "/api/sessions", { key })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await api(s.url, "/api/sessions", { key });
    expect(refused.status).toBe(429);
    // One token every 10 s at 6 a minute, while the window itself still has room.
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(8);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(10);
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("3");
    // Per key, like the window.
    expect((await api(s.url, "/api/sessions", { key: s.key("owner") })).status).toBe(200);
  });
});
