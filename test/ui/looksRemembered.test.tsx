import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createFileJournal } from "../../src/cli/journal/fileJournal.js";
import { journalCleaner } from "../../src/cli/journal/journalSetup.js";
import type { BuildOptions, ServicesHandle } from "../../src/cli/tui/buildServices.js";
import { type HostileServer, sendJson, sseHead, startHostile } from "../helpers/hostileServer.js";
import { tempFolder } from "../helpers/stopAfterTest.js";
import {
  mountOnHostile,
  pressKey,
  servicesOn,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * A look at a session is remembered however the user took it, not only from the attention
 * queue: a pane opened from the list (or focused) is a look, so at the next start "finished"
 * counts only completions after it. The production wiring (buildServices, the file journal),
 * against a scripted service whose records stand still.
 */

afterEach(unmountReference);

/** Two sessions whose last prompt completed a minute ago (the records never change). */
async function service(completedAt: string): Promise<HostileServer> {
  const done = (id: string, name: string) => ({
    id,
    name,
    state: "active",
    agent_status: "idle",
    updated_at: completedAt,
    last_prompt: { status: "completed", started_at: completedAt, completed_at: completedAt },
  });
  return startHostile({
    sessions: (_q, res) =>
      sendJson(res, 200, {
        sessions: [done("ses_opened", "opened twin"), done("ses_left", "left twin")],
        has_more: false,
      }),
    events: (_q, res) => sseHead(res),
  });
}

function journalAt(root: string) {
  return createFileJournal({ dir: join(root, "svc"), root, clean: journalCleaner, flushMs: 10 });
}

/** The services of one run, recording into the journal at `root`. */
function runAt(root: string): BuildOptions {
  const journal = journalAt(root);
  return { journal, journalStatus: journal.status, tuning: { maxAttempts: 1 } };
}

const finishedIds = (h: ServicesHandle) =>
  h.services.attention
    .getState()
    .items.filter((i) => i.reason === "finished")
    .map((i) => i.sessionId)
    .sort();

describe("the user's last look at a session", () => {
  it("is taken when a pane is opened from the list, and a finish before it is not news at the next start", async () => {
    const root = tempFolder("as-ui-looks-");
    const completed = Date.now() - 60_000;
    // An earlier run: the user last looked at both sessions an hour before they completed.
    const earlier = journalAt(root);
    earlier.markSeen("ses_opened", completed - 3_600_000);
    earlier.markSeen("ses_left", completed - 3_600_000);
    await earlier.dispose();
    const s = await service(new Date(completed).toISOString());

    // This run: both finished since the last look; the user opens one from the list.
    const { h: ui, handle: first } = await mountOnHostile(
      { server: s },
      { columns: 150, rows: 30 },
      { services: runAt(root) },
    );
    await waitForContent(ui, (f) => f.includes("opened twin") && f.includes("left twin"));
    await vi.waitFor(() => expect(finishedIds(first)).toEqual(["ses_left", "ses_opened"]), {
      timeout: 5000,
      interval: 10,
    });
    const row = ui
      .frame()
      .split("\n")
      .findIndex((l) => l.includes("opened twin"));
    const cursor = ui
      .frame()
      .split("\n")
      .findIndex((l) => /^║▸/.test(l));
    for (let n = cursor; n < row; n++) await pressKey(ui, "down");
    for (let n = cursor; n > row; n--) await pressKey(ui, "up");
    const openedAt = Date.now();
    await pressKey(ui, "enter");
    await waitForContent(ui, (f) => /^║[▸ ]\S?\s*1 .*opened twin/m.test(f));
    ui.unmount();
    await first.dispose();

    // The next start: the journal remembers the look, so only the session not opened is
    // finished; the one opened completed before the user saw it.
    const remembered = journalAt(root);
    expect(remembered.lastSeen("ses_opened")).toBeGreaterThanOrEqual(openedAt);
    expect(remembered.lastSeen("ses_left")).toBe(completed - 3_600_000);
    await remembered.dispose();
    const second = servicesOn(s, runAt(root));
    await second.services.sessions.getState().load();
    await vi.waitFor(() => expect(finishedIds(second)).toEqual(["ses_left"]), {
      timeout: 5000,
      interval: 10,
    });
  });
});
