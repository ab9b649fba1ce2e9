import { describe, expect, it } from "vitest";
import { MissingScopeError } from "../../src/client/errors.js";
import type { PageToken, Session, SessionPage } from "../../src/protocol/resources.js";
import { admitSession } from "../../src/store/admitSession.js";
import {
  createSessionsStore,
  deriveVisibleSessions,
  knownStates,
  selectListMeta,
  selectVisibleSessions,
} from "../../src/store/sessionsStore.js";

function session(id: string, fields: Partial<Session> = {}): Session {
  return { session_id: id, ...fields } as Session;
}

/** A list endpoint over fixed pages: cursor "1", "2", … names the page index. */
function pagedClient(pages: Session[][], failWith?: Error) {
  const calls: { limit?: number; cursor?: string }[] = [];
  return {
    calls,
    async listSessions(p: { limit?: number; page?: PageToken } = {}): Promise<SessionPage> {
      const cursor = p.page && "cursor" in p.page ? p.page.cursor : undefined;
      calls.push({ limit: p.limit, ...(cursor !== undefined ? { cursor } : {}) });
      if (failWith) throw failWith;
      const i = cursor ? Number(cursor) : 0;
      const next = i + 1 < pages.length ? { cursor: String(i + 1) } : null;
      return { sessions: pages[i] ?? [], total: null, hasMore: next !== null, next };
    },
  };
}

describe("sessions store", () => {
  it("a load shows the first page at once, then reads every page once with the cursor", async () => {
    const client = pagedClient([
      [session("ses_1"), session("ses_2")],
      [session("ses_2", { state: "paused" }), session("ses_3")],
    ]);
    const store = createSessionsStore(client, { pageSize: 2 });
    const firstShown: string[][] = [];
    const off = store.subscribe((s, prev) => {
      if (s.loadedAt !== null && prev.loadedAt === null) {
        firstShown.push(s.items.map((x) => x.session_id));
      }
    });
    await store.getState().load();
    off();
    expect(firstShown).toEqual([["ses_1", "ses_2"]]);
    // A session seen on both pages keeps its place and takes the newer fields.
    expect(store.getState().items.map((s) => [s.session_id, s.state])).toEqual([
      ["ses_1", undefined],
      ["ses_2", "paused"],
      ["ses_3", undefined],
    ]);
    expect(store.getState().hasMore).toBe(false);
    expect(store.getState().loadingMore).toBe(false);
    expect(client.calls).toEqual([{ limit: 2 }, { limit: 2, cursor: "1" }]);
    await store.getState().refresh();
    expect(store.getState().items).toHaveLength(3);
    expect(client.calls).toHaveLength(4);
  });

  it("shows each page as it comes, counting the sessions still to come", async () => {
    const pages = [0, 1, 2].map((p) => [session(`ses_${p}a`), session(`ses_${p}b`)]);
    const seen: { shown: number; toCome: number | null }[] = [];
    const store = createSessionsStore(
      {
        async listSessions(p: { page?: PageToken } = {}): Promise<SessionPage> {
          const i = p.page && "cursor" in p.page ? Number(p.page.cursor) : 0;
          const next = i + 1 < pages.length ? { cursor: String(i + 1) } : null;
          return { sessions: pages[i] ?? [], total: 6, hasMore: next !== null, next };
        },
      },
      { pageSize: 2 },
    );
    const off = store.subscribe((s) => {
      const m = selectListMeta(s);
      if (!s.loading) seen.push({ shown: s.items.length, toCome: m.toCome });
    });
    await store.getState().load();
    off();
    expect(seen[0]).toEqual({ shown: 2, toCome: 4 });
    expect(seen).toContainEqual({ shown: 4, toCome: 2 });
    expect(seen.at(-1)).toEqual({ shown: 6, toCome: null });
  });

  it("a cursor given again ends the pass, and says the list may be incomplete", async () => {
    const calls: string[] = [];
    const store = createSessionsStore({
      async listSessions(p: { page?: PageToken } = {}): Promise<SessionPage> {
        const cursor = p.page && "cursor" in p.page ? p.page.cursor : "";
        calls.push(cursor);
        return {
          sessions: [session(`ses_${calls.length}`)],
          total: null,
          hasMore: true,
          next: { cursor: cursor === "" ? "a" : cursor === "a" ? "b" : "a" },
        };
      },
    });
    await store.getState().load();
    expect(calls).toEqual(["", "a", "b"]);
    expect(store.getState().hasMore).toBe(true);
    expect(store.getState().error?.message).toContain("repeated a page cursor");
  });

  it("keeps the error (the server's message, sanitized) and clears it on success", async () => {
    const err = new MissingScopeError("key lacks sessions:read\x1b]0;x\x07", "sessions:read");
    const store = createSessionsStore(pagedClient([], err));
    await store.getState().load();
    expect(store.getState().error).toMatchObject({
      message: "key lacks sessions:read",
      code: "missing_scope",
      requiredScope: "sessions:read",
    });
    expect(store.getState().loading).toBe(false);
  });

  it("sanitizes record fields as they enter the store", async () => {
    const store = createSessionsStore(
      pagedClient([[session("ses_1", { title: "fix\x1b[2J\x1b]52;c;AA\x07 ci" })]]),
    );
    await store.getState().load();
    expect(store.getState().items[0]!.title).toBe("fix ci");
  });

  it("patches a loaded record, e.g. from a live state change", async () => {
    const store = createSessionsStore(pagedClient([[session("ses_1", { state: "active" })]]));
    await store.getState().load();
    store.getState().patchSession("ses_1", { state: "paused" });
    expect(store.getState().items[0]!.state).toBe("paused");
    store.getState().patchSession("ses_404", { state: "paused" });
    expect(store.getState().items).toHaveLength(1);
  });
});

