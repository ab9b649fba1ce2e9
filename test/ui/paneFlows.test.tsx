import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { savePaneNdjson } from "../../src/cli/tui/savePane.js";
import { tempFolder } from "../helpers/stopAfterTest.js";
import {
  mountOnFixture,
  pressKey,
  startReference,
  typeText,
  unmountReference,
  waitForAbsence,
  waitForContent,
} from "../helpers/ui.js";

/** One focused pane: follow/pause, search, kind toggles, wrap, timestamps, save, escapes. */

afterEach(unmountReference);

/** One session in a focused pane, with `n` numbered output lines already on screen. */
async function paneWithLines(n: number, extra: Parameters<typeof mountOnFixture>[2] = {}) {
  const fx = await startReference();
  const id = fx.ids[0] as string;
  const h = mountOnFixture(fx, { columns: 120, rows: 24 }, { initialSessions: [id], ...extra });
  await waitForContent(h, "● live ·");
  // The stream is live before the history is drawn (its events held meanwhile): events sent
  // now would come through the history read, with a divider after them. Sent once it is drawn,
  // they are live events, every time.
  await expect.poll(() => fx.streamsController.readingPast(id), { timeout: 5000 }).toBe(false);
  for (let i = 1; i <= n; i++) {
    fx.server.emit(id, "process_output", { text: `line ${i}${i % 10 === 0 ? " error" : ""}\n` });
  }
  await waitForContent(h, `line ${n}`);
  return { fx, h, id };
}

