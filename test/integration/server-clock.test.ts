import { afterEach, describe, expect, it } from "vitest";
import { runServe } from "../../src/cli/commands/serve.js";
import {
  CLOCK_CONTROL_PATH,
  ManualClock,
  type ReferenceServer,
  type ServerOptions,
  startServer,
} from "../../src/server/index.js";
import { api, openSse, waitFor } from "./serverTestUtils.js";

/**
 * The reference service's deterministic mode: a seed and a clock the test drives. The simulated
 * sessions change only when the clock is advanced, and a seed makes them change the same way
 * on every run, however busy the machine.
 */

const servers: ReferenceServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function start(opts: ServerOptions = {}): Promise<ReferenceServer> {
  const s = await startServer({ seed: 5, paceMs: 50, clock: "manual", ...opts });
  servers.push(s);
  return s;
}

/** What a test would assert on: each session's lifecycle and progress. */
function facts(s: ReferenceServer) {
  return s.sessions().map((r) => ({
    id: r.id,
    state: r.state,
    events: r.event_count,
    prompts: r.prompt_count,
    agent: r.agent_status,
    prompt: r.last_prompt?.status ?? null,
    updated: r.updated_at,
  }));
}

describe("ManualClock", () => {
  it("runs what falls due in time order, each at its own time, those scheduled on the way too", () => {
    const clock = new ManualClock(1_000);
    const seen: string[] = [];
    clock.schedule(() => seen.push(`b@${clock.now()}`), 20);
    clock.schedule(() => {
      seen.push(`a@${clock.now()}`);
      clock.schedule(() => seen.push(`c@${clock.now()}`), 5);
    }, 10);
    const late = clock.schedule(() => seen.push("never"), 15);
    clock.cancel(late);
    clock.schedule(() => seen.push("later"), 100);
    expect(clock.advance(30)).toBe(1_030);
    expect(seen).toEqual(["a@1010", "c@1015", "b@1020"]);
    expect(clock.now()).toBe(1_030);
    clock.advance(70);
    expect(seen.at(-1)).toBe("later");
    expect(() => clock.advance(-1)).toThrow(RangeError);
  });
});

describe("reference service: the simulator on a manual clock", () => {
  it("stands still until advanced, however much real time passes", async () => {
    const s = await start({ paceMs: 1 });
    const before = facts(s);
    // At a 1 ms pace the real-time simulator would have sent hundreds of events by now.
    await new Promise((r) => setTimeout(r, 100));
    expect(facts(s)).toEqual(before);
    expect(s.clock.manual).toBe(true);
  });

  it("with one seed, advancing the same steps makes the same sessions do the same things", async () => {
    const [a, b] = await Promise.all([start(), start()]);
    // Real time passes differently for the two servers; their clocks do not.
    const t0 = a.clock.now();
    for (let i = 0; i < 40; i++) a.clock.advance(250);
    await new Promise((r) => setTimeout(r, 20));
    b.clock.advance(10_000);
    expect(a.clock.now() - t0).toBe(10_000);
    const moved = facts(a);
    expect(moved.map(({ updated: _, ...f }) => f)).toEqual(
      facts(b).map(({ updated: _, ...f }) => f),
    );
    // And they did something: events on every session that was active.
    expect(moved.reduce((n, f) => n + (f.events ?? 0), 0)).toBeGreaterThan(0);
    expect(a.sessionIds()).toEqual(b.sessionIds());
  });

  it("delivers what an advance makes to a live stream, in order", async () => {
    const s = await start();
    const owner = s.key("owner");
    const id = s.sessions().find((r) => r.state === "active")?.id as string;
    const sse = await openSse(`${s.url}/api/sessions/${id}/events`, owner);
    try {
      const before = s.sessions().find((r) => r.id === id)?.event_count ?? 0;
      s.clock.advance(5_000);
      const after = s.sessions().find((r) => r.id === id)?.event_count ?? 0;
      expect(after).toBeGreaterThan(before);
      await waitFor(() => sse.events().length === after - before, 5_000, "the advanced events");
      expect(sse.events().map((e) => Number(e.id))).toEqual(
        Array.from({ length: after - before }, (_, i) => before + i + 1),
      );
    } finally {
      sse.close();
    }
  });

  it("can start in the past, so a test gets sessions with a simulated history that ends now", async () => {
    const start0 = Date.now() - 60_000;
    const s = await start({ clock: new ManualClock(start0) });
    s.clock.advance(60_000);
    expect(Math.abs(s.clock.now() - Date.now())).toBeLessThan(5_000);
    const active = s.sessions().filter((r) => r.event_count && r.event_count > 0);
    expect(active.length).toBeGreaterThan(0);
    for (const r of active) {
      expect(Date.parse(r.last_activity_at ?? "")).toBeLessThanOrEqual(s.clock.now());
    }
  });

  it("refuses to be advanced on real time", async () => {
    const s = await start({ clock: "system", paceMs: 0 });
    expect(s.clock.manual).toBe(false);
    expect(() => s.clock.advance(10)).toThrow(/clock: 'manual'/);
    // No control route on real time: the path is unknown like any other.
    const r = await api(s.url, CLOCK_CONTROL_PATH, { method: "POST", body: { ms: 10 } });
    expect(r.status).toBe(404);
  });
});

