import { describe, expect, it } from "vitest";
import { NetworkError } from "../../src/client/errors.js";
import type { Approval } from "../../src/protocol/approvals.js";
import type { Session, SessionPage } from "../../src/protocol/resources.js";
import {
  awaitingSourcesOf,
  createApprovalsBook,
  followAwaiting,
} from "../../src/store/approvals/approvalsBook.js";
import {
  type AttentionStoreOptions,
  createAttentionStore,
} from "../../src/store/attention/attentionStore.js";
import { nextUnseen, selectMarkedIds } from "../../src/store/attention/queue.js";
import {
  attentionConfigFrom,
  DEFAULT_ATTENTION,
  parseAttentionSetting,
} from "../../src/store/attention/reasons.js";
import { createSessionsStore } from "../../src/store/sessionsStore.js";
import { createStreamsStore } from "../../src/store/streams/streamsStore.js";

/**
 * The attention queue fed by the list and by streams, without a network (the whole list over
 * HTTP is test/integration/attentionWholeList.test.ts): which reasons queue, which notify,
 * the times they carry and when they leave.
 */

function listOf(records: () => Partial<Session>[]) {
  return {
    async listSessions(): Promise<SessionPage> {
      return {
        sessions: records().map((r) => r as Session),
        total: null,
        hasMore: false,
        next: null,
      };
    },
  };
}

function setup(initial: Partial<Session>[], extra: Partial<AttentionStoreOptions> = {}) {
  let records = initial;
  const sessions = createSessionsStore(listOf(() => records));
  const streams = createStreamsStore({ flushMs: 1 });
  const attention = createAttentionStore({ sessions, streams, ...extra });
  return {
    sessions,
    streams,
    attention,
    async refresh(next: Partial<Session>[]) {
      records = next;
      await sessions.getState().refreshLive();
    },
    reasons() {
      return attention.getState().items.map((i) => [i.sessionId, i.reason]);
    },
  };
}

const T0 = "2026-10-01T10:00:00Z";

/** The queue looks at the stream changes of one turn once, after it (a microtask later). */
const settled = () => new Promise<void>((done) => queueMicrotask(done));
const rec = (id: string, fields: Record<string, unknown> = {}) => ({
  session_id: id,
  state: "running",
  updated_at: T0,
  ...fields,
});

