import { afterEach, describe, expect, it } from "vitest";
import { PROVISION_MS } from "../../src/server/launches.js";
import { selectRecord } from "../../src/store/sessionsStore.js";
import {
  mountOnReference,
  pressKey,
  typeText,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * Starting and ending work from the keyboard against the reference service (seeded, manual
 * clock): + launches from the form and the new session is in the list and its pane at once,
 * followed from creating to its first answer; M renames; K asks, saying it is irreversible.
 */

afterEach(unmountReference);

const FIXTURE = { server: { clock: "manual" as const, promptStepMs: 20 } };

describe("launch, rename, destroy", () => {
  it("+ launches from the form: the session is listed as creating and its pane follows it to its first answer", async () => {
    const { fx, h } = await mountOnReference({ columns: 160, rows: 40 }, FIXTURE);
    await waitForContent(h, fx.ids[0] as string);
    await pressKey(h, "+");
    await waitForContent(h, "Launch a new session");
    await typeText(h, "Add a health check endpoint");
    // Tab to the agent field (repository left empty), then a value the service refuses.
    await pressKey(h, "tab");
    await pressKey(h, "tab");
    await typeText(h, "cursor");
    await pressKey(h, "enter");
    await waitForContent(h, "agent must be one of claude-code, codex, github-copilot, opencode");
    expect(fx.server.sessions()).toHaveLength(4);
    for (let i = 0; i < 6; i++) await pressKey(h, "backspace");
    await typeText(h, "codex");
    await pressKey(h, "enter");
    const frame = await waitForContent(h, /Launched ses_\w+: being created/);
    const id = /Launched (ses_\w+)/.exec(frame)?.[1] as string;
    expect(fx.server.sessions()[0]).toMatchObject({ id, agent: "codex", state: "creating" });
    expect(selectRecord(fx.services.sessions.getState(), id)?.state).toBe("creating");
    expect(fx.services.sessions.getState().items[0]?.session_id).toBe(id);
    await waitForContent(h, `${id}`);
    fx.server.clock.advance(PROVISION_MS);
    await waitForContent(h, "running", 10_000);
    await waitForContent(h, "the tests pass.", 10_000);
  });

  it("M renames the selected session", async () => {
    const { fx, h } = await mountOnReference({ columns: 160, rows: 30 }, FIXTURE);
    const id = fx.ids[0] as string;
    await waitForContent(h, id);
    await pressKey(h, "M");
    await waitForContent(h, `Rename ${id}`);
    await typeText(h, "Health checks");
    await pressKey(h, "enter");
    await waitForContent(h, `${id} renamed to Health checks`);
    expect(fx.server.sessions().find((s) => s.id === id)?.name).toBe("Health checks");
  });

  it("K asks, saying it is irreversible and what is lost; y destroys", async () => {
    const { fx, h } = await mountOnReference({ columns: 160, rows: 30 }, FIXTURE);
    const id = fx.ids[0] as string;
    await waitForContent(h, id);
    await pressKey(h, "K");
    const frame = await waitForContent(h, "Destroy (irreversible) — confirm");
    expect(frame.replace(/[│\s]+/g, " ")).toContain(
      "the sandbox, its files and any work not pushed are lost",
    );
    await pressKey(h, "y");
    await waitForContent(h, `Destroyed ${id}`);
    expect(fx.server.sessions().find((s) => s.id === id)?.state).toBe("destroyed");
  });

  it("a member's key: K is disabled naming sessions:delete", async () => {
    const { fx, h } = await mountOnReference(
      { columns: 160, rows: 30 },
      { ...FIXTURE, key: "member" },
    );
    await waitForContent(h, fx.ids[0] as string);
    await pressKey(h, "K");
    await waitForContent(h, "destroy is disabled");
    await waitForContent(h, "sessions:delete");
  });
});