describe("serve --clock manual: stepped over HTTP by a test that runs it as a process", () => {
  it("POST /_clock/advance moves the clock from loopback; bad steps are refused", async () => {
    let out = "";
    let stop: () => void = () => {};
    const stopped = new Promise<void>((r) => {
      stop = r;
    });
    const serving = runServe(
      {
        host: "127.0.0.1",
        port: 0,
        heartbeatMs: 60_000,
        paceMs: 50,
        sessions: 3,
        seed: 9,
        clock: "manual",
        rateLimit: 600,
        rateWindowMs: 60_000,
        historyLimit: 100,
        history: 0,
      },
      { out: (t) => (out += t), err: () => {}, until: () => stopped },
    );
    try {
      await waitFor(() => out.includes("Stop with Ctrl-C"), 10_000, "the banner");
      const url = /Base URL: (\S+)/.exec(out)?.[1] as string;
      expect(out).toContain(`Simulator clock: manual`);
      expect(out).toContain(`POST ${url}${CLOCK_CONTROL_PATH}`);
      const key = /owner\s+owner\s+(ask_\w+)/.exec(out)?.[1] as string;
      const list = async () =>
        (
          (await api(url, "/api/sessions?include_destroyed=true", { key })).body as {
            sessions: { event_count: number }[];
          }
        ).sessions.reduce((n, r) => n + r.event_count, 0);
      const before = await list();
      expect(await list()).toBe(before);
      const r = await api(url, CLOCK_CONTROL_PATH, { method: "POST", body: { ms: 5_000 } });
      expect(r.status).toBe(200);
      expect(Date.parse((r.body as { now: string }).now)).toBeGreaterThan(0);
      expect(await list()).toBeGreaterThan(before);
      const bad = await api(url, CLOCK_CONTROL_PATH, { method: "POST", body: { ms: -5 } });
      expect(bad.status).toBe(422);
      expect(bad.body).toMatchObject({ detail: { field: "ms" } });
      expect((await api(url, CLOCK_CONTROL_PATH)).status).toBe(405);
    } finally {
      stop();
      await serving;
    }
  });
});

describe("a user's prompt and the simulated agent (manual clock)", () => {
  it("the agent's own work ends whole before the prompt's answer, nothing of it comes in between, and a second prompt is refused as already running", async () => {
    const s = await start({ promptStepMs: 5 });
    const key = s.key("owner");
    // A session in the middle of the simulated agent's own prompt.
    let id: string | undefined;
    for (let i = 0; i < 2_000 && id === undefined; i++) {
      s.clock.advance(10);
      id = s
        .sessions()
        .find((r) => r.state === "active" && r.last_prompt?.status === "running")?.id;
    }
    if (id === undefined) throw new Error("no session started a simulated prompt in 20 s of clock");
    const sid = id;
    const first = api(s.url, `/api/sessions/${sid}/prompt`, {
      key,
      method: "POST",
      body: { prompt: "Please also add a changelog entry." },
    });
    await waitFor(() => s.promptRunning(sid), 5_000, "the prompt to run");
    // Time passes for the simulator while the answer streams: it leaves this session alone.
    for (let i = 0; i < 50; i++) s.clock.advance(100);
    const second = await api(s.url, `/api/sessions/${sid}/prompt`, {
      key,
      method: "POST",
      body: { prompt: "And bump the version." },
    });
    expect(second.status).toBe(202);
    expect(second.body).toEqual({ status: "already_running" });
    expect((await first).status).toBe(200);

    const history = await api(s.url, `/api/cloud/sessions/${sid}/history`, { key });
    const entries = (history.body as { events: { type: string; content?: unknown }[] }).events;
    const user = entries.findIndex(
      (e) => e.type === "user" && e.content === "Please also add a changelog entry.",
    );
    expect(user).toBeGreaterThan(0);
    // The simulated prompt ended (done or failed) before the user's began.
    const before = entries.slice(0, user).map((e) => e.type);
    expect(["completion", "done", "error"]).toContain(
      before.findLast((t) => t !== "tool_result" && t !== "file_changed" && t !== "state_changed"),
    );
    // From the user's prompt on: its answer whole, in order, and nothing else.
    const answer = entries.slice(user + 1, user + 7);
    expect(answer.map((e) => e.type)).toEqual([
      "assistant_text",
      "tool_use",
      "tool_result",
      "assistant_text",
      "tool_use",
      "tool_result",
    ]);
    expect(answer[0]?.content).toBe('I\'ll look into "Please also add a changelog entry.".\n');
    expect(answer[3]?.content).toBe(
      "The entry point is small; I made the change and the tests pass.\n",
    );
    expect(entries.slice(user).filter((e) => e.type === "user")).toHaveLength(1);
  });
});
