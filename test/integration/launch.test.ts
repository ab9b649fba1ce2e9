import { request as httpRequest } from "node:http";
import { Agent } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { MissingScopeError, RateLimitedError, UsageError } from "../../src/client/errors.js";
import { newIdempotencyKey } from "../../src/client/idempotency.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { PROVISION_MS } from "../../src/server/launches.js";
import { type ScriptedServer, startScriptedServer } from "../helpers/scriptedHttpServer.js";

// Starting work against the reference service (seeded, manual clock) and a scripted server:
// every documented launch option sent as documented, bad values refused before anything is
// sent, the Idempotency-Key keeping a lost answer from making a second session, the session
// provisioning before its first prompt, rename and destroy with their scopes.

let server: ReferenceServer;
let scripted: ScriptedServer;
let agent: Agent;

beforeAll(async () => {
  server = await startServer({
    paceMs: 0,
    sessionCount: 3,
    seed: 7,
    clock: "manual",
    promptStepMs: 5,
    rateLimit: { limit: 100, windowMs: 60_000, burst: 20 },
    launchesPerHour: 6,
  });
  scripted = await startScriptedServer();
  agent = new Agent({ keepAliveTimeout: 2000 });
});

afterAll(async () => {
  await agent.close();
  await scripted.close();
  await server.close();
});

afterEach(() => {
  scripted.seen.length = 0;
});

function client(keyName: string, baseUrl = server.url): ApiClient {
  return new ApiClient({
    baseUrl,
    apiKey: server.key(keyName),
    dispatcher: agent,
    backoffBaseMs: 5,
    jitter: 0,
    timeoutMs: 5_000,
  });
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected the call to fail");
}

/** Steps the manual clock until the session's first prompt ended; bounded. */
async function untilPromptEnds(id: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const r = server.sessions().find((s) => s.id === id);
    const status = r?.last_prompt?.status;
    if (status && status !== "running") return status;
    server.clock.advance(250);
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`the first prompt of ${id} did not end`);
}

