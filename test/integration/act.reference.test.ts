import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { HttpError, MissingScopeError, UsageError } from "../../src/client/errors.js";
import type { PromptItem } from "../../src/protocol/prompt.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { decideApproval, describeDecision } from "../../src/store/act/approvalDecision.js";
import { createApprovalsBook } from "../../src/store/approvals/approvalsBook.js";

// Acting on a session against the reference service: a prompt and its streamed answer (also
// on the session's history), already running, cancel, approvals with their role gate and
// 404/409, and the lifecycle with its documented errors and scopes.

let server: ReferenceServer;
// A prompt here runs until it is cancelled or the test moves the clock: "while one runs" is
// the service's state, not a race against the answer's steps (360 ms in all on `server`).
let held: ReferenceServer;
let agent: Agent;

beforeAll(async () => {
  const opts = {
    paceMs: 0,
    sessionCount: 14,
    seed: 24,
    promptStepMs: 40,
    demoApprovals: false,
    rateLimit: { limit: 100, windowMs: 60_000, burst: 20 },
  };
  [server, held] = await Promise.all([
    startServer(opts),
    startServer({ ...opts, clock: "manual", promptSteps: "clock" }),
  ]);
  agent = new Agent({ keepAliveTimeout: 2000 });
});

afterAll(async () => {
  await agent.close();
  await Promise.all([server?.close(), held?.close()]);
});

function client(keyName: string, on = server): ApiClient {
  return new ApiClient({
    baseUrl: on.url,
    apiKey: on.key(keyName),
    dispatcher: agent,
    backoffBaseMs: 5,
    jitter: 0,
    timeoutMs: 10_000,
  });
}

function activeSession(n = 0, on = server): string {
  const s = on.sessions().filter((r) => r.state === "active")[n];
  if (!s) throw new Error("no active session");
  return s.id;
}

describe("prompt", () => {
  it("streams the agent's answer item by item to done, and logs it in the session's history", async () => {
    const id = activeSession(0);
    const items: PromptItem[] = [];
    const end = await client("member").sendPrompt(id, "Add input validation", {
      onItem: (i) => items.push(i),
    });
    expect(end).toMatchObject({ kind: "done" });
    expect(items.at(-1)?.type).toBe("done");
    expect(items.map((i) => i.type)).toContain("tool_use");
    const text = items
      .filter((i) => i.type === "text")
      .map((i) => i.content)
      .join("");
    expect(text).toContain("Add input validation");
    const history = await client("member").sessionHistory(id);
    const entries = (history?.events ?? []) as { type?: string; content?: unknown }[];
    expect(entries.some((e) => e.type === "user" && e.content === "Add input validation")).toBe(
      true,
    );
    expect(entries.some((e) => e.type === "assistant_text")).toBe(true);
  });

  it("a second prompt while one runs is 202 already_running; cancel stops the first, then nothing runs", async () => {
    const id = activeSession(1, held);
    const c = client("member", held);
    const first = c.sendPrompt(id, "long work", { onItem: () => {} });
    await expect.poll(() => held.promptRunning(id)).toBe(true);
    const second = await c.sendPrompt(id, "again", { onItem: () => {} });
    expect(second).toMatchObject({ kind: "already_running", status: 202 });
    expect(await c.cancelPrompt(id)).toEqual({ session_id: id, cancelled: true });
    expect(await first).toMatchObject({ kind: "error", message: "Prompt cancelled" });
    expect(await c.cancelPrompt(id)).toEqual({ session_id: id, cancelled: false });
  });

  it("refuses an empty or oversized prompt before sending anything; the scope is sessions:prompt", async () => {
    const id = activeSession(0);
    const before = server.requestCounts().requests;
    await expect(client("member").sendPrompt(id, "  ", { onItem: () => {} })).rejects.toThrow(
      UsageError,
    );
    await expect(
      client("member").sendPrompt(id, "x".repeat(100_001), { onItem: () => {} }),
    ).rejects.toThrow(/100,000/);
    expect(server.requestCounts().requests).toBe(before);
    const e = await client("listonly")
      .sendPrompt(id, "hi", { onItem: () => {} })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MissingScopeError);
    expect((e as MissingScopeError).message).toContain("sessions:prompt");
  });

  it("a prompt on a paused session resumes it", async () => {
    const id = activeSession(2);
    server.setState(id, "paused");
    const end = await client("member").sendPrompt(id, "wake up", { onItem: () => {} });
    expect(end.kind).toBe("done");
    expect(server.sessions().find((s) => s.id === id)?.state).toBe("active");
  });
});

