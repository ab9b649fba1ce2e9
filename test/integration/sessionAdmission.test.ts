import { afterEach, describe, expect, it } from "vitest";
import { buildServices } from "../../src/cli/tui/buildServices.js";
import { displayId, unsafeIdOf } from "../../src/store/admitSession.js";
import { REDACTED } from "../../src/text/redact.js";
import {
  HOSTILE_KEY,
  leakedPiece,
  sendJson,
  startHostile,
  TERMINAL_HOSTILE,
} from "../helpers/hostileServer.js";
import { stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";

/**
 * Every way a session record enters the sessions store (the first page, a further page, the
 * live refresh, a single read) makes it the same: sanitized onto one line, the user's key
 * redacted, the id checked. Against a loopback service announcing the documented 100 requests
 * a minute, burst 20, wired as the terminal UI wires it.
 */

afterEach(stopStarted);

const HOSTILE_NAME = `deploy\x1b]52;c;cHduZWQ=\x07\x1b[2J with ${HOSTILE_KEY}\nnow\u202eevil`;

function record(id: string, name: string, extra: Record<string, unknown> = {}) {
  return { id, state: "active", name, updated_at: "2030-01-01T00:00:00Z", ...extra };
}

/** A record's fields other than its id, as the store holds them (and would draw them). */
function fieldsOf(r: object | undefined): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(r ?? {}).filter(([k]) => k !== "id" && k !== "session_id"),
  );
}

async function setup() {
  let refreshed = false;
  const server = await startHostile({
    sessions: (req, res) => {
      const url = new URL(req.url ?? "", "http://x");
      if (url.pathname === "/api/sessions/ses_one") {
        sendJson(res, 200, record("ses_one", HOSTILE_NAME, { note: { deep: HOSTILE_KEY } }));
        return;
      }
      if (url.searchParams.get("cursor") === "p2") {
        sendJson(res, 200, {
          sessions: [record("ses_two", HOSTILE_NAME, { note: { deep: HOSTILE_KEY } })],
        });
        return;
      }
      const first = [
        record("ses_zero", HOSTILE_NAME, { note: { deep: HOSTILE_KEY } }),
        record("ses_one", refreshed ? HOSTILE_NAME : "plain", {
          note: { deep: refreshed ? HOSTILE_KEY : "x" },
        }),
      ];
      const later = [record("ses_b\u0007", "bell b"), record("ses_b", "plain b")];
      sendJson(res, 200, {
        sessions: refreshed ? [...first, ...later] : first,
        next_cursor: "p2",
      });
    },
  });
  const handle = buildServices(
    { baseUrl: server.url, apiKey: HOSTILE_KEY },
    { tuning: { maxAttempts: 1 } },
  );
  stopAfterTest(() => handle.dispose());
  return { server, sessions: handle.services.sessions, refresh: () => (refreshed = true) };
}

describe("one admission path for session records", () => {
  it("a first page, a further page, a live refresh and a single read admit alike", async () => {
    const { server, sessions, refresh } = await setup();
    await sessions.getState().load();
    const byId = (id: string) => sessions.getState().items.find((s) => s.session_id === id);
    const first = fieldsOf(byId("ses_zero"));
    // What a first load makes of the hostile record: one line, nothing for the terminal, no key.
    expect(first.name).toBe(`deploy with ${REDACTED} ⏎ now<U+202E>evil`);
    expect(first.note).toEqual({ deep: REDACTED });
    expect(JSON.stringify(first)).not.toMatch(TERMINAL_HOSTILE);
    expect(leakedPiece(JSON.stringify(first))).toBeNull();

    expect(fieldsOf(byId("ses_two"))).toEqual(first);

    refresh();
    expect(await sessions.getState().refreshLive()).toBe(true);
    expect(fieldsOf(byId("ses_one"))).toEqual(first);
    // The unsafe id that came only with the refresh is marked, and is not ses_b.
    const bell = byId("ses_b\u0007");
    expect(bell && unsafeIdOf(bell)).toBe("it contains a control character or a space");
    expect(bell && displayId(bell)).toBe("ses_b");
    const plain = byId("ses_b");
    expect(plain && unsafeIdOf(plain)).toBeNull();
    expect(fieldsOf(plain).name).toBe("plain b");

    const single = await sessions.getState().refreshSession("ses_one");
    expect(fieldsOf(single ?? undefined)).toEqual(first);
    expect(fieldsOf(byId("ses_one"))).toEqual(first);
    // Nothing was ever asked with the unsafe id.
    expect(server.seen.filter((r) => /%07|\u0007/.test(r.path))).toEqual([]);
  });
});
