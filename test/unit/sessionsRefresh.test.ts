import { describe, expect, it } from "vitest";
import { NetworkError } from "../../src/client/errors.js";
import type { PageToken, Session, SessionPage } from "../../src/protocol/resources.js";
import { createSessionsStore } from "../../src/store/sessionsStore.js";

/** The live refresh of the catalogue: every page again, once, in place. */

const s = (id: string, state = "active") => ({ session_id: id, state }) as Session;

/** Pages by cursor; each answer waits until `release()` when `hold` is set. */
function client(pages: () => Session[][]) {
  let gate: (() => void) | null = null;
  const c = {
    hold: false,
    fail: null as Error | null,
    calls: 0,
    release() {
      gate?.();
      gate = null;
    },
    async listSessions(p: { page?: PageToken } = {}): Promise<SessionPage> {
      c.calls++;
      if (c.hold) await new Promise<void>((r) => (gate = r));
      if (c.fail) throw c.fail;
      const i = p.page && "cursor" in p.page ? Number(p.page.cursor) : 0;
      const all = pages();
      const next = i + 1 < all.length ? { cursor: String(i + 1) } : null;
      return { sessions: all[i] ?? [], total: null, hasMore: next !== null, next };
    },
  };
  return c;
}

describe("live refresh", () => {
  it("reads every page once, and keeps unchanged records as they were", async () => {
    let pages = [[s("ses_1"), s("ses_2")], [s("ses_3")]];
    const c = client(() => pages);
    const store = createSessionsStore(c, { pageSize: 2 });
    await store.getState().load();
    const before = store.getState().items;
    pages = [[s("ses_1"), s("ses_2", "paused")], [s("ses_3")]];
    c.calls = 0;
    expect(await store.getState().refreshLive()).toBe(true);
    const after = store.getState().items;
    expect(c.calls).toBe(2);
    expect(after.map((x) => [x.session_id, x.state])).toEqual([
      ["ses_1", "active"],
      ["ses_2", "paused"],
      ["ses_3", "active"],
    ]);
    expect(after[0]).toBe(before[0]);
    expect(after[1]).not.toBe(before[1]);
    expect(store.getState().loading).toBe(false);
  });

  it("a state a stream patched while the pages were read is kept over them", async () => {
    const c = client(() => [[s("ses_1")]]);
    const store = createSessionsStore(c);
    await store.getState().load();
    c.hold = true;
    const refreshing = store.getState().refreshLive();
    expect(store.getState().refreshing).toBe(true);
    store.getState().patchSession("ses_1", { state: "paused" });
    c.release();
    await refreshing;
    expect(store.getState().items[0]?.state).toBe("paused");
  });

  it("a failure keeps the list and says so; the next one clears it", async () => {
    const c = client(() => [[s("ses_1")]]);
    const store = createSessionsStore(c);
    await store.getState().load();
    c.fail = new NetworkError("GET /api/sessions: could not reach the service");
    expect(await store.getState().refreshLive()).toBe(false);
    expect(store.getState().items).toHaveLength(1);
    expect(store.getState().refreshError?.message).toContain("could not reach");
    expect(store.getState().error).toBeNull();
    c.fail = null;
    await store.getState().refreshLive();
    expect(store.getState().refreshError).toBeNull();
  });

  it("a load meanwhile wins: the refresh that started before it is dropped", async () => {
    const c = client(() => [[s("ses_1")], [s("ses_2")]]);
    const store = createSessionsStore(c, { pageSize: 1 });
    await store.getState().load();
    c.hold = true;
    const refreshing = store.getState().refreshLive();
    c.hold = false;
    const loading = store.getState().load();
    c.release();
    await loading;
    expect(await refreshing).toBe(false);
    expect(store.getState().items.map((x) => x.session_id)).toEqual(["ses_1", "ses_2"]);
  });
});
