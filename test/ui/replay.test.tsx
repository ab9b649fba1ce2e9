import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildReplayServices, type ReplayHandle } from "../../src/cli/tui/buildReplayServices.js";
import { buildRecording } from "../../src/store/history/recording.js";
import type { TimelineEntry } from "../../src/store/streams/entry.js";
import { App } from "../../src/ui/App.js";
import { pinTimeZone } from "../helpers/timeZone.js";
import { pressKey, renderUi, typeText, type UiHarness, waitForContent } from "../helpers/ui.js";

/**
 * The UI on a recording: the replay line, play/pause, speeds, jumps (typed, and ← →), and the
 * pane's own features working on replayed events. No network, no key.
 */

const FIXTURE = join(import.meta.dirname, "..", "fixtures", "recording.ndjson");

let handle: ReplayHandle | null = null;
let h: UiHarness | null = null;

pinTimeZone("UTC");

afterEach(async () => {
  h?.unmount();
  h = null;
  await handle?.dispose();
  handle = null;
});

function mount(saved: TimelineEntry[][] = [], size = { columns: 140, rows: 36 }) {
  const recording = buildRecording([{ name: FIXTURE, text: readFileSync(FIXTURE, "utf8") }]);
  handle = buildReplayServices(recording, { playing: false });
  h = renderUi(
    <App
      services={handle.services}
      profile="replay"
      baseUrl="recording.ndjson"
      options={{ bell: false }}
      initialSessions={recording.sessions}
      onExit={() => {}}
      onSave={async (_id, entries) => {
        saved.push([...entries]);
        return "/tmp/saved.ndjson";
      }}
      now={handle.replay.now}
    />,
    size,
  );
  return h;
}

describe("replay in the UI", () => {
  it("plays, pauses and changes speed from the keyboard", async () => {
    const ui = mount();
    const first = await waitForContent(
      ui,
      "REPLAY ⏸ paused ×1 · 10:00:00 (0% of 10:00:00–10:05:00)",
    );
    // The header says what this is instead of filler for a key and a connection it has not.
    expect(first).toContain("replaying a recording: no key is used and nothing is sent");
    expect(first).toContain("▶ recording (no connection)");
    expect(first).not.toContain('key "replay (no key)"');
    expect(first).not.toMatch(/· ● live ·/);
    expect(ui.frame()).toMatch(/Space play\/pause/);
    await pressKey(ui, "]");
    await waitForContent(ui, "⏸ paused ×10 ·");
    await pressKey(ui, "]");
    await pressKey(ui, "]");
    await waitForContent(ui, "⏸ paused max ·");
    await pressKey(ui, "]");
    await pressKey(ui, "[");
    await waitForContent(ui, "⏸ paused ×100 ·");
    await pressKey(ui, " ");
    await waitForContent(ui, "▶ playing ×100");
    // At ×100 the five minutes take three seconds; the pane fills as it plays.
    await waitForContent(ui, "■ end of recording ×100 · 10:05:00 (100%", 10_000);
    expect(ui.frame()).toContain("Build green on Node 24.");
    // Its panes say it is a replay, never "● live", however far it played.
    expect(ui.frame()).toContain("▶ replay");
    expect(ui.frame()).not.toContain("● live");
    await pressKey(ui, " ");
    await waitForContent(ui, "▶ playing");
    await pressKey(ui, " ");
    await waitForContent(ui, "⏸ paused");
  });

  it("jumps to a typed time and steps with ← and →; the panes show what had happened by then", async () => {
    const ui = mount();
    await waitForContent(ui, "REPLAY ⏸ paused");
    await pressKey(ui, ":");
    await waitForContent(ui, "jump to:");
    await typeText(ui, "+2m");
    await pressKey(ui, "enter");
    // The line moves at once; the panes at their next batch.
    let frame = await waitForContent(
      ui,
      (f) => f.includes("⏸ paused ×1 · 10:02:00 (40%") && f.includes("parser case 20 passed"),
    );
    expect(frame).not.toContain("All parser tests pass");
    await pressKey(ui, "right");
    await pressKey(ui, "right");
    frame = await waitForContent(
      ui,
      (f) => f.includes("10:02:20 (") && f.includes("All parser tests pass"),
    );
    // It paused a second later (10:02:21).
    expect(frame).toMatch(/ses_fixture_a ● active/);
    await pressKey(ui, "right");
    frame = await waitForContent(
      ui,
      (f) => f.includes("10:02:30 (") && f.includes("active → paused"),
    );
    expect(frame).toMatch(/ses_fixture_a ⏸ paused/);
    await pressKey(ui, "left");
    await pressKey(ui, "left");
    await pressKey(ui, "left");
    await pressKey(ui, "left");
    frame = await waitForContent(
      ui,
      (f) => f.includes("10:01:50 (") && !f.includes("All parser tests pass"),
    );
    expect(frame).toMatch(/ses_fixture_a ● active/);
    await pressKey(ui, ":");
    await typeText(ui, "soon");
    await pressKey(ui, "enter");
    await waitForContent(ui, 'Not a time: "soon"');
    // Nothing moved.
    expect(handle?.replay.getState().position).toBe(Date.UTC(2024, 4, 1, 10, 1, 50));
  });

  it("keeps every pane feature: search, kind filters, export; git actions stay off", async () => {
    const saved: TimelineEntry[][] = [];
    // Wide enough that a pane's status line keeps the search count after "follow off — G
    // resumes · 0 new" (two panes beside the list).
    const ui = mount(saved, { columns: 160, rows: 36 });
    await waitForContent(ui, "REPLAY ⏸ paused");
    await pressKey(ui, ":");
    await typeText(ui, "end");
    await pressKey(ui, "enter");
    await waitForContent(ui, "■ end of recording");
    // Pane 1 has focus: search it.
    await pressKey(ui, "/");
    await typeText(ui, "slow test");
    await pressKey(ui, "enter");
    await waitForContent(ui, "/slow test 1/2");
    await pressKey(ui, "G");
    await pressKey(ui, "O");
    // Pane 1's process output is hidden (stderr is output too); pane 2 keeps its own.
    await waitForContent(ui, (f) => !f.includes("parser case") && !f.includes("warning: slow"));
    expect(ui.frame()).toContain("npm install");
    await pressKey(ui, "e");
    await waitForContent(ui, "Saved");
    expect(saved[0]?.some((e) => e.text.includes("Waiting for review"))).toBe(true);
    await pressKey(ui, "p");
    await waitForContent(ui, /push is disabled: the key's effective scopes lack sessions:write/);
  });
});
