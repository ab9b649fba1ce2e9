import { afterEach, describe, expect, it } from "vitest";
import { type ReferenceServer, type ServerOptions, startServer } from "../../src/server/index.js";
import { advanceUntil } from "../helpers/simulatedClock.js";
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
    // What a benchmark reads back: every request, and the 429s among them.
    expect(s.requestCounts()).toMatchObject({ requests: 6, rateLimited: 2 });
  });
});

describe("reference service: a fleet's life", () => {
  it("sessions now and then fail (and are retried), get destroyed, and new ones take their place", async () => {
    const s = await start({
      paceMs: 5,
      sessionCount: 6,
      seed: 3,
      heartbeatMs: 1000,
      clock: "manual",
    });
    const seen = new Set<string>();
    await advanceUntil(
      s,
      () => {
        for (const r of s.sessions()) seen.add(r.state);
        const all = ["error", "destroyed", "creating"].every((x) => seen.has(x));
        return all && s.sessions().length > 6;
      },
      "a failure, a destroy and its replacement",
      { stepMs: 5, maxSteps: 20_000 },
    );
    expect([...seen]).toEqual(expect.arrayContaining(["error", "destroyed", "creating"]));
    const records = s.sessions();
    expect(records.length).toBeGreaterThan(6);
    // The newest first, as the list endpoint says: the replacement heads the list.
    const newest = records[0];
    expect(Date.parse(newest?.created_at ?? "")).toBeGreaterThan(
      Date.parse(records[1]?.created_at ?? ""),
    );
    // Sessions share the two repositories, so the same paths come up in several of them.
    expect(new Set(records.map((r) => r.repo)).size).toBe(2);
  });
});
