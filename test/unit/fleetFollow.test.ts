import { afterEach, describe, expect, it } from "vitest";
import { buildServices } from "../../src/cli/tui/buildServices.js";
import { startServer } from "../../src/server/index.js";
import type { UiDeps } from "../../src/ui/model/deps.js";
import { FLEET_STREAMS_SETTLE_MS, followFleetStreams } from "../../src/ui/model/follow.js";
import { fleetWindow } from "../../src/ui/model/geometry.js";
import { shownSessions } from "../../src/ui/model/listOrder.js";
import { DEFAULT_OPTIONS } from "../../src/ui/model/services.js";
import { createUiStore } from "../../src/ui/model/uiStore.js";
import { closeAfterTest, stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";

/**
 * The fleet's streams follow the rows in view once the rows stay put: a burst of scrolling or
 * sorting does not close and open streams for every row set it passes.
 */

afterEach(stopStarted);

async function fleet(o: { loadFirst: boolean } = { loadFirst: true }) {
  const server = await startServer({ seed: 7, paceMs: 0, heartbeatMs: 1000, sessionCount: 120 });
  closeAfterTest(server);
  const handle = buildServices(
    { baseUrl: server.url, apiKey: server.key("owner") },
    { fleetStreams: 5 },
  );
  stopAfterTest(() => handle.dispose());
  const { services } = handle;
  if (o.loadFirst) await services.sessions.getState().load();
  const deps: UiDeps = {
    ui: createUiStore({ columns: 160, rows: 30 }),
    services,
    options: DEFAULT_OPTIONS,
    exit: () => {},
    now: () => 0,
    save: null,
  };
  deps.ui.setState({ view: "fleet" });
  stopAfterTest(followFleetStreams(deps));
  /** The first rows in view at the cursor now: the ones that should stream. */
  const inView = () => {
    const ui = deps.ui.getState();
    const list = shownSessions(deps);
    const { start } = fleetWindow(ui.size, ui.fleetCursor, list.length);
    return list.slice(start, start + 5).map((s) => s.session_id);
  };
  return { deps, services, inView };
}

/** The same sessions, in any order (a stream kept from before keeps its place). */
const same = (a: readonly string[], b: readonly string[]) =>
  [...a].sort().join() === [...b].sort().join();

async function until(check: () => boolean, what: () => string): Promise<void> {
  // Bounded: 5 s in 10 ms steps.
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what()}`);
}

describe("the fleet's streams", () => {
  it("open at once for the rows in view when the fleet opens", async () => {
    const { services, inView } = await fleet();
    expect(same(services.fleetStreams.openIds, inView())).toBe(true);
  });

  it("open at once for the first rows when the fleet was open before the list came", async () => {
    const { services, inView } = await fleet({ loadFirst: false });
    expect(services.fleetStreams.openIds).toEqual([]);
    await services.sessions.getState().load();
    // No settling wait: nothing streamed before, so nothing is churned.
    expect(inView()).toHaveLength(5);
    expect(same(services.fleetStreams.openIds, inView())).toBe(true);
  });

  it("stay on the rows they had through a burst of moves, then follow the rows the cursor stopped on", async () => {
    const { deps, services, inView } = await fleet();
    const first = services.fleetStreams.openIds;
    for (let row = 1; row <= 60; row++) deps.ui.setState({ fleetCursor: row });
    // Sixty moves in one turn: the rows in view changed thirty times and more, no stream did.
    expect(services.fleetStreams.openIds).toEqual(first);
    expect(same(inView(), first)).toBe(false);
    const started = Date.now();
    await until(
      () => same(services.fleetStreams.openIds, inView()),
      () => "the streams to follow the rows",
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(FLEET_STREAMS_SETTLE_MS - 20);
  });

  it("follow a new sort after it settles, not within the key's turn", async () => {
    const { services, inView } = await fleet();
    const first = services.fleetStreams.openIds;
    services.sessions.getState().setSort("id", "desc");
    expect(same(inView(), first)).toBe(false);
    expect(services.fleetStreams.openIds).toEqual(first);
    await until(
      () => same(services.fleetStreams.openIds, inView()),
      () =>
        `the streams to follow the sorted rows: ${services.fleetStreams.openIds.join()} vs ${inView().join()}`,
    );
  });
});