describe("visible sessions", () => {
  const items = [
    session("ses_a1", {
      state: "active",
      title: "fix-ci",
      repo: "acme/api",
      updated_at: "2025-01-01T10:00:00Z",
    }),
    session("ses_b7", {
      state: "paused",
      title: "docs",
      repo: "acme/web",
      updated_at: "2025-01-01T12:00:00Z",
    }),
    session("ses_c3", {
      state: "active",
      title: "bump deps",
      repo: "acme/web",
      updated_at: "2025-01-01T11:00:00Z",
    }),
  ];
  const base = {
    items: items.map((s) => admitSession(s)),
    filterText: "",
    stateFilter: null,
    sortKey: "updated" as const,
    sortDir: "desc" as const,
  };
  const ids = (ss: Session[]) => ss.map((s) => s.session_id);

  it("sorts by last update, newest first, by default", () => {
    expect(ids(deriveVisibleSessions(base))).toEqual(["ses_b7", "ses_c3", "ses_a1"]);
  });

  it("filters by substring over id and visible fields, every term must match", () => {
    expect(ids(deriveVisibleSessions({ ...base, filterText: "WEB" }))).toEqual([
      "ses_b7",
      "ses_c3",
    ]);
    expect(ids(deriveVisibleSessions({ ...base, filterText: "web bump" }))).toEqual(["ses_c3"]);
    expect(ids(deriveVisibleSessions({ ...base, filterText: "a1" }))).toEqual(["ses_a1"]);
    expect(ids(deriveVisibleSessions({ ...base, filterText: "nothing" }))).toEqual([]);
  });

  it("filters by state and sorts by other keys", () => {
    expect(ids(deriveVisibleSessions({ ...base, stateFilter: "active" }))).toEqual([
      "ses_c3",
      "ses_a1",
    ]);
    expect(ids(deriveVisibleSessions({ ...base, sortKey: "id", sortDir: "asc" }))).toEqual([
      "ses_a1",
      "ses_b7",
      "ses_c3",
    ]);
    expect(ids(deriveVisibleSessions({ ...base, sortKey: "title", sortDir: "asc" }))).toEqual([
      "ses_c3",
      "ses_b7",
      "ses_a1",
    ]);
    expect(ids(deriveVisibleSessions({ ...base, sortKey: "state", sortDir: "asc" }))).toEqual([
      "ses_a1",
      "ses_c3",
      "ses_b7",
    ]);
  });

  it("orders titles as the locale does, and ties by id in a fixed order", () => {
    const at = "2026-01-01T00:00:00Z";
    const items = [
      session("ses_b", { title: "banana", updated_at: at }),
      session("ses_A", { title: "Apple", updated_at: at }),
      session("ses_a", { title: "apple", updated_at: at }),
    ];
    const asc = { ...base, items, sortDir: "asc" as const };
    // Titles: the locale's order puts "apple" and "Apple" before "banana" ("B" < "a" by code).
    expect(ids(deriveVisibleSessions({ ...asc, sortKey: "title" })).at(-1)).toBe("ses_b");
    // The same time: the ids decide, by code point, the same way on every machine.
    expect(ids(deriveVisibleSessions({ ...asc, sortKey: "updated" }))).toEqual([
      "ses_A",
      "ses_a",
      "ses_b",
    ]);
  });

  it("returns the same array until an input changes", () => {
    const first = selectVisibleSessions(base);
    expect(selectVisibleSessions({ ...base })).toBe(first);
    const filtered = selectVisibleSessions({ ...base, filterText: "docs" });
    expect(filtered).not.toBe(first);
    expect(ids(filtered)).toEqual(["ses_b7"]);
  });

  it("flips direction when the same sort key is chosen again", () => {
    const store = createSessionsStore(pagedClient([items]));
    store.getState().setSort("id");
    expect(store.getState()).toMatchObject({ sortKey: "id", sortDir: "asc" });
    store.getState().setSort("id");
    expect(store.getState().sortDir).toBe("desc");
    expect(knownStates(items)).toEqual(["active", "paused"]);
  });
});

describe("the list filter on documented fields", () => {
  const items = [
    session("ses_a1", { name: "API refactor", agent: "claude-code", visibility: "team" }),
    session("ses_b2", {
      name: "Docs",
      agent: "codex",
      visibility: "private",
      template_id: "tpl_x",
    }),
    session("ses_c3", { title: "Legacy title", agent: "codex", visibility: "team" }),
  ];
  const visible = (filterText: string) =>
    deriveVisibleSessions({
      items,
      filterText,
      stateFilter: null,
      sortKey: "id",
      sortDir: "asc",
    }).map((s) => s.session_id);

  it("field:value terms match the start of that field; plain terms any visible field", () => {
    expect(visible("agent:codex")).toEqual(["ses_b2", "ses_c3"]);
    expect(visible("agent:codex visibility:team")).toEqual(["ses_c3"]);
    expect(visible("template:tpl")).toEqual(["ses_b2"]);
    // A name is the documented name, else the title.
    expect(visible("name:legacy")).toEqual(["ses_c3"]);
    expect(visible("refactor")).toEqual(["ses_a1"]);
    expect(visible("claude")).toEqual(["ses_a1"]);
    // An unknown field name is an ordinary term.
    expect(visible("colour:blue")).toEqual([]);
  });

  it("sorting by name uses the name, else the title", () => {
    const sorted = deriveVisibleSessions({
      items,
      filterText: "",
      stateFilter: null,
      sortKey: "title",
      sortDir: "asc",
    }).map((s) => s.session_id);
    expect(sorted).toEqual(["ses_a1", "ses_b2", "ses_c3"]);
  });
});
