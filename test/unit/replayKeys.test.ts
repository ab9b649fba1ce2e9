import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Key } from "ink";
import { afterEach, describe, expect, it } from "vitest";
import { buildReplayServices, type ReplayHandle } from "../../src/cli/tui/buildReplayServices.js";
import { buildRecording } from "../../src/store/history/recording.js";
import { mainTarget } from "../../src/ui/input/handlers/index.js";
import { REPLAY_STEP_MS } from "../../src/ui/input/handlers/replay.js";
import { routeInput } from "../../src/ui/input/route.js";
import type { UiDeps } from "../../src/ui/model/deps.js";
import { footerCommands } from "../../src/ui/model/keymap.js";
import { modeOf } from "../../src/ui/model/mode.js";
import { type AppServices, DEFAULT_OPTIONS } from "../../src/ui/model/services.js";
import { createUiStore } from "../../src/ui/model/uiStore.js";

/**
 * A recording's keys through the one key path, without rendering: the keymap rows, the
 * list and pane handlers, and the "jump" mode with its text field.
 */

const FIXTURE = join(import.meta.dirname, "..", "fixtures", "recording.ndjson");
const NO_FLAGS = { ctrl: false, shift: false, meta: false } as Key;

let handle: ReplayHandle | null = null;
afterEach(async () => {
  await handle?.dispose();
  handle = null;
});

function keys(services: AppServices, now: () => number = () => 0) {
  const ui = createUiStore({ columns: 140, rows: 36 });
  const deps: UiDeps = { ui, services, options: DEFAULT_OPTIONS, exit: () => {}, now, save: null };
  const target = mainTarget(deps);
  return {
    ui,
    read: (input: string, flags: Partial<Key> = {}) =>
      routeInput(target, input, { ...NO_FLAGS, ...flags }),
    mode: () => modeOf(ui.getState()).kind,
  };
}

function replaying() {
  const text = readFileSync(FIXTURE, "utf8");
  handle = buildReplayServices(buildRecording([{ name: FIXTURE, text }]), { playing: false });
  return { replay: handle.replay, ...keys(handle.services, handle.replay.now) };
}

describe("replay keys", () => {
  it("play and pause with Space, change speed with ] and [, step with ← and →", () => {
    const r = replaying();
    const st = () => r.replay.getState();
    expect(st().playing).toBe(false);
    r.read(" ");
    expect(st().playing).toBe(true);
    r.read(" ");
    expect(st().playing).toBe(false);
    r.read("]]");
    expect(st().speed).toBe(100);
    r.read("[");
    expect(st().speed).toBe(10);
    const from = st().position;
    r.read("", { rightArrow: true });
    expect(st().position).toBe(from + REPLAY_STEP_MS);
    r.read("", { leftArrow: true });
    expect(st().position).toBe(from);
  });

  it(": opens the jump field; a typed time and its Enter in one read jump there", () => {
    const r = replaying();
    const { start, end } = r.replay.getState();
    r.read(":");
    expect(r.mode()).toBe("jump");
    // Space is text in the field, not play/pause; Backspace edits it.
    r.read(" 50%\u0008\u0008%\r");
    expect(r.mode()).toBe("list");
    expect(r.replay.getState().playing).toBe(false);
    expect(r.replay.getState().position).toBe(start + (end - start) * 0.05);
  });

  it("says how to write a time it cannot read, and Esc leaves the field without jumping", () => {
    const r = replaying();
    const at = r.replay.getState().position;
    r.read(":soon\r");
    expect(r.ui.getState().message?.text).toMatch(/^Not a time: "soon"\. Give a time such as/);
    r.read(":end");
    r.read("", { escape: true });
    expect(r.mode()).toBe("list");
    expect(r.replay.getState().position).toBe(at);
  });

  it("hints the replay's keys in the footer only while a recording plays", () => {
    const hinted = (replay: boolean) => footerCommands("list", replay).map((c) => c.label);
    expect(hinted(true).slice(0, 3)).toEqual(["play/pause", "faster", "jump"]);
    expect(hinted(false)).not.toContain("play/pause");
  });
});
