import type { Key } from "ink";
import { afterEach, describe, expect, it } from "vitest";
import { buildServices } from "../../src/cli/tui/buildServices.js";
import { startServer } from "../../src/server/index.js";
import { startScreen } from "../../src/ui/input/actions.js";
import { mainTarget } from "../../src/ui/input/handlers/index.js";
import { routeInput } from "../../src/ui/input/route.js";
import type { UiDeps } from "../../src/ui/model/deps.js";
import { bodyOf } from "../../src/ui/model/geometry.js";
import { helpNotes } from "../../src/ui/model/gitActions.js";
import { helpLayout } from "../../src/ui/model/help.js";
import type { TerminalSize } from "../../src/ui/model/layout.js";
import { modeOf } from "../../src/ui/model/mode.js";
import { DEFAULT_OPTIONS } from "../../src/ui/model/services.js";
import { createUiStore } from "../../src/ui/model/uiStore.js";
import { inkKey } from "../helpers/inkKey.js";
import { closeAfterTest, stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";

/**
 * The signed-in screen's key handling without rendering anything: reads go through the one
 * key path into the handlers, against the production services on the reference service.
 */

afterEach(stopStarted);

async function screen(
  size: TerminalSize = { columns: 160, rows: 30 },
  open: string[] = [],
  keyName = "owner",
) {
  const server = closeAfterTest(
    await startServer({ seed: 42, paceMs: 0, heartbeatMs: 1000, sessionCount: 4 }),
  );
  const handle = buildServices({ baseUrl: server.url, apiKey: server.key(keyName) });
  stopAfterTest(() => handle.dispose());
  const { services } = handle;
  await services.identity.getState().load(handle.client);
  await services.sessions.getState().load();
  let exits = 0;
  const deps: UiDeps = {
    ui: createUiStore(size),
    services,
    options: DEFAULT_OPTIONS,
    exit: () => {
      exits++;
    },
    now: () => 0,
    save: null,
  };
  startScreen(deps, open);
  const target = mainTarget(deps);
  const ids = server.sessions().map((s) => s.id);
  return {
    ids,
    ui: deps.ui,
    services,
    streams: handle.streams,
    exits: () => exits,
    /** One read from the terminal, as Ink hands it over. */
    read: (input: string, flags: Partial<Key> = {}) => routeInput(target, input, inkKey(flags)),
    mode: () => modeOf(deps.ui.getState()),
    identity: () => services.identity.getState(),
  };
}

describe("keys that arrive in one read", () => {
  it("j and Enter: moves to the next session and opens it", async () => {
    const s = await screen();
    s.read("j\r");
    expect(s.ui.getState().panes).toEqual([s.ids[1]]);
    expect(s.streams.isOpen(s.ids[1] as string)).toBe(true);
  });

  it("Tab and j: focus moves to the list, then its cursor moves down", async () => {
    const s = await screen(undefined, []);
    s.read("\r");
    s.read("1");
    expect(s.mode()).toEqual({ kind: "pane", sessionId: s.ids[0] });
    s.read("\tj");
    expect(s.ui.getState().focus).toBe(0);
    expect(s.ui.getState().listCursor).toBe(1);
  });

  it("a pasted line with its Enter fills the form's field and submits it", async () => {
    const s = await screen();
    s.read("b");
    expect(s.mode().kind).toBe("form");
    s.read("feature/retry\r");
    const m = s.mode();
    expect(m.kind).toBe("confirm");
    expect(m.kind === "confirm" && m.dialog.action).toMatchObject({
      kind: "branch",
      name: "feature/retry",
    });
  });

  it("a key that opens a text field hands the rest of the run to it", async () => {
    const s = await screen();
    s.read("/demo/docs\r");
    expect(s.mode().kind).toBe("list");
    expect(s.services.sessions.getState().filterText).toBe("demo/docs");
  });

  it("Tab moves between form fields and typing goes to the focused one", async () => {
    const s = await screen();
    s.read("cdemo/app\tmain");
    const m = s.mode();
    expect(m.kind === "form" && m.dialog.values).toEqual(["demo/app", "main"]);
    s.read("\u0017"); // Ctrl-W deletes the word before the cursor
    const after = s.mode();
    expect(after.kind === "form" && after.dialog.values).toEqual(["demo/app", ""]);
    s.read("", { escape: true, meta: true });
    expect(s.mode().kind).toBe("list");
  });
});

describe("modes and their keys", () => {
  it("declining a confirmation sends nothing and says so", async () => {
    const s = await screen();
    s.read("p");
    expect(s.mode().kind).toBe("confirm");
    s.read("n");
    expect(s.mode().kind).toBe("list");
    expect(s.ui.getState().message?.text).toBe("push cancelled: nothing was sent");
  });

  // A key without a scope gets notes that may take lines of their own: paging counts them.
  it.each(["owner", "readonly"])(
    "the help overlay pages as far as its last line and no further (%s key)",
    async (keyName) => {
      const size = { columns: 80, rows: 20 };
      const s = await screen(size, [], keyName);
      s.read("?");
      s.read("G");
      const mode = s.mode();
      if (mode.kind !== "help") throw new Error(`not in help: ${mode.kind}`);
      const body = bodyOf(size);
      const { lines, geometry: g } = helpLayout(
        body.width,
        body.rows,
        helpNotes(s.identity(), mode.overlay.sessionState ?? null),
      );
      const shown = lines.slice(
        mode.overlay.offset,
        mode.overlay.offset + g.columns * g.rowsPerColumn,
      );
      expect(mode.overlay.offset).toBeGreaterThan(0);
      expect(shown.at(-1)).toEqual(lines.at(-1));
      expect(shown).toHaveLength(g.columns * g.rowsPerColumn);
      s.read("j");
      expect(s.mode()).toEqual(mode);
      s.read("q");
      expect(s.mode().kind).toBe("list");
      expect(s.exits()).toBe(0);
    },
  );

  it("a terminal too small takes only q and Ctrl-C", async () => {
    const s = await screen({ columns: 50, rows: 12 });
    expect(s.mode().kind).toBe("tooSmall");
    s.read("c");
    s.read("\r");
    expect(s.ui.getState().dialog).toBeNull();
    expect(s.ui.getState().panes).toEqual([]);
    s.read("q");
    expect(s.exits()).toBe(1);
    s.read("c", { ctrl: true });
    expect(s.exits()).toBe(2);
  });

  it("a dialog is above an overlay, and typing in it is text, not commands", async () => {
    const s = await screen();
    s.read("i");
    expect(s.mode().kind).toBe("detail");
    s.ui.setState({ dialog: { kind: "quit" } });
    expect(s.mode().kind).toBe("quit");
    s.read("\u001b", { escape: true });
    expect(s.mode().kind).toBe("detail");
    s.ui.setState({ overlay: null });
    s.read("c");
    s.read("qyn");
    const m = s.mode();
    expect(m.kind === "form" && m.dialog.values[0]).toBe("qyn");
    expect(s.exits()).toBe(0);
  });
});
