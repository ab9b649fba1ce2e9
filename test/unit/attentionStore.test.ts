import { describe, expect, it } from "vitest";
import { NetworkError } from "../../src/client/errors.js";
import type { Session, SessionPage } from "../../src/protocol/resources.js";
import {
  createAttentionStore,
  nextUnseen,
  selectMarkedIds,
} from "../../src/store/attention/attentionStore.js";
import { createSessionsStore } from "../../src/store/sessionsStore.js";
import { createStreamsStore } from "../../src/store/streams/streamsStore.js";

/** The attention queue fed by the list and by streams, without a network. */

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

function setup(initial: Partial<Session>[]) {
  let records = initial;
  const sessions = createSessionsStore(listOf(() => records));
  const streams = createStreamsStore({ flushMs: 1 });
  const attention = createAttentionStore({ sessions, streams });
  return {
    sessions,
    streams,
    attention,
    set(next: Partial<Session>[]) {
      records = next;
    },
  };
}

const rec = (id: string, state: string, updated = "2024-05-01T10:00:00Z") => ({
  session_id: id,
  state,
  updated_at: updated,
});

describe("attention queue", () => {
  it("queues what already waits in the first list, quietly, since the record's updated_at", async () => {
    const t = setup([rec("ses_a", "active"), rec("ses_b", "paused"), rec("ses_c", "error")]);
    await t.sessions.getState().load();
    const s = t.attention.getState();
    expect(s.items.map((i) => [i.sessionId, i.reason, i.source])).toEqual([
      ["ses_b", "paused", "list"],
      ["ses_c", "error", "list"],
    ]);
    expect(s.items[0]?.since).toBe(Date.parse("2024-05-01T10:00:00Z"));
    expect(s.raisedVersion).toBe(0);
  });

  it("a transition seen in a list refresh is raised; leaving the state takes it out", async () => {
    const t = setup([rec("ses_a", "active"), rec("ses_b", "active")]);
    await t.sessions.getState().load();
    t.set([rec("ses_a", "destroyed"), rec("ses_b", "active")]);
    await t.sessions.getState().refreshLive();
    let s = t.attention.getState();
    expect(s.raisedVersion).toBe(1);
    expect(s.lastRaised.map((i) => [i.sessionId, i.reason])).toEqual([["ses_a", "destroyed"]]);
    // Unchanged on the next refresh: nothing raised again.
    await t.sessions.getState().refreshLive();
    expect(t.attention.getState().raisedVersion).toBe(1);
    t.set([rec("ses_a", "active"), rec("ses_b", "active")]);
    await t.sessions.getState().refreshLive();
    s = t.attention.getState();
    expect(s.items).toEqual([]);
  });

  it("the same pause seen on the stream and then in the list is one item, raised once", async () => {
    const t = setup([rec("ses_a", "active")]);
    await t.sessions.getState().load();
    t.streams.getState().ensure("ses_a", { state: "live", since: 1 });
    t.streams.getState().pushEvent("ses_a", {
      kind: "state_changed",
      id: "1",
      data: { state: "paused", previous_state: "active" },
    });
    t.streams.getState().flushNow();
    expect(t.attention.getState().lastRaised.map((i) => [i.sessionId, i.source])).toEqual([
      ["ses_a", "stream"],
    ]);
    t.set([rec("ses_a", "paused")]);
    await t.sessions.getState().refreshLive();
    expect(t.attention.getState().raisedVersion).toBe(1);
    expect(t.attention.getState().items).toHaveLength(1);
  });

  it("a stream that stops on an error, or goes silent, needs attention until it is live again", () => {
    const t = setup([]);
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
    const s = t.attention.getState();
    expect(s.raisedVersion).toBe(1);
    expect(s.items.map((i) => [i.sessionId, i.reason]).sort()).toEqual([
      ["ses_s", "silent"],
      ["ses_x", "stopped"],
    ]);
    expect(s.items.find((i) => i.reason === "stopped")?.message).toBe(
      "stream stopped: The event stream connection failed: ECONNREFUSED.",
    );
    st.pushStatus("ses_s", { state: "live", since: 3 });
    st.flushNow();
    expect(t.attention.getState().items.map((i) => i.sessionId)).toEqual(["ses_x"]);
  });

  it("newest first; `a` order skips what was seen; seen items stay listed without a mark", async () => {
    const t = setup([
      rec("ses_old", "paused", "2024-05-01T09:00:00Z"),
      rec("ses_new", "paused", "2024-05-01T11:00:00Z"),
    ]);
    await t.sessions.getState().load();
    const s = t.attention.getState();
    expect(s.items.map((i) => i.sessionId)).toEqual(["ses_new", "ses_old"]);
    expect(nextUnseen(s, null)?.sessionId).toBe("ses_new");
    expect(nextUnseen(s, "ses_new")?.sessionId).toBe("ses_old");
    s.acknowledge("ses_new");
    const after = t.attention.getState();
    expect(after.items).toHaveLength(2);
    expect([...selectMarkedIds(after)]).toEqual(["ses_old"]);
    expect(nextUnseen(after, null)?.sessionId).toBe("ses_old");
    expect(nextUnseen(after, "ses_old")?.sessionId).toBe("ses_old");
  });
});
