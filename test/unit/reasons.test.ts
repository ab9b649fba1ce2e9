import { describe, expect, it } from "vitest";
import type { Session, SessionPage } from "../../src/protocol/resources.js";
import { createAttentionStore } from "../../src/store/attention/attentionStore.js";
import { nextUnseen, selectTopItems } from "../../src/store/attention/queue.js";
import { newCompletion, recordCauses } from "../../src/store/attention/reasons.js";
import { createSessionsStore } from "../../src/store/sessionsStore.js";

/**
 * "Finished" comes from a transition: a prompt seen running that completed, a completion
 * newer than the one last seen, or (at the first sight) one after the user last looked. A
 * record change that is no new completion never makes one. The queue holds one item per
 * session, and a seen item keeps its mark while its cause stands.
 */

const T1 = "2026-10-01T10:00:00Z";
const T2 = "2026-10-01T10:05:00Z";

const working = {
  session_id: "ses_a",
  state: "active",
  agent_status: "working",
  updated_at: T1,
  last_prompt: { status: "running", started_at: T1 },
};
const done = {
  ...working,
  agent_status: "idle",
  updated_at: T2,
  last_prompt: { status: "completed", started_at: T1, completed_at: T2 },
};
const reasonsOf = (rec: Record<string, unknown>, prev: Record<string, unknown> | null) =>
  recordCauses(rec, prev).map((c) => c.reason);

describe("finished", () => {
  it("is a prompt seen running that completed", () => {
    expect(newCompletion(done, working, null)).toBe(true);
    expect(reasonsOf(done, working)).toEqual(["finished"]);
  });

  it("is never an idle auto-pause, an approval arriving, a rename or a list read again", () => {
    const paused = { ...done, state: "paused", paused_at: "2026-10-01T10:25:00Z" };
    expect(reasonsOf(paused, done)).toEqual(["paused"]);
    // Even when the record said working before the pause, no prompt completed.
    const wasWorking = { ...done, agent_status: "working" };
    expect(reasonsOf({ ...paused, agent_status: "idle" }, wasWorking)).toEqual(["paused"]);
    // The agent was working (an old prompt completed) and now waits on an approval.
    const asks = { ...done, agent_status: "awaiting_approval", updated_at: "2026-10-01T11:00:00Z" };
    expect(reasonsOf(asks, { ...done, agent_status: "working" })).toEqual(["approval"]);
    expect(reasonsOf({ ...done, name: "renamed" }, done)).toEqual([]);
    expect(reasonsOf(done, done)).toEqual([]);
  });

  it("without last_prompt: working to idle in the same state, never through a pause", () => {
    const w = { session_id: "ses_b", state: "active", agent_status: "working" };
    expect(reasonsOf({ ...w, agent_status: "idle" }, w)).toEqual(["finished"]);
    expect(reasonsOf({ ...w, agent_status: "idle", state: "paused" }, w)).toEqual(["paused"]);
  });

  it("at the first sight: only a completion after the user last looked (the journal's memory)", () => {
    expect(newCompletion(done, null, null)).toBe(false);
    expect(newCompletion(done, null, Date.parse(T1))).toBe(true);
    expect(newCompletion(done, null, Date.parse(T2))).toBe(false);
  });
});

function listOf(records: () => Partial<Session>[]) {
  return {
    async listSessions(): Promise<SessionPage> {
      return { sessions: records() as Session[], total: null, hasMore: false, next: null };
    },
  };
}

describe("the queue", () => {
  it("holds one item per session: finished then paused, or destroyed, is one item", async () => {
    let records: Partial<Session>[] = [working as Partial<Session>];
    const sessions = createSessionsStore(listOf(() => records));
    const attention = createAttentionStore({ sessions });
    await sessions.getState().load();
    records = [done as Partial<Session>];
    await sessions.getState().refreshLive();
    expect(attention.getState().items.map((i) => i.reason)).toEqual(["finished"]);
    expect(attention.getState().lastRaised.map((i) => i.reason)).toEqual(["finished"]);
    // It pauses by itself after a while: still one item, the finish not yet seen.
    records = [
      { ...done, state: "paused", updated_at: "2026-10-01T10:30:00Z" } as Partial<Session>,
    ];
    await sessions.getState().refreshLive();
    expect(attention.getState().items.map((i) => i.reason)).toEqual(["finished"]);
    // Destroyed: one item, the destruction.
    records = [
      { ...done, state: "destroyed", updated_at: "2026-10-01T10:40:00Z" } as Partial<Session>,
    ];
    await sessions.getState().refreshLive();
    expect(attention.getState().items.map((i) => [i.sessionId, i.reason])).toEqual([
      ["ses_a", "destroyed"],
    ]);
    attention.dispose();
  });

  it("`a` marks the next item seen; an open cause keeps its mark, a finish seen goes", async () => {
    const records: Partial<Session>[] = [
      { session_id: "ses_f", state: "error", updated_at: T1 },
      { session_id: "ses_q", state: "active", agent_status: "awaiting_approval", updated_at: T2 },
    ];
    const sessions = createSessionsStore(listOf(() => records));
    const attention = createAttentionStore({ sessions });
    await sessions.getState().load();
    for (let n = 0; n < 3; n++) {
      const s = attention.getState();
      const next = nextUnseen(s, null);
      if (next) s.acknowledge(next.sessionId);
    }
    const s = attention.getState();
    expect(s.items.every((i) => i.seen)).toBe(true);
    expect([...selectTopItems(s)].map(([id, i]) => [id, i.reason])).toEqual([
      ["ses_q", "approval"],
      ["ses_f", "failed"],
    ]);
    attention.dispose();
  });
});