describe("attention reasons from the list", () => {
  it("queues what already waits, quietly, each since the record's own time for its cause", async () => {
    const t = setup([
      rec("ses_a"),
      rec("ses_b", { state: "paused", paused_at: "2026-09-02T08:00:00Z" }),
      rec("ses_c", { state: "error", error_message: "sandbox crashed" }),
      rec("ses_d", {
        last_prompt: { status: "timed_out", completed_at: "2026-09-30T09:00:00Z" },
      }),
    ]);
    await t.sessions.getState().load();
    const s = t.attention.getState();
    expect(s.items.map((i) => [i.sessionId, i.message, new Date(i.since).toISOString()])).toEqual([
      ["ses_c", "failed: sandbox crashed", "2026-10-01T10:00:00.000Z"],
      ["ses_d", "failed: prompt timed out", "2026-09-30T09:00:00.000Z"],
      ["ses_b", "paused", "2026-09-02T08:00:00.000Z"],
    ]);
    expect(s.items.every((i) => i.sinceFrom === "record")).toBe(true);
    expect(s.raisedVersion).toBe(0);
  });

  it("raises an approval, a failed prompt on a running session and a finished prompt; an idle auto-pause is queued but not raised", async () => {
    const t = setup([
      rec("ses_a", { agent_status: "working" }),
      rec("ses_b", { last_prompt: { status: "running" } }),
      rec("ses_c", { last_prompt: { status: "running" }, agent_status: "working" }),
      rec("ses_d"),
    ]);
    await t.sessions.getState().load();
    await t.refresh([
      rec("ses_a", { agent_status: "awaiting_approval", updated_at: "2026-10-01T10:05:00Z" }),
      rec("ses_b", {
        last_prompt: { status: "error", completed_at: "2026-10-01T10:06:00Z" },
        error_message: "npm test exited 1",
      }),
      rec("ses_c", {
        last_prompt: { status: "completed", completed_at: "2026-10-01T10:07:00Z" },
        agent_status: "idle",
      }),
      rec("ses_d"),
    ]);
    const s = t.attention.getState();
    expect(s.raisedVersion).toBe(1);
    expect(s.lastRaised.map((i) => [i.sessionId, i.message]).sort()).toEqual([
      ["ses_a", "awaiting approval"],
      ["ses_b", "failed: npm test exited 1"],
      ["ses_c", "finished: ready for review"],
    ]);
    // The service pauses an idle session by itself: shown, dimmed, never a notification.
    await t.refresh([
      ...t.sessions.getState().items.filter((x) => x.session_id !== "ses_d"),
      rec("ses_d", { state: "paused", paused_at: "2026-10-01T10:20:00Z" }),
    ]);
    const after = t.attention.getState();
    expect(after.raisedVersion).toBe(1);
    const paused = after.items.find((i) => i.sessionId === "ses_d");
    expect(paused).toMatchObject({ reason: "paused", notify: false, seen: false });
    expect(after.lastChanges.arrived.map((i) => i.sessionId)).toEqual(["ses_d"]);
    expect(selectMarkedIds(after).has("ses_d")).toBe(false);
  });

  it("items leave with their cause: approval resolved, running again; finished and destroyed once seen", async () => {
    const t = setup([
      rec("ses_a", { agent_status: "working" }),
      rec("ses_b", { state: "error" }),
      rec("ses_c", { last_prompt: { status: "running" } }),
      rec("ses_d"),
    ]);
    await t.sessions.getState().load();
    await t.refresh([
      rec("ses_a", { agent_status: "awaiting_approval" }),
      rec("ses_b", { state: "error" }),
      rec("ses_c", { last_prompt: { status: "completed" } }),
      rec("ses_d", { state: "destroyed" }),
    ]);
    expect(t.reasons().sort()).toEqual([
      ["ses_a", "approval"],
      ["ses_b", "failed"],
      ["ses_c", "finished"],
      ["ses_d", "destroyed"],
    ]);
    await t.refresh([
      rec("ses_a", { agent_status: "working" }),
      rec("ses_b", { state: "running" }),
      rec("ses_c", { last_prompt: { status: "completed" } }),
      rec("ses_d", { state: "destroyed" }),
    ]);
    expect(t.reasons().sort()).toEqual([
      ["ses_c", "finished"],
      ["ses_d", "destroyed"],
    ]);
    expect(
      t.attention
        .getState()
        .lastChanges.left.map((i) => i.sessionId)
        .sort(),
    ).toEqual(["ses_a", "ses_b"]);
    t.attention.getState().acknowledge("ses_d");
    t.attention.getState().acknowledge("ses_c");
    expect(t.reasons()).toEqual([]);
    // Still destroyed on the next reading: not queued again.
    await t.refresh([
      rec("ses_c", { last_prompt: { status: "completed" } }),
      rec("ses_d", { state: "destroyed" }),
    ]);
    expect(t.reasons()).toEqual([]);
  });

  it("a session gone from a complete list leaves the queue", async () => {
    const t = setup([rec("ses_a", { state: "error" }), rec("ses_b")]);
    await t.sessions.getState().load();
    expect(t.reasons()).toEqual([["ses_a", "failed"]]);
    await t.refresh([rec("ses_b")]);
    expect(t.reasons()).toEqual([]);
  });
});

