import { afterEach, describe, expect, it } from "vitest";
import { buildServices } from "../../src/cli/tui/buildServices.js";
import { startServer } from "../../src/server/index.js";
import { selectVisibleSessions } from "../../src/store/sessionsStore.js";
import { closeAfterTest, stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";
import { waitFor } from "./serverTestUtils.js";

/**
 * The live list against the reference service with the production wiring: read again on its
 * cadence, at once after a state change seen on a stream and after a git action, and what it
 * brings (a session that paused with no stream on it) reaches the attention queue.
 */

afterEach(stopStarted);

async function setup(refreshMs: number) {
  const lists: string[] = [];
  const server = await startServer({
    seed: 42,
    paceMs: 0,
    heartbeatMs: 1000,
    sessionCount: 4,
    rateLimit: { limit: 10_000, windowMs: 60_000 },
    log: (line) => {
      if (/^GET \/api\/sessions 200/.test(line)) lists.push(line);
    },
  });
  closeAfterTest(server);
  const handle = buildServices(
    { baseUrl: server.url, apiKey: server.key("owner") },
    { refreshMs, tuning: { maxAttempts: 2 } },
  );
  stopAfterTest(() => handle.dispose());
  await handle.services.sessions.getState().load();
  await waitFor(() => lists.length === 1, 5000, "the first list");
  return { server, services: handle.services, lists };
}

describe("live list", () => {
  it("reads the list again on its cadence, keeping the rows that did not change", async () => {
    const { server, services, lists } = await setup(250);
    const before = services.sessions.getState().items;
    services.live?.start();
    await waitFor(() => lists.length >= 4, 10_000, "three refreshes");
    const after = services.sessions.getState().items;
    // Nothing changed on the service: the very same records, so nothing redraws.
    expect(after.every((r, i) => r === before[i])).toBe(true);
    // A change shows at the next refresh.
    const d = server.sessionIds()[3] as string;
    server.setState(d, "paused");
    await waitFor(
      () => services.sessions.getState().items.find((s) => s.session_id === d)?.state === "paused",
      10_000,
      "the new state in the list",
    );
    // No stream on it: the list alone told the attention queue (a pause is queued, not rung).
    let att = services.attention.getState();
    expect(att.items.filter((i) => i.sessionId === d).map((i) => [i.reason, i.source])).toEqual([
      ["paused", "list"],
    ]);
    // A session that fails stays in the catalogue (it always asks for error sessions), hidden
    // from the list's view, and its error is raised all the same.
    server.setState(d, "error");
    await waitFor(
      () => services.sessions.getState().byId[d]?.state === "error",
      10_000,
      "the failed session in the catalogue",
    );
    expect(
      selectVisibleSessions(services.sessions.getState()).map((s) => s.session_id),
    ).not.toContain(d);
    await waitFor(() => services.attention.getState().lastRaised[0]?.reason === "failed", 5_000);
    att = services.attention.getState();
    expect(att.lastRaised.map((i) => [i.sessionId, i.reason, i.source])).toEqual([
      [d, "failed", "list"],
    ]);
    expect(services.sessions.getState().loadedAt).not.toBeNull();
  });

  it("a state change on a stream and a git action each bring a refresh at once", async () => {
    // A cadence far beyond the test: only pokes refresh.
    const { server, services } = await setup(600_000);
    // The list's own readings (the attention queue's reads of every page are not refreshes).
    let loads = 1;
    services.sessions.subscribe((s, p) => {
      if (s.loadedAt !== p.loadedAt && s.loadedAt !== null) loads++;
    });
    services.live?.start();
    const [a, b] = server.sessionIds() as [string, string];
    services.streamControl.openStream(a);
    await waitFor(
      () => services.streams.getState().sessions[a]?.status.state === "live",
      5000,
      "the stream",
    );
    server.setState(a, "paused");
    await waitFor(() => loads === 2, 5000, "a refresh after the state change");

    const { runGitAction } = await import("../../src/ui/model/gitActions.js");
    await runGitAction(services, b, { kind: "clone", repoUrl: "demo/app", branch: null });
    expect(services.actions.getState().last?.ok).toBe(true);
    await waitFor(() => loads === 3, 5000, "a refresh after the git action");
  });
});