describe("launch", () => {
  it("sends every documented option as documented, with an Idempotency-Key", async () => {
    scripted.reply((_req, res) => {
      res.writeHead(201, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: "ses_scripted1", state: "creating", message: "ok" }));
    });
    const c = client("owner", scripted.url);
    const key = newIdempotencyKey();
    const answer = await c.launch(
      {
        prompt: "Build a TODO API",
        agent: "codex",
        template: "backend-service",
        model: "opus",
        mode: "interactive",
        plan_mode: true,
        on_complete: "keep_alive",
        ttl_minutes: 1440,
        prompt_timeout_minutes: 120,
        github_repo: { full_name: "demo/app" },
      },
      { idempotencyKey: key },
    );
    await c.close();
    expect(answer).toMatchObject({ id: "ses_scripted1", state: "creating" });
    const seen = scripted.seen[0];
    expect(seen?.method).toBe("POST");
    expect(seen?.url).toBe("/api/v0/sessions/launch");
    expect(seen?.headers["idempotency-key"]).toBe(key);
    expect(JSON.parse(seen?.body ?? "")).toEqual({
      prompt: "Build a TODO API",
      agent: "codex",
      template: "backend-service",
      model: "opus",
      mode: "interactive",
      plan_mode: true,
      on_complete: "keep_alive",
      ttl_minutes: 1440,
      prompt_timeout_minutes: 120,
      github_repo: { full_name: "demo/app" },
    });
  });

  it.each([
    [{ prompt: "" }, "the prompt is empty"],
    [{ prompt: "x".repeat(100_001) }, "at most 100,000"],
    [{ prompt: "go", agent: "cursor" }, "agent must be one of"],
    [{ prompt: "go", model: "gpt" }, "model must be one of"],
    [{ prompt: "go", mode: "auto" }, "mode must be one of"],
    [{ prompt: "go", on_complete: "stop" }, "on_complete must be one of"],
    [{ prompt: "go", ttl_minutes: 0 }, "ttl_minutes must be from 1 to 1440"],
    [{ prompt: "go", ttl_minutes: 1441 }, "ttl_minutes must be from 1 to 1440"],
    [{ prompt: "go", ttl_minutes: 1.5 }, "whole number"],
    [{ prompt: "go", prompt_timeout_minutes: 121 }, "prompt_timeout_minutes must be from 1 to 120"],
    [{ prompt: "go", template: "mobile" }, "template must be one of"],
    [{ prompt: "go", github_repo: { full_name: "no-slash" } }, "OWNER/REPO"],
  ])("refuses %j before sending anything", async (req, said) => {
    const c = client("owner", scripted.url);
    const e = await caught(
      c.launch(req as Parameters<ApiClient["launch"]>[0], { idempotencyKey: newIdempotencyKey() }),
    );
    await c.close();
    expect(e).toBeInstanceOf(UsageError);
    expect((e as Error).message).toContain(said);
    expect(scripted.seen).toHaveLength(0);
  });

  it("a launch whose answer is lost (reset after the service made it) is retried with the same key: one session", async () => {
    const before = server.sessions().length;
    // The first launch reaches the reference service, which makes the session; its answer
    // never comes back (the connection is reset). The retry is passed through whole.
    const forward =
      (drop: boolean) =>
      (
        req: import("node:http").IncomingMessage,
        res: import("node:http").ServerResponse,
        body: string,
      ) => {
        const up = httpRequest(
          `${server.url}${req.url}`,
          { method: req.method, headers: { ...req.headers, host: new URL(server.url).host } },
          (upRes) => {
            const chunks: Buffer[] = [];
            upRes.on("data", (c: Buffer) => chunks.push(c));
            upRes.on("end", () => {
              if (drop) {
                req.socket.destroy();
                return;
              }
              res.writeHead(upRes.statusCode ?? 502, upRes.headers);
              res.end(Buffer.concat(chunks));
            });
          },
        );
        up.end(body);
      };
    scripted.reply(forward(true), forward(false));
    const c = client("owner", scripted.url);
    const key = newIdempotencyKey();
    const answer = await c.launch({ prompt: "Fix the login loop" }, { idempotencyKey: key });
    await c.close();
    expect(scripted.seen).toHaveLength(2);
    expect(scripted.seen.map((s) => s.headers["idempotency-key"])).toEqual([key, key]);
    expect(server.sessions()).toHaveLength(before + 1);
    expect(server.sessions()[0]?.id).toBe(answer.id);
  });

  it("a 5xx answer to a launch is asked again with the same key", async () => {
    scripted.reply(
      (_req, res) => {
        res.writeHead(503, { "content-type": "application/json" });
        res.end(JSON.stringify({ detail: "busy" }));
      },
      (_req, res) => {
        res.writeHead(201, { "content-type": "application/json" });
        res.end(JSON.stringify({ id: "ses_after503", state: "creating" }));
      },
    );
    const c = client("owner", scripted.url);
    const answer = await c.launch({ prompt: "go" }, { idempotencyKey: "intent-503" });
    await c.close();
    expect(answer.id).toBe("ses_after503");
    expect(scripted.seen.map((s) => s.headers["idempotency-key"])).toEqual([
      "intent-503",
      "intent-503",
    ]);
  });

  it("the same key within 24 hours is answered with the first answer; after, a new session", async () => {
    const c = client("owner");
    const first = await c.launch({ prompt: "Same intent" }, { idempotencyKey: "k-24h" });
    const again = await c.launch({ prompt: "Same intent" }, { idempotencyKey: "k-24h" });
    expect(again.id).toBe(first.id);
    server.clock.advance(24 * 60 * 60 * 1000 + 1000);
    const later = await c.launch({ prompt: "Same intent" }, { idempotencyKey: "k-24h" });
    await c.close();
    expect(later.id).not.toBe(first.id);
  });

  it("provisions (creating → running) before the first prompt runs, then pauses as asked", async () => {
    const c = client("owner");
    const { id, state } = await c.launch(
      {
        prompt: "Write the docs",
        agent: "opencode",
        template: "static-site",
        on_complete: "pause",
      },
      { idempotencyKey: newIdempotencyKey() },
    );
    expect(state).toBe("creating");
    let s = await c.getSession(id);
    expect(s.state).toBe("creating");
    expect(s.last_prompt ?? null).toBeNull();
    server.clock.advance(PROVISION_MS - 1);
    expect(server.promptRunning(id)).toBe(false);
    server.clock.advance(1);
    expect(server.promptRunning(id)).toBe(true);
    expect((await c.getSession(id)).state).toBe("running");
    expect(await untilPromptEnds(id)).toBe("completed");
    s = await c.getSession(id);
    await c.close();
    expect(s.state).toBe("paused");
    expect(s.agent).toBe("opencode");
    expect(s.name).toBe("Write the docs");
  });

  it("needs sessions:prompt as well as sessions:write", async () => {
    // listonly: sessions:read only.
    const c = client("listonly");
    const e = await caught(c.launch({ prompt: "go" }, { idempotencyKey: newIdempotencyKey() }));
    await c.close();
    expect(e).toBeInstanceOf(MissingScopeError);
    expect((e as Error).message).toContain("sessions:prompt");
  });

  it("past the organization's hourly launch limit: 429 saying when to try again", async () => {
    const c = client("admin");
    let e: unknown = null;
    for (let i = 0; i < 8 && e === null; i++) {
      e = await c.launch({ prompt: `launch ${i}` }, { idempotencyKey: newIdempotencyKey() }).then(
        () => null,
        (x: unknown) => x,
      );
    }
    await c.close();
    expect(e).toBeInstanceOf(RateLimitedError);
    expect((e as Error).message).toMatch(/launch limit reached.*try again in \d+ min/i);
  });
});

describe("create, rename, destroy", () => {
  it("creates a session with an Idempotency-Key (the same key: the same session)", async () => {
    const c = client("owner");
    const a = await c.createSession(
      { agent: "claude-code", name: "API refactor", visibility: "team" },
      { idempotencyKey: "create-1" },
    );
    const b = await c.createSession({ agent: "claude-code" }, { idempotencyKey: "create-1" });
    await c.close();
    expect(a.name).toBe("API refactor");
    expect(b.session_id).toBe(a.session_id);
  });

  it("renames, and refuses an empty name before sending", async () => {
    const c = client("owner");
    const id = server.sessionIds()[0] as string;
    const s = await c.renameSession(id, "Auth service rewrite");
    expect(s.name).toBe("Auth service rewrite");
    expect(server.sessions().find((r) => r.id === id)?.name).toBe("Auth service rewrite");
    const e = await caught(c.renameSession(id, "  "));
    await c.close();
    expect(e).toBeInstanceOf(UsageError);
  });

  it("destroys (204) with sessions:delete; a member's key is refused naming the scope", async () => {
    const id = server.sessionIds()[1] as string;
    const member = client("member");
    const refused = await caught(member.destroySession(id));
    await member.close();
    expect(refused).toBeInstanceOf(MissingScopeError);
    expect((refused as Error).message).toContain("sessions:delete");
    const c = client("owner");
    await c.destroySession(id);
    const again = await caught(c.destroySession(id));
    await c.close();
    expect(server.sessions().find((r) => r.id === id)?.state).toBe("destroyed");
    expect((again as Error).message).toMatch(/not found|destroyed/i);
  });
});
