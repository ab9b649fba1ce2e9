import { afterEach, describe, expect, it } from "vitest";
import { sendJson, sseHead, sseItem, TERMINAL_HOSTILE } from "../helpers/hostileServer.js";
import {
  type HostileApp,
  mountOnHostile,
  pressKey,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * A session is the id its server sent, not the id as drawn: two sessions whose ids differ
 * only by a control character are two rows, and each Enter opens (or refuses) its own. The
 * service announces the documented 100 requests a minute, burst 20.
 */

afterEach(unmountReference);

const BELL_ID = "ses_a\u0007";

function mount(): Promise<HostileApp> {
  return mountOnHostile(
    {
      sessions: (_q, res) =>
        sendJson(res, 200, {
          sessions: [
            {
              id: BELL_ID,
              state: "active",
              name: "bell twin",
              updated_at: "2030-01-02T00:00:00Z",
            },
            {
              id: "ses_a",
              state: "active",
              name: "plain twin",
              updated_at: "2030-01-01T00:00:00Z",
            },
          ],
          has_more: false,
        }),
      events: (_q, res) => {
        sseHead(res);
        res.write(sseItem(1, "prompt_progress", { type: "text", content: "hello from ses_a\n" }));
      },
    },
    { columns: 150, rows: 30 },
    { services: { tuning: { maxAttempts: 1 } } },
  );
}

/** The list row of the session with this name. */
function rowOf(frame: string, name: string): string {
  const rows = frame.split("\n").filter((l) => l.includes(name));
  expect(rows).toHaveLength(1);
  return rows[0] as string;
}

describe("a session's identity is the id the server sent", () => {
  it("ses_a\\u0007 and ses_a are two rows; the first is refused, the second opens its own pane", async () => {
    const { h, handle, server } = await mount();
    const frame = await waitForContent(
      h,
      (f) => f.includes("bell twin") && f.includes("plain twin"),
    );
    expect(h.frame()).toContain("2 shown of 2 loaded");
    // Both drawn as ses_a (the bell is not drawn), neither drives the terminal.
    expect(rowOf(frame, "bell twin")).toMatch(/ses_a /);
    expect(h.rawFrame().replace(/\x1b\[[0-9;]*m/g, "")).not.toMatch(TERMINAL_HOSTILE);
    const sessions = handle.services.sessions.getState().items.map((s) => s.session_id);
    expect(sessions).toEqual([BELL_ID, "ses_a"]);

    // The newer one (the bell) is on top: Enter refuses it, visibly, and asks nothing.
    await pressKey(h, "enter");
    await waitForContent(
      h,
      /cannot be opened or acted on: no request is made with its id, as it contains a control character/,
    );
    expect(handle.services.streams.getState().sessions[BELL_ID]).toBeUndefined();
    expect(handle.services.streams.getState().sessions.ses_a).toBeUndefined();

    // The plain one opens a pane on its own stream path.
    await pressKey(h, "down");
    await pressKey(h, "enter");
    await waitForContent(h, "hello from ses_a");
    const opened = h.frame();
    // Only the row of the session opened carries the pane's number (after the cursor and the
    // attention mark).
    expect(rowOf(opened, "plain twin")).toMatch(/^║[▸ ][! ]1 /);
    expect(rowOf(opened, "bell twin")).toMatch(/^║[▸ ][! ] /);
    const eventPaths = server.seen
      .filter((r) => r.path.includes("/events"))
      .map((r) => new URL(r.path, "http://x").pathname);
    expect(new Set(eventPaths)).toEqual(new Set(["/api/cloud/sessions/ses_a/events"]));
    // No request ever carried the unsafe id, encoded or not.
    expect(server.seen.filter((r) => /%07|\u0007/.test(r.path))).toEqual([]);
  });

  it("the fleet lists both and streams only the one whose id may go into a path", async () => {
    const { h, handle, server } = await mount();
    await waitForContent(h, "plain twin");
    await pressKey(h, "v");
    await waitForContent(h, "hello from ses_a", 10_000);
    const fleet = h.frame();
    expect(fleet).toContain("bell twin");
    expect(fleet).toContain("plain twin");
    expect(Object.keys(handle.services.streams.getState().sessions ?? {})).toEqual(["ses_a"]);
    expect(server.seen.filter((r) => /%07|\u0007/.test(r.path))).toEqual([]);
  });
});
