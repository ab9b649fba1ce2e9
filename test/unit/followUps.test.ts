import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { followUpFile, followUpPath } from "../../src/cli/journal/followUpFile.js";
import type { PromptOutcome } from "../../src/client/apiClient.js";
import { createFollowUps, type FollowUpDeps, MAX_QUEUED } from "../../src/store/act/followUps.js";

/**
 * The follow-up queue: replies given while a prompt runs wait, go one at a time as each
 * prompt completes, stop at a failure or a cancel until the user sends, and are kept in a
 * 0600 file across a restart.
 */

interface Sent {
  prompt: string;
  end: (o: PromptOutcome) => void;
}

function fakeService() {
  const sent: Sent[] = [];
  const ended: { id: string; end: (e: "completed" | { why: string }) => void }[] = [];
  let cancels = 0;
  const deps: FollowUpDeps = {
    send: (_id, prompt) =>
      new Promise<PromptOutcome | null>((end) => {
        sent.push({ prompt, end });
      }),
    cancel: async () => {
      cancels++;
      sent.at(-1)?.end({ kind: "error", items: 1, message: "Prompt cancelled" });
    },
    promptEnd: (id) => new Promise((end) => ended.push({ id, end })),
  };
  return { sent, ended, deps, cancels: () => cancels };
}

const tick = () => new Promise((r) => setImmediate(r));
const done: PromptOutcome = { kind: "done", items: 3 };

let dir: string | null = null;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = null;
});

describe("follow-up queue", () => {
  it("replies given while a prompt runs go one at a time, each when the one before completes", async () => {
    const svc = fakeService();
    const q = createFollowUps(svc.deps);
    expect(await Promise.race([q.submit("s1", "first"), tick().then(() => "pending")])).toBe(
      "pending",
    );
    expect(await q.submit("s1", "second")).toBe("queued");
    expect(await q.submit("s1", "third")).toBe("queued");
    expect(q.getState().queues.get("s1")).toEqual(["second", "third"]);
    svc.sent[0]?.end(done);
    await tick();
    expect(svc.sent.map((s) => s.prompt)).toEqual(["first", "second"]);
    expect(q.getState().queues.get("s1")).toEqual(["third"]);
    svc.sent[1]?.end(done);
    await tick();
    expect(svc.sent.map((s) => s.prompt)).toEqual(["first", "second", "third"]);
    expect(q.getState().queues.has("s1")).toBe(false);
  });

  it("a failed prompt holds the queue until the user sends; then it goes on", async () => {
    const svc = fakeService();
    const q = createFollowUps(svc.deps);
    void q.submit("s1", "first");
    await q.submit("s1", "second");
    svc.sent[0]?.end({ kind: "error", items: 2, message: "the agent crashed" });
    await tick();
    expect(svc.sent).toHaveLength(1);
    expect(q.getState().held.get("s1")).toBe("the prompt before failed: the agent crashed");
    // A reply while held is sent at once (the user takes over), and the queue follows it.
    void q.submit("s1", "fix it");
    await tick();
    expect(svc.sent.map((s) => s.prompt)).toEqual(["first", "fix it"]);
    expect(q.getState().held.has("s1")).toBe(false);
    svc.sent[1]?.end(done);
    await tick();
    expect(svc.sent.map((s) => s.prompt)).toEqual(["first", "fix it", "second"]);
  });

  it("a reply the service refuses as already running waits for the record to say completed", async () => {
    const svc = fakeService();
    const q = createFollowUps(svc.deps);
    const r = q.submit("s1", "after yours");
    svc.sent[0]?.end({ kind: "already_running", status: 202, body: { status: "already_running" } });
    expect(await r).toBe("queued");
    expect(q.getState().queues.get("s1")).toEqual(["after yours"]);
    expect(svc.ended.map((e) => e.id)).toEqual(["s1"]);
    svc.ended[0]?.end("completed");
    await tick();
    expect(svc.sent.map((s) => s.prompt)).toEqual(["after yours", "after yours"]);
  });

  it("send now cancels the running prompt and sends; the queue is not held by the cancel", async () => {
    const svc = fakeService();
    const q = createFollowUps(svc.deps);
    void q.submit("s1", "slow");
    await q.submit("s1", "later");
    await Promise.race([q.sendNow("s1", "urgent"), tick()]);
    await tick();
    expect(svc.cancels()).toBe(1);
    expect(svc.sent.map((s) => s.prompt)).toEqual(["slow", "urgent"]);
    expect(q.getState().held.has("s1")).toBe(false);
    svc.sent[1]?.end(done);
    await tick();
    expect(svc.sent.map((s) => s.prompt)).toEqual(["slow", "urgent", "later"]);
  });

  it("edit and drop change what is queued; a full queue refuses more", async () => {
    const svc = fakeService();
    const q = createFollowUps(svc.deps);
    void q.submit("s1", "running");
    for (let i = 0; i < MAX_QUEUED; i++) expect(await q.submit("s1", `n${i}`)).toBe("queued");
    expect(await q.submit("s1", "one more")).toBe("full");
    q.edit("s1", 1, "changed");
    q.drop("s1", 0);
    expect(q.getState().queues.get("s1")?.slice(0, 2)).toEqual(["changed", "n2"]);
  });

  it("queues and what holds them survive a restart, in a 0600 file per profile", async () => {
    dir = await mkdtemp(join(tmpdir(), "followups-"));
    const path = followUpPath(dir, "work");
    const svc = fakeService();
    const file = followUpFile(path);
    const q = createFollowUps({ ...svc.deps, storage: file });
    void q.submit("s1", "first");
    await q.submit("s1", "second");
    void q.submit("s2", "other");
    await q.submit("s2", "other next");
    svc.sent[1]?.end({ kind: "cut", items: 1, reason: "the connection was reset" });
    await tick();
    await file.flushed?.();
    if (process.platform !== "win32") expect((await stat(path)).mode & 0o777).toBe(0o600);
    const svc2 = fakeService();
    const file2 = followUpFile(path);
    const again = createFollowUps({ ...svc2.deps, storage: file2 });
    expect(again.getState().queues.get("s1")).toEqual(["second"]);
    expect(again.getState().held.get("s2")).toMatch(/cut: the connection was reset/);
    again.start();
    // Only the queue not held waits for its session's prompt to end.
    expect(svc2.ended.map((e) => e.id)).toEqual(["s1"]);
    svc2.ended[0]?.end("completed");
    await tick();
    expect(svc2.sent.map((s) => s.prompt)).toEqual(["second"]);
    // The second run's last save is written before the folder goes (afterEach).
    await file2.flushed?.();
  });
});
