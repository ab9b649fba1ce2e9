import { afterEach, describe, expect, it } from "vitest";
import {
  HOSTILE_KEY,
  type HostileRoutes,
  leakedPiece,
  sendJson,
  sseHead,
  sseItem,
  TERMINAL_HOSTILE,
} from "../helpers/hostileServer.js";
import {
  mountOnHostile,
  pressKey,
  type UiHarness,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * The terminal UI, wired as the CLI wires it (buildServices), against hostile servers: the
 * user's key never drawn, not even a piece of it where a pane cuts a line; ids that would
 * leave their URL path listed with a visible error instead of opened; nothing in a frame
 * that drives the terminal.
 */

afterEach(unmountReference);

/** The frame as drawn, colours removed, with no piece of the key anywhere in it. */
function expectNoKey(h: UiHarness): void {
  expect(leakedPiece(h.frame())).toBeNull();
  expect(leakedPiece(h.rawFrame().replace(/\x1b\[[0-9;]*m/g, ""))).toBeNull();
  for (const w of h.writes) expect(leakedPiece(w.replace(/\x1b\[[0-9;]*m/g, ""))).toBeNull();
}

const half = Math.ceil(HOSTILE_KEY.length / 2);

const echoesTheKey: HostileRoutes = {
  verify: (_q, res) =>
    sendJson(res, 200, {
      valid: true,
      key_id: HOSTILE_KEY,
      name: `key ${HOSTILE_KEY}`,
      user_id: "usr_1",
      scopes: ["sessions:read", "sessions:write", "sessions:prompt"],
      effective_scopes: ["sessions:read", "sessions:write", "sessions:prompt"],
    }),
  sessions: (_q, res) =>
    sendJson(res, 200, {
      sessions: [
        {
          id: "ses_one",
          state: "active",
          title: `deploy with ${HOSTILE_KEY} please`,
          repo: `org/${HOSTILE_KEY.slice(2)}`,
          updated_at: "2030-01-01T00:00:00Z",
          note: { deep: `x${HOSTILE_KEY}` },
        },
      ],
    }),
  events: (_q, res) => {
    sseHead(res);
    const striped = [...HOSTILE_KEY].map((c, i) => `\x1b[3${i % 8}m${c}`).join("");
    let out = "";
    // The key at every offset of a line, so whatever the pane's width, a cut lands inside it.
    for (let pad = 0; pad < 12; pad++) {
      out += sseItem(pad + 1, "process_output", {
        text: `${"·".repeat(pad * 7)}${HOSTILE_KEY}${"-".repeat(30)}\n`,
      });
    }
    out += sseItem(20, "process_output", { text: `${striped}\x1b[0m\n` });
    // Split over two prompt fragments that the timeline joins into one line.
    out += sseItem(21, "prompt_progress", {
      type: "text",
      content: `go ${HOSTILE_KEY.slice(0, 9)}`,
    });
    out += sseItem(22, "prompt_progress", {
      type: "text",
      content: `${HOSTILE_KEY.slice(9)} ok\n`,
    });
    out += sseItem(23, "file_changed", { path: `a/${HOSTILE_KEY}/b.ts`, action: "created" });
    out += sseItem(24, HOSTILE_KEY, { value: HOSTILE_KEY });
    res.write(out);
  },
  git: (_q, res) => sendJson(res, 403, { detail: `no: ${HOSTILE_KEY.slice(0, half + 3)}` }),
};

describe("the key is never drawn", () => {
  for (const columns of [64, 100, 157]) {
    it(`in the list, the header, a pane, the detail view and an action's error (${columns} columns)`, async () => {
      const { h } = await mountOnHostile(
        echoesTheKey,
        { columns, rows: 40 },
        { props: { initialSessions: ["ses_one"] } },
      );
      await waitForContent(h, "a/");
      await waitForContent(h, "ok");
      expectNoKey(h);
      // Zoomed: the pane is wider, the cuts fall elsewhere.
      await pressKey(h, "z");
      await waitForContent(h, "a/");
      expectNoKey(h);
      await pressKey(h, "z");
      // The record's every field, nested ones included.
      await pressKey(h, "tab");
      await pressKey(h, "i");
      await waitForContent(h, "fields");
      expectNoKey(h);
      await pressKey(h, "escape");
      // A git action whose 403 quotes part of the key.
      await pressKey(h, "p");
      await pressKey(h, "y");
      await waitForContent(h, "no:");
      expectNoKey(h);
    });
  }
});

describe("ids that would leave their URL path", () => {
  it("are listed, but Enter shows an error instead of opening them, and no request is made", async () => {
    const { h, server } = await mountOnHostile(
      {
        sessions: (_q, res) =>
          sendJson(res, 200, {
            sessions: [
              { id: "..", state: "active", title: "dots", updated_at: "2030-01-02T00:00:00Z" },
              { id: "ses_ok", state: "active", title: "fine", updated_at: "2030-01-01T00:00:00Z" },
            ],
          }),
      },
      { columns: 120, rows: 30 },
    );
    await waitForContent(h, "dots");
    await pressKey(h, "enter");
    const frame = await waitForContent(h, "cannot be opened");
    expect(frame).toContain("dot path segment");
    await pressKey(h, "p");
    await waitForContent(h, "cannot be opened or acted on");
    // A clone (a form, then a confirmation) is refused before its form opens.
    await pressKey(h, "escape");
    await waitForContent(h, (f) => !f.includes("cannot be opened"));
    await pressKey(h, "c");
    await waitForContent(h, "cannot be opened or acted on");
    expect(h.frame()).not.toContain("Clone a repository");
    expect(server.seen.filter((r) => r.path.includes("/events"))).toEqual([]);
    expect(server.seen.filter((r) => r.path.includes("/git/"))).toEqual([]);
    expect(server.requestsTo("/api/cloud/events")).toEqual([]);
    // The safe one still opens.
    await pressKey(h, "down");
    await pressKey(h, "enter");
    await waitForContent(h, "● live");
    // By path: the first connection also asks for history (?history=N).
    const paths = server.seen.map((r) => new URL(r.path, "http://x").pathname);
    expect(paths).toContain("/api/cloud/sessions/ses_ok/events");
  });
});

describe("frames carry nothing that drives the terminal", () => {
  it("titles with newlines, escapes and bidi controls stay on their row", async () => {
    const { h } = await mountOnHostile(
      {
        sessions: (_q, res) =>
          sendJson(res, 200, {
            sessions: [
              {
                id: "ses_a",
                state: "active",
                title: "one\nses_fake  active  FORGED\x1b]52;c;cHduZWQ=\x07\u202eevil",
                updated_at: "2030-01-02T00:00:00Z",
              },
              { id: "ses_b", state: "paused", title: "two", updated_at: "2030-01-01T00:00:00Z" },
            ],
          }),
      },
      { columns: 150, rows: 20 },
    );
    const frame = await waitForContent(h, "two");
    expect(frame).toMatch(/one ⏎ ses_fake {2}active {2}FORGED<U\+202E>evil/);
    expect(frame.split("\n").filter((l) => l.includes("FORGED"))).toHaveLength(1);
    expect(h.rawFrame().replace(/\x1b\[[0-9;]*m/g, "")).not.toMatch(TERMINAL_HOSTILE);
  });
});

describe("valid data that is just big", () => {
  // 40,000 records on one page: 400 times the documented maximum of 100, and about 2 MB of
  // JSON. (150,000 took 30 s of a loaded CI machine's time and then timed out on a busier one.)
  it("a page of 40,000 sessions lists, scrolls and shows a record", async () => {
    const count = 40_000;
    const { h } = await mountOnHostile(
      {
        sessions: (_q, res) => {
          const parts: string[] = [];
          for (let i = 0; i < count; i++) {
            parts.push(
              `{"id":"ses_${i}","state":"${i % 3 ? "active" : "paused"}","title":"t${i}"}`,
            );
          }
          sendJson(res, 200, `{"sessions":[${parts.join(",")}],"has_more":false}`);
        },
      },
      { columns: 120, rows: 30 },
    );
    await waitForContent(h, `${count} shown of ${count} loaded`, 30_000);
    // The newest-first order puts ses_0 last (ties order by id).
    await pressKey(h, "end");
    // (ses_0 is paused: the attention queue marks its row with the pause glyph.)
    await waitForContent(h, /▸⏸? +ses_0 /, 10_000);
    await pressKey(h, "i");
    // id, state and title (the session_id the client adds to an `id` record is not shown).
    await waitForContent(h, "Session ses_0 — 3 fields", 10_000);
  }, 60_000);
});

describe("a list that pages in a circle", () => {
  it("stops at a repeated cursor and says the list may be incomplete", async () => {
    const { h, server } = await mountOnHostile(
      {
        sessions: (req, res) => {
          const cursor = new URL(req.url ?? "", "http://x").searchParams.get("cursor") ?? "first";
          const sessions = Array.from({ length: 4 }, (_, i) => ({
            id: `ses_${cursor}${i}`,
            state: "active",
          }));
          // first → a → b → a: the third page names a cursor the first one gave.
          sendJson(res, 200, { sessions, next_cursor: cursor === "a" ? "b" : "a" });
        },
      },
      { columns: 120, rows: 30 },
    );
    // The one paging loop stops at the third page: first → a → b names "a" again.
    await waitForContent(h, "may be incomplete: the service repeated a page cursor");
    expect(h.frame()).toContain("Sessions 12/12+");
    const asked = server.requestsTo("/api/sessions").length;
    expect(asked).toBe(3);
    await pressKey(h, "up");
    await pressKey(h, "end");
    expect(server.requestsTo("/api/sessions").length).toBe(asked);
  });
});