describe("attention reasons from a stream", () => {
  it("a failed prompt, a finished one (with the files it changed), and an error state, each at the moment the stream told", async () => {
    let clock = Date.parse("2026-10-01T12:00:00Z");
    const t = setup([rec("ses_a"), rec("ses_b"), rec("ses_c")], { now: () => clock });
    await t.sessions.getState().load();
    const st = t.streams.getState();
    for (const id of ["ses_a", "ses_b", "ses_c"]) st.ensure(id, { state: "live", since: 1 });
    st.pushEvent("ses_a", {
      kind: "prompt_progress",
      id: null,
      data: { type: "text", content: "on it" },
    });
    st.pushEvent("ses_a", {
      kind: "prompt_progress",
      id: null,
      data: { type: "error", content: "rate limited by the model\nprovider" },
    });
    st.pushEvent("ses_b", {
      kind: "prompt_progress",
      id: null,
      data: { type: "text", content: "editing" },
    });
    for (const path of ["a.ts", "b.ts", "c.ts"]) {
      st.pushEvent("ses_b", { kind: "file_changed", id: null, data: { path, action: "modified" } });
    }
    st.pushEvent("ses_b", {
      kind: "prompt_progress",
      id: null,
      data: { type: "done", content: "" },
    });
    st.pushEvent("ses_c", {
      kind: "state_changed",
      id: null,
      data: { state: "error", previous_state: "running" },
    });
    st.flushNow();
    await settled();
    const s = t.attention.getState();
    expect(s.raisedVersion).toBe(1);
    expect(s.items.map((i) => [i.sessionId, i.message, i.sinceFrom, i.source]).sort()).toEqual([
      ["ses_a", "failed: rate limited by the model provider", "stream", "stream"],
      ["ses_b", "finished: 3 files changed", "stream", "stream"],
      ["ses_c", "failed: session error", "stream", "stream"],
    ]);
    clock += 60_000;
    // A new prompt on ses_a: its failure is over.
    st.pushEvent("ses_a", {
      kind: "prompt_progress",
      id: null,
      data: { type: "text", content: "again" },
    });
    st.flushNow();
    await settled();
    expect(t.reasons().map(([id]) => id)).not.toContain("ses_a");
  });

  it("busy streams that change no item leave the queue alone: its subscribers (the fleet's frames) hear nothing", async () => {
    const t = setup([rec("ses_a"), rec("ses_b"), rec("ses_c")]);
    await t.sessions.getState().load();
    const st = t.streams.getState();
    for (const id of ["ses_a", "ses_b", "ses_c"]) st.ensure(id, { state: "live", since: 1 });
    // Two items queued: ses_a and ses_c failed.
    for (const id of ["ses_a", "ses_c"]) {
      st.pushEvent(id, {
        kind: "prompt_progress",
        id: null,
        data: { type: "error", content: "x" },
      });
    }
    st.flushNow();
    await settled();
    expect(t.reasons().sort()).toEqual([
      ["ses_a", "failed"],
      ["ses_c", "failed"],
    ]);
    const queue = t.attention.getState().items;
    let told = 0;
    const off = t.attention.subscribe(() => told++);
    // ses_c keeps streaming output: the sessions looked at again change nothing in the queue.
    for (let i = 0; i < 20; i++) {
      st.pushEvent("ses_c", { kind: "process_output", id: null, data: { output: `line ${i}` } });
      st.pushEvent("ses_b", { kind: "process_output", id: null, data: { output: `line ${i}` } });
      st.flushNow();
      await settled();
    }
    off();
    expect(told).toBe(0);
    expect(t.attention.getState().items).toBe(queue);
  });

  it("a stream that stops on an error, or goes silent, needs you until it is live again", async () => {
    const t = setup([]);
    await t.sessions.getState().load();
    const st = t.streams.getState();
    st.ensure("ses_s", { state: "live", since: 1 });
    st.pushStatus("ses_s", {
      state: "reconnecting",
      attempt: 1,
      delayMs: 100,
      retryAt: 2,
      reason: "no data for 45 s (watchdog)",
      silent: true,
    });
    st.ensure("ses_x", { state: "live", since: 1 });
    st.pushStatus("ses_x", {
      state: "stopped",
      reason: "gave up",
      error: new NetworkError("The event stream connection failed: ECONNREFUSED."),
    });
    st.flushNow();
    await settled();
    const s = t.attention.getState();
    expect(s.raisedVersion).toBe(1);
    expect(s.items.map((i) => [i.sessionId, i.message]).sort()).toEqual([
      ["ses_s", "stream: went silent past its watchdog; reconnecting"],
      ["ses_x", "stream: stopped: The event stream connection failed: ECONNREFUSED."],
    ]);
    st.pushStatus("ses_s", { state: "live", since: 3 });
    st.flushNow();
    await settled();
    expect(t.reasons()).toEqual([["ses_x", "stream"]]);
  });

  it("the same pause seen on the stream and then in the list is one item", async () => {
    const t = setup([rec("ses_a")]);
    await t.sessions.getState().load();
    t.streams.getState().ensure("ses_a", { state: "live", since: 1 });
    t.streams.getState().pushEvent("ses_a", {
      kind: "state_changed",
      id: "1",
      data: { state: "paused", previous_state: "running" },
    });
    t.streams.getState().flushNow();
    await settled();
    expect(t.reasons()).toEqual([["ses_a", "paused"]]);
    await t.refresh([rec("ses_a", { state: "paused", paused_at: T0 })]);
    expect(t.attention.getState().items).toHaveLength(1);
    expect(t.attention.getState().changeVersion).toBe(1);
  });
});

