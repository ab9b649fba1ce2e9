import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { followUpPath } from "../../src/cli/journal/followUpFile.js";
import { serviceJournalDir } from "../../src/cli/journal/journalPaths.js";
import { journalFor } from "../../src/cli/journal/journalSetup.js";
import { buildServices } from "../../src/cli/tui/buildServices.js";
import { stopAfterTest } from "../helpers/stopAfterTest.js";
import {
  type AppHarness,
  mountOnFixture,
  pressKey,
  startReference,
  typeText,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * The follow-up queue from the keyboard against the reference service, whose prompts are
 * timed by its manual clock: replies given while a prompt runs are queued and shown in the
 * pane, each goes when the prompt before completes, a failed prompt holds the queue, and a
 * new UI over the same journal folder has it back.
 */

let home: string | null = null;

afterEach(async () => {
  await unmountReference();
  if (home) await rm(home, { recursive: true, force: true });
  home = null;
});

/** Steps of the simulated answer (9) times the step: one prompt from start to done. */
const STEP_MS = 100;
const PROMPT_MS = 9 * STEP_MS;

/** Until the service has the prompt (its request crosses loopback after the pane shows it). */
async function untilRunning(running: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !running(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(running()).toBe(true);
}

async function reply(h: AppHarness, text: string): Promise<void> {
  await pressKey(h, "R");
  await waitForContent(h, "reply ›");
  await typeText(h, text);
  await pressKey(h, "enter");
}

describe("follow-up queue", () => {
  it("queues replies while one runs, sends each as the one before completes, holds after a failure, and keeps it over a restart", async () => {
    home = await mkdtemp(join(tmpdir(), "followups-ui-"));
    const fx = await startReference({
      server: { clock: "manual", promptSteps: "clock", promptStepMs: STEP_MS },
      journalHome: home,
    });
    const server = fx.server;
    const at = server.sessions().findIndex((s) => s.state === "active" || s.state === "running");
    const id = fx.ids[at] as string;
    const h = mountOnFixture(fx, { columns: 160, rows: 44 });
    await waitForContent(h, id);
    for (let i = 0; i < at; i++) await pressKey(h, "j");
    await reply(h, "Add a health check");
    await waitForContent(h, "› you: Add a health check");
    await untilRunning(() => server.promptRunning(id));
    await reply(h, "Now document it");
    await waitForContent(h, "yours is queued (1 waiting");
    await reply(h, "Then open a pull request");
    await waitForContent(h, "queued 2: next › Now document it");

    server.clock.advance(PROMPT_MS);
    await waitForContent(h, "› you: Now document it");
    await waitForContent(h, "queued 1: next › Then open a pull request");
    await untilRunning(() => server.promptRunning(id));

    server.clock.advance(PROMPT_MS);
    await waitForContent(h, "› you: Then open a pull request");
    await untilRunning(() => server.promptRunning(id));
    // Q lists what waits; with nothing queued it says so.
    await pressKey(h, "Q");
    await waitForContent(h, `${id} has no queued reply`);

    // A prompt that fails holds the queue: the pane says it waits for the user.
    await reply(h, "And deploy it");
    await waitForContent(h, "queued 1: next › And deploy it");
    expect(server.failPrompt(id, "the agent crashed")).toBe(true);
    await waitForContent(h, "waiting for you: the prompt before failed: the agent crashed");
    server.clock.advance(PROMPT_MS);
    expect(server.promptRunning(id)).toBe(false);

    // Q opens the queue; the queued reply is there to edit or drop.
    await pressKey(h, "Q");
    await waitForContent(h, "Follow-up queue");
    await waitForContent(h, "1. And deploy it");
    await pressKey(h, "escape");

    // A new UI over the same journal folder has the queue back, still held.
    const file = followUpPath(
      serviceJournalDir(server.url, { HOME: home, XDG_STATE_HOME: home }),
      "work",
    );
    for (let i = 0; i < 200; i++) {
      if ((await readFile(file, "utf8").catch(() => "")).includes("agent crashed")) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    h.unmount();
    const chosen = await journalFor(server.url, {
      env: { HOME: home, XDG_STATE_HOME: home },
      profile: "work",
    });
    const again = buildServices(
      { baseUrl: server.url, apiKey: server.key("owner") },
      {
        journal: chosen.journal,
        journalStatus: chosen.status,
        ...(chosen.followUps ? { followUpStorage: chosen.followUps } : {}),
      },
    );
    stopAfterTest(() => again.dispose());
    await again.services.identity.getState().load(again.client);
    await again.services.sessions.getState().load();
    const restarted = mountOnFixture(
      { ...fx, services: again.services },
      { columns: 160, rows: 44 },
    );
    await waitForContent(restarted, id);
    for (let i = 0; i < at; i++) await pressKey(restarted, "j");
    await pressKey(restarted, "Q");
    await waitForContent(restarted, "1. And deploy it");
    await waitForContent(restarted, "waiting for you: the prompt before failed: the agent crashed");
  });
});