describe("a pane", () => {
  it("follows, pauses on scrolling up with a visible 'N new', and G resumes", async () => {
    const { fx: f, h: ui, id } = await paneWithLines(40);
    expect(ui.frame()).toContain("▼ follow");
    await pressKey(ui, "k");
    const statusLine = (fr: string) => fr.split("\n").find((l) => l.includes("follow off")) ?? "";
    let status = statusLine(await waitForContent(ui, "follow off — G resumes · 0 new"));
    // "paused" is a session state; the follow indicator never says it.
    expect(status).not.toContain("paused");
    expect(ui.frame()).not.toContain("line 40");
    f.server.emit(id, "process_output", { text: "line 41\n" });
    f.server.emit(id, "process_output", { text: "line 42\n" });
    status = statusLine(await waitForContent(ui, "follow off — G resumes · 2 new"));
    expect(status).not.toContain("⏸");
    expect(ui.frame()).not.toContain("line 42");
    await pressKey(ui, "G");
    const frame = await waitForContent(ui, "▼ follow");
    expect(frame).toContain("line 42");
    // f toggles follow off and on again; End resumes too.
    await pressKey(ui, "f");
    await waitForContent(ui, "follow off");
    await pressKey(ui, "end");
    await waitForContent(ui, "▼ follow");
    // g goes to the very first line.
    await pressKey(ui, "g");
    await waitForContent(ui, /output {2}line 1 +║/);
  });

  it("searches: lands on the newest match, n older, N newer", async () => {
    const { h: ui } = await paneWithLines(40);
    await pressKey(ui, "/");
    await waitForContent(ui, "search /");
    await typeText(ui, "error");
    await pressKey(ui, "enter");
    let frame = await waitForContent(ui, "/error 1/4");
    expect(frame).toMatch(/output ▶line 40 error/);
    await pressKey(ui, "n");
    frame = await waitForContent(ui, "/error 2/4");
    expect(frame).toMatch(/output ▶line 30 error/);
    await pressKey(ui, "n");
    await waitForContent(ui, "/error 3/4");
    await pressKey(ui, "N");
    frame = await waitForContent(ui, "/error 2/4");
    expect(frame).toMatch(/output ▶line 30 error/);
    await pressKey(ui, "/");
    await typeText(ui, "zzz");
    await pressKey(ui, "enter");
    await waitForContent(ui, 'No match for "zzz"');
  });

  it("a search with no match keeps following; Esc clears a search, then leaves zoom", async () => {
    const { fx: f, h: ui, id } = await paneWithLines(10);
    await pressKey(ui, "z");
    await pressKey(ui, "/");
    await typeText(ui, "zzz");
    await pressKey(ui, "enter");
    let frame = await waitForContent(ui, "/zzz no match");
    expect(frame).toContain("▼ follow");
    f.server.emit(id, "process_output", { text: "line 11 after the search\n" });
    frame = await waitForContent(ui, "line 11 after the search");
    expect(frame).toContain("▼ follow");
    expect(frame).not.toContain("follow off");

    // Esc: first the search goes, the pane stays zoomed (no list beside it).
    await pressKey(ui, "escape");
    frame = await waitForContent(ui, "Search cleared");
    expect(frame).not.toContain("/zzz");
    expect(frame).not.toContain("Sessions");
    // Then zoom goes.
    await pressKey(ui, "escape");
    await waitForContent(ui, "Sessions");
  });

  it("toggles kinds, wrapping and timestamps", async () => {
    const { fx: f, h: ui, id } = await paneWithLines(3);
    f.server.emit(id, "file_changed", { path: "src/kept.ts", action: "created" });
    f.server.emit(id, "prompt_progress", {
      type: "text",
      content: `${"a long line of prose that must wrap ".repeat(4)}\n`,
    });
    await waitForContent(ui, "src/kept.ts");
    await pressKey(ui, "O");
    let frame = await waitForContent(ui, "hidden: output");
    expect(frame).not.toContain("line 3");
    expect(frame).toContain("src/kept.ts");
    await pressKey(ui, "F");
    frame = await waitForContent(ui, "hidden: output files");
    expect(frame).not.toContain("src/kept.ts");
    await pressKey(ui, "O");
    await pressKey(ui, "F");
    await waitForAbsence(ui, "hidden:");

    const wrapped = (fr: string) => fr.split("\n").filter((l) => l.includes("must wrap")).length;
    expect(wrapped(ui.frame())).toBeGreaterThan(1);
    await pressKey(ui, "w");
    frame = await waitForContent(ui, "no wrap");
    expect(wrapped(frame)).toBe(1);

    await pressKey(ui, "t");
    frame = await waitForContent(ui, "times");
    expect(frame).toMatch(/\d{2}:\d{2}:\d{2} output\s+line 3/);
  });

  it("saves its entries to an NDJSON file and shows where", async () => {
    const dir = tempFolder("as-ui-save-");
    let path: string | undefined;
    const { h: ui, id } = await paneWithLines(5, {
      onSave: async (sessionId, entries) => {
        path = await savePaneNdjson(sessionId, entries, { dir });
        return path;
      },
    });
    await pressKey(ui, "e");
    const frame = await waitForContent(ui, /Saved 5 entries/);
    expect(path?.startsWith(dir)).toBe(true);
    // The status line says where (cut to the line when the folder's path is long).
    expect(frame).toContain(`to ${dir}/`);
    const lines = readFileSync(path as string, "utf8")
      .trim()
      .split("\n");
    expect(lines).toHaveLength(5);
    const first = JSON.parse(lines[0] as string);
    expect(first).toMatchObject({ kind: "output", text: "line 1", data: { text: "line 1\n" } });
    expect(path).toContain(id);
  });

  it("shows unknown and malformed events visibly instead of dropping them", async () => {
    const fx = await startReference();
    const id = fx.ids[0] as string;
    const h = mountOnFixture(fx, { columns: 120, rows: 24 }, { initialSessions: [id] });
    await waitForContent(h, "● live ·");
    fx.server.emit(id, "tool_call", { name: "grep" });
    fx.server.emitRaw(id, "process_output", "{not json");
    const frame = await waitForContent(h, /bad\s+process_output: data is not JSON/);
    expect(frame).toMatch(/event\?\s+tool_call: \{"name":"grep"/);
  });

  it("warns when the heartbeat is late, as the watchdog bound nears", async () => {
    const fx = await startReference({ server: { heartbeatMs: 100 } });
    const id = fx.ids[0] as string;
    let skew = 0;
    const h = mountOnFixture(
      fx,
      { columns: 120, rows: 24 },
      {
        initialSessions: [id],
        now: () => Date.now() + skew,
      },
    );
    await waitForContent(h, /● live · ♥ \d+s ·/);
    const watchdogMs = fx.services.streams.getState().sessions[id]?.watchdogMs ?? 0;
    expect(watchdogMs).toBeGreaterThan(0);
    // The clock the UI reads jumps ahead; the stream itself is fine, so this is only the view.
    skew = watchdogMs * 0.9;
    await waitForContent(h, /♥ \d+s stale/, 5000);
  });

  it("never lets escape sequences from process output reach the terminal", async () => {
    const fx = await startReference();
    const id = fx.ids[0] as string;
    const h = mountOnFixture(fx, { columns: 120, rows: 24 }, { initialSessions: [id] });
    await waitForContent(h, "● live ·");
    fx.server.emit(id, "process_output", {
      text: "\u001b]52;c;c2VjcmV0\u0007\u001b]0;pwned\u0007\u001b[2J\u001b[H\u001b[5;5Hclean \u001b[31mred\u001b[0m end\n",
    });
    await waitForContent(h, "clean red end");
    const raw = h.rawFrame();
    expect(raw).not.toContain("\u001b]");
    expect(raw).not.toContain("pwned");
    // Only SGR sequences remain.
    expect(raw.replace(/\u001b\[[0-9;]*m/g, "")).not.toContain("\u001b");
    expect(raw).toContain("\u001b[31m");
  });
  it("opening more sessions than there are panes says which were left out and why", async () => {
    const fx = await startReference({ server: { sessionCount: 8 } });
    const ids = fx.ids.slice(0, 8);
    const h = mountOnFixture(fx, { columns: 200, rows: 40 }, { initialSessions: ids });
    const frame = await waitForContent(h, "not opened");
    expect(frame).toContain(
      `2 sessions were not opened, at most 6 panes: ${ids[6]}, ${ids[7]} (close a pane with x, then open from the list)`,
    );
    expect(Object.keys(fx.services.streams.getState().sessions).sort()).toEqual(
      ids.slice(0, 6).sort(),
    );
  });
});