describe("pending approvals", () => {
  it("reads the approvals of a session that waits on one: its message and its created_at; gone when resolved", async () => {
    const pending: Approval[] = [
      {
        id: "ap_7c2d",
        kind: "deploy",
        message: "Deploy the updated landing page to production?",
        required_role: "admin",
        status: "pending",
        created_at: "2026-07-28T18:12:00Z",
      },
    ];
    const asked: string[] = [];
    const approvals = createApprovalsBook({
      api: {
        async listApprovals(id: string) {
          asked.push(id);
          return { items: pending, total: pending.length, pending: pending.length };
        },
      },
    });
    const t = setup([rec("ses_a", { agent_status: "awaiting_approval" }), rec("ses_b")], {
      approvals,
    });
    const off = followAwaiting(approvals, awaitingSourcesOf({ sessions: t.sessions }));
    await t.sessions.getState().load();
    await t.attention.idle();
    expect(asked).toEqual(["ses_a"]);
    const item = t.attention.getState().items[0];
    expect(item).toMatchObject({
      sessionId: "ses_a",
      message: "awaiting approval: Deploy the updated landing page to production?",
      since: Date.parse("2026-07-28T18:12:00Z"),
      source: "approvals",
    });
    expect(item?.approval?.id).toBe("ap_7c2d");
    await t.refresh([rec("ses_a", { agent_status: "working" }), rec("ses_b")]);
    expect(t.reasons()).toEqual([]);
    off();
  });
});

describe("attention settings", () => {
  it("names what notifies; -reason hides one; unknown words warn and keep the defaults", () => {
    expect(DEFAULT_ATTENTION.notify).toEqual(new Set(["approval", "failed", "finished", "stream"]));
    const env = attentionConfigFrom(
      { AGENT_SESSIONS_ATTENTION: "approval,failed,finished,stream,paused" },
      "approval",
    );
    expect(env.warning).toBeNull();
    expect([...env.config.notify]).toEqual(["approval", "failed", "finished", "stream", "paused"]);
    const file = attentionConfigFrom({}, ["failed", "-destroyed"]);
    expect([...file.config.notify]).toEqual(["failed"]);
    expect(file.config.show.has("destroyed")).toBe(false);
    const bad = parseAttentionSetting("approval,wolf", "AGENT_SESSIONS_ATTENTION");
    expect(bad.warning).toContain('unknown reason "wolf"');
    expect(bad.config).toBe(DEFAULT_ATTENTION);
  });

  it("a configured pause notifies; a hidden destruction never queues", async () => {
    const t = setup([rec("ses_a"), rec("ses_b")], {
      config: parseAttentionSetting("paused,-destroyed", "test").config,
    });
    await t.sessions.getState().load();
    await t.refresh([rec("ses_a", { state: "paused" }), rec("ses_b", { state: "destroyed" })]);
    const s = t.attention.getState();
    expect(s.lastRaised.map((i) => i.reason)).toEqual(["paused"]);
    expect(t.reasons()).toEqual([["ses_a", "paused"]]);
  });

  it("the next unseen goes to what notifies first; a seen item keeps its mark while its cause stands", async () => {
    const t = setup([
      rec("ses_old", { state: "error", updated_at: "2024-05-01T09:00:00Z" }),
      rec("ses_new", { state: "error", updated_at: "2024-05-01T11:00:00Z" }),
      rec("ses_p", { state: "paused", updated_at: "2024-05-01T12:00:00Z" }),
    ]);
    await t.sessions.getState().load();
    const s = t.attention.getState();
    expect(s.items.map((i) => i.sessionId)).toEqual(["ses_p", "ses_new", "ses_old"]);
    expect(nextUnseen(s, null)?.sessionId).toBe("ses_new");
    s.acknowledge("ses_new");
    const after = t.attention.getState();
    expect(after.items).toHaveLength(3);
    expect([...selectMarkedIds(after)]).toEqual(["ses_new", "ses_old"]);
    expect(after.items.find((i) => i.sessionId === "ses_new")?.seen).toBe(true);
    expect(nextUnseen(after, "ses_old")?.sessionId).toBe("ses_old");
  });
});