describe("approvals", () => {
  it("lists pending approvals and resolves them; 409 reads again who resolved it, 404 says gone", async () => {
    const id = activeSession(3);
    const a = server.addApproval(id, { kind: "deploy", message: "Ship it?" });
    const list = await client("member").listApprovals(id);
    expect(list.items[0]).toMatchObject({ id: a.id, kind: "deploy", status: "pending" });
    // The record says the agent waits, as the real service's agent_status does...
    expect(((await client("member").getSession(id)) as Record<string, unknown>).agent_status).toBe(
      "awaiting_approval",
    );

    const book = createApprovalsBook({ api: client("member") });
    const done = await decideApproval(client("member"), book, id, a.id, "approve", "ship it");
    expect(done.kind).toBe("resolved");
    // ...and once the last one is decided, it works again.
    expect(((await client("member").getSession(id)) as Record<string, unknown>).agent_status).toBe(
      "working",
    );
    expect(describeDecision(done, a.id, "approve")).toMatch(/approved by usr_\w+ at .*ship it/);

    const again = await decideApproval(client("owner"), book, id, a.id, "reject");
    expect(again.kind).toBe("already");
    expect(describeDecision(again, a.id, "reject")).toMatch(
      /was already approved by usr_\w+ at .*nothing was rejected/,
    );

    const gone = await decideApproval(client("member"), book, id, "ap_nope", "approve");
    expect(gone.kind).toBe("gone");
  });

  it("an approval for admins is refused to a member with the service's 403, allowed to an admin", async () => {
    const id = activeSession(3);
    const a = server.addApproval(id, { required_role: "admin" });
    const e = await client("member")
      .resolveApproval(id, a.id, "approve")
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MissingScopeError);
    expect((e as Error).message).toContain("requires the admin role");
    expect(await client("admin").resolveApproval(id, a.id, "reject")).toMatchObject({
      status: "rejected",
    });
  });

  it("a note over 512 characters, or an unsafe approval id, is refused before sending", async () => {
    const id = activeSession(3);
    const before = server.requestCounts().requests;
    await expect(
      client("member").resolveApproval(id, "ap_1", "approve", "n".repeat(513)),
    ).rejects.toThrow(/512/);
    await expect(client("member").resolveApproval(id, "../x", "approve")).rejects.toThrow(
      /cannot be used in a request/,
    );
    expect(server.requestCounts().requests).toBe(before);
    await expect(client("readonly").resolveApproval(id, "ap_1", "approve")).rejects.toThrow(
      /sessions:write/,
    );
  });
});

describe("lifecycle", () => {
  it("pause, resume and start answer as documented, with their errors", async () => {
    const id = activeSession(4);
    const c = client("member");
    expect(await c.pause(id)).toMatchObject({ id, message: "Session paused successfully" });
    expect(server.sessions().find((s) => s.id === id)?.state).toBe("paused");
    expect(await c.resume(id)).toMatchObject({ id, message: "Session resumed successfully" });
    expect(await c.start(id)).toMatchObject({ id, state: "running", server_ready: true });

    const onHeld = client("member", held);
    const working = activeSession(4, held);
    const running = onHeld.sendPrompt(working, "busy", { onItem: () => {} });
    await expect.poll(() => held.promptRunning(working)).toBe(true);
    const busy = await onHeld.pause(working).catch((x: unknown) => x);
    expect(busy).toBeInstanceOf(HttpError);
    expect((busy as HttpError).status).toBe(409);
    expect((busy as Error).message).toContain("Cannot pause while a prompt is running");
    // The rest of the answer: its nine steps, 40 ms apart on the held service's clock.
    held.clock.advance(10 * 40);
    expect(await running).toMatchObject({ kind: "done" });

    const ended = activeSession(6);
    server.setState(ended, "destroyed");
    const gone = await c.start(ended).catch((x: unknown) => x);
    expect((gone as HttpError).status).toBe(410);
    expect((gone as HttpError).hint).toMatch(/gone/);
    const other = activeSession(5);
    await c.pause(other);
    expect(await c.pause(other)).toMatchObject({ message: "Session is already paused" });
    const wrongState = await c.resume(ended).catch((x: unknown) => x);
    expect((wrongState as HttpError).status).toBe(410);
    await c.resume(other);
    const scope = await client("readonly")
      .pause(id)
      .catch((x: unknown) => x);
    expect(scope).toBeInstanceOf(MissingScopeError);
  });

  it("start on a session still being provisioned says try again (503), without looping", async () => {
    // A service of its own: its request count is this test's alone (on the shared one, a
    // request the previous tests' clients still had in flight was counted once under load).
    const own = await startServer({ paceMs: 0, sessionCount: 6, seed: 24 });
    try {
      const id = activeSession(0, own);
      own.setState(id, "creating");
      const before = own.requestCounts().requests;
      const e = await client("member", own)
        .start(id)
        .catch((x: unknown) => x);
      expect((e as HttpError).status).toBe(503);
      expect((e as Error).message).toMatch(/try again/i);
      expect(own.requestCounts().requests - before).toBe(1);
    } finally {
      await own.close();
    }
  });
});
