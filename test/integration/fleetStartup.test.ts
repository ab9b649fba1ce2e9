import { afterEach, describe, expect, it } from "vitest";
import { buildServices } from "../../src/cli/tui/buildServices.js";
import type { RetryWait } from "../../src/client/rateLimit.js";
import { startServer } from "../../src/server/index.js";
import { selectVisibleSessions } from "../../src/store/sessionsStore.js";
import { firstScreenAnswered, loadFirstScreen } from "../../src/ui/model/services.js";
import { closeAfterTest, stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";

/**
 * Opening the fleet spends the budget where the user looks: against the reference service
 * announcing 100 requests a minute (burst 20), 23 sessions, one awaiting an approval, the
 * start-up costs the identity, one pass of the list, that one approvals read and a stream
 * opening per row, never a history read per row; a pane's history is read when it opens.
 * The service counts what it was asked (its request log), and the client says it paces.
 */

afterEach(stopStarted);

/** Polls `ok` every 20 ms up to `ms`; fails naming what it waited for. */
async function waitFor(ok: () => boolean, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("opening the fleet", () => {
  it("costs identity, the list, approvals where one waits and one opening per row: no history per row", async () => {
    const log: string[] = [];
    const server = await startServer({
      sessionCount: 23,
      seed: 7,
      clock: "manual",
      rateLimit: { limit: 100, windowMs: 60_000, burst: 20 },
      log: (line) => log.push(line),
    });
    closeAfterTest(server);
    expect(server.sessionIds()).toHaveLength(23);
    // The rows the fleet shows: failed and destroyed sessions are hidden by default.
    const shown = server
      .sessions()
      .filter((r) => r.state !== "error" && r.state !== "destroyed")
      .map((r) => r.id);
    const awaiting = shown[4] as string;
    server.addApproval(awaiting);

    const handle = buildServices({ baseUrl: server.url, apiKey: server.key("owner") });
    stopAfterTest(() => handle.dispose());
    const { services, client } = handle;
    const waits: RetryWait[] = [];
    client.rateLimit.subscribe(() => {
      const w = client.rateLimit.waiting;
      if (w && !waits.includes(w)) waits.push(w);
    });
    loadFirstScreen(services);
    await firstScreenAnswered(services, 30_000);
    await waitFor(() => !services.sessions.getState().loading, 30_000, "the list");
    const rows = selectVisibleSessions(services.sessions.getState()).map((s) => s.session_id);
    expect([...rows].sort()).toEqual([...shown].sort());
    services.fleetStreams.show(rows);
    const live = () =>
      rows.filter((id) => services.streams.getState().sessions[id]?.status.state === "live");
    await waitFor(() => live().length === rows.length, 45_000, "every row's stream live");
    await services.attention.idle();
    const counts = server.requestCounts();

    // A pane opened on one row reads that session's history then, and only then.
    services.streamControl.openStream(rows[0] as string);
    await waitFor(
      () => services.streams.getState().sessions[rows[0] as string]?.status.state === "live",
      30_000,
      "the pane's stream live again",
    );
    await handle.dispose();
    await server.close();

    const paths = log.map((l) => l.split(" ").slice(0, 2).join(" "));
    const count = (re: RegExp) => paths.filter((p) => re.test(p)).length;
    const histories = paths.filter((p) => /\/history$/.test(p));
    // Nothing was refused: the client kept to the announced limit.
    expect(counts.rateLimited).toBe(0);
    // One history read, the pane's; none for the 23 rows.
    expect(histories).toEqual([`GET /api/sessions/${rows[0]}/history`]);
    expect(count(/\/events$/)).toBe(rows.length + 1);
    expect(paths.filter((p) => /\/approvals$/.test(p))).toEqual([
      `GET /api/sessions/${awaiting}/approvals`,
    ]);
    const identity = count(/\/auth\/verify$|\/v1\/me$/);
    const lists = count(/^GET \/api\/sessions$/);
    expect(identity).toBeLessThanOrEqual(2);
    expect(lists).toBeLessThanOrEqual(2);
    // The start-up (before the pane) was that and nothing else.
    expect(counts.requests).toBe(identity + lists + 1 + rows.length);
    // Past the burst the openings were paced, and the client said so.
    expect(waits.some((w) => w.cause.kind === "budget" && /pacing/.test(w.reason))).toBe(true);
  });
});
