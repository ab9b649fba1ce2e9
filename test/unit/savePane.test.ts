import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { exportDir, savePaneNdjson } from "../../src/cli/tui/savePane.js";
import type { TimelineEntry } from "../../src/store/streams/entry.js";
import { stopStarted, tempFolder } from "../helpers/stopAfterTest.js";

afterEach(stopStarted);

const entries: TimelineEntry[] = [
  {
    seq: 1,
    id: "7",
    kind: "file",
    at: Date.UTC(2025, 0, 2, 3, 4, 5),
    text: "created src/a.ts",
    path: "src/a.ts",
    action: "created",
    raw: { path: "src/a.ts", action: "created" },
  },
  {
    seq: 2,
    id: "8",
    kind: "state",
    at: Date.UTC(2025, 0, 2, 3, 4, 6),
    text: "active → paused",
    state: "paused",
    previousState: "active",
    raw: { state: "paused", previous_state: "active" },
  },
];

describe("saving a pane", () => {
  it("writes one JSON object per entry and never overwrites an earlier file", async () => {
    const dir = tempFolder("as-export-");
    const now = () => Date.UTC(2025, 0, 2, 3, 4, 7);
    const first = await savePaneNdjson("ses_a/../b", entries, { dir, now });
    const second = await savePaneNdjson("ses_a/../b", entries, { dir, now });
    expect(first).not.toBe(second);
    expect(first.startsWith(dir)).toBe(true);
    // The id cannot climb out of the directory.
    expect(first.slice(dir.length + 1)).not.toContain("/");
    const lines = readFileSync(first, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      {
        seq: 1,
        id: "7",
        kind: "file",
        at: "2025-01-02T03:04:05.000Z",
        text: "created src/a.ts",
        path: "src/a.ts",
        action: "created",
        data: { path: "src/a.ts", action: "created" },
      },
      {
        seq: 2,
        id: "8",
        kind: "state",
        at: "2025-01-02T03:04:06.000Z",
        text: "active → paused",
        state: "paused",
        previous_state: "active",
        data: { state: "paused", previous_state: "active" },
      },
    ]);
  });
});

describe("where exports go", () => {
  it("into the state directory, never the working directory, created on first use", async () => {
    const home = tempFolder("as-export-home-");
    const state = join(home, "state");
    const env = { HOME: home, XDG_STATE_HOME: state };
    expect(exportDir(env)).toBe(join(state, "agent-sessions", "exports"));
    // Without XDG_STATE_HOME (or with a relative one, which XDG says to ignore): ~/.local/state.
    expect(exportDir({ HOME: home })).toBe(
      join(home, ".local", "state", "agent-sessions", "exports"),
    );
    expect(exportDir({ HOME: home, XDG_STATE_HOME: "rel" })).toBe(
      join(home, ".local", "state", "agent-sessions", "exports"),
    );
    expect(exportDir({ HOME: home, AGENT_SESSIONS_EXPORT_DIR: join(home, "mine") })).toBe(
      join(home, "mine"),
    );

    const path = await savePaneNdjson("ses_a1", entries, { env });
    expect(path.startsWith(`${join(state, "agent-sessions", "exports")}/`)).toBe(true);
    expect(path.startsWith(process.cwd())).toBe(false);
    expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(2);
  });
});
