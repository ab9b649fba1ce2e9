import { afterEach, describe, expect, it } from "vitest";
import {
  frameHeight,
  listedOnReference,
  mountOnFixture,
  pressKey,
  startReference,
  typeText,
  unmountReference,
  waitForAbsence,
  waitForContent,
} from "../helpers/ui.js";

/** Keyboard flows against the real stores and the reference service. */

afterEach(unmountReference);

/** The pane with this number has focus (double border around its title). */
function focusedPane(frame: string): number | null {
  const m = frame.match(/╔═ (?:⚠ )?(\d) ses_/);
  return m ? Number(m[1]) : null;
}

function listFocused(frame: string): boolean {
  return /╔═+╗\n║Sessions/.test(frame) || /^╔.*\n║Sessions/m.test(frame);
}

describe("sessions and panes", () => {
  it("opens sessions from the list, moves focus with Tab, Shift-Tab and numbers, closes a pane", async () => {
    const fx = await startReference();
    const [a, b] = fx.ids as [string, string];
    const h = mountOnFixture(fx, { columns: 160, rows: 30 });
    await waitForContent(h, a);
    await pressKey(h, "enter");
    await waitForContent(h, `1 ${a}`);
    await pressKey(h, "j");
    await pressKey(h, "enter");
    await waitForContent(h, `2 ${b}`);
    expect(listFocused(h.frame())).toBe(true);

    await pressKey(h, "tab");
    expect(focusedPane(await waitForContent(h, `╔═ 1 ${a}`))).toBe(1);
    await pressKey(h, "tab");
    expect(focusedPane(await waitForContent(h, `╔═ 2 ${b}`))).toBe(2);
    await pressKey(h, "shiftTab");
    expect(focusedPane(await waitForContent(h, `╔═ 1 ${a}`))).toBe(1);
    await pressKey(h, "2");
    expect(focusedPane(await waitForContent(h, `╔═ 2 ${b}`))).toBe(2);
    await pressKey(h, "0");
    await waitForContent(h, (f) => focusedPane(f) === null);

    await pressKey(h, "2");
    await pressKey(h, "x");
    await waitForAbsence(h, `2 ${b}`);
    expect(fx.streamsController.isOpen(b)).toBe(false);
    expect(fx.streamsController.isOpen(a)).toBe(true);
  });

  it("opens at most six panes", async () => {
    const fx = await startReference({ server: { sessionCount: 7 } });
    const h = mountOnFixture(
      fx,
      { columns: 200, rows: 50 },
      { initialSessions: fx.ids.slice(0, 6) },
    );
    await waitForContent(h, `6 ${fx.ids[5]}`);
    await pressKey(h, "0");
    await pressKey(h, "G");
    await pressKey(h, "enter");
    await waitForContent(h, "At most 6 panes: close one with x first");
    expect(fx.streamsController.openIds).toHaveLength(6);
  });

  it("zooms the focused pane and back", async () => {
    const fx = await startReference();
    const [a, b] = fx.ids as [string, string];
    const h = mountOnFixture(fx, { columns: 160, rows: 30 }, { initialSessions: [a, b] });
    await waitForContent(h, `2 ${b}`);
    expect(focusedPane(h.frame())).toBe(1);
    await pressKey(h, "z");
    let f = await waitForAbsence(h, "Sessions");
    expect(f).toContain(`1 ${a}`);
    expect(f).not.toContain(`2 ${b}`);
    // Tab while zoomed shows the next pane, still zoomed.
    await pressKey(h, "tab");
    f = await waitForContent(h, `2 ${b}`);
    expect(f).not.toContain(`1 ${a}`);
    await pressKey(h, "z");
    f = await waitForContent(h, "Sessions");
    expect(f).toContain(`1 ${a}`);
    expect(f).toContain(`2 ${b}`);
  });

  it("filters by text, by state, and sorts", async () => {
    const fx = await startReference();
    const h = mountOnFixture(fx, { columns: 120, rows: 24 });
    await waitForContent(h, "Sessions 4/4");
    await pressKey(h, "/");
    await typeText(h, "demo/docs");
    let f = await waitForContent(h, "Sessions 2/4");
    expect(f).not.toContain("demo/app");
    await pressKey(h, "enter");
    f = await waitForContent(h, "filter: demo/docs");
    await pressKey(h, "/");
    await pressKey(h, "escape");
    await waitForContent(h, "Sessions 4/4");

    await pressKey(h, "s");
    f = await waitForContent(h, "state: active");
    expect(f).toContain("Sessions 3/4");
    expect(f).not.toContain("⏸ paused");
    await pressKey(h, "s");
    f = await waitForContent(h, "state: paused");
    expect(f).toContain("Sessions 1/4");

    await pressKey(h, "s");
    await waitForContent(h, "state: all");
    await pressKey(h, "o");
    await waitForContent(h, "sort: created ↓");
    await pressKey(h, "o");
    f = await waitForContent(h, "sort: id ↑");
    const ids = [...f.matchAll(/ses_[a-z0-9]+/g)].map((m) => m[0]);
    expect(ids).toEqual([...ids].sort());
  });

  it("keeps the selection on the same session when sorting, and Esc clears the filters", async () => {
    const fx = await startReference();
    const h = mountOnFixture(fx, { columns: 120, rows: 24 });
    await waitForContent(h, "Sessions 4/4");
    const selected = (fr: string) => fr.match(/▸[^s]*(ses_[a-z0-9]+)/)?.[1];
    const rowOf = (fr: string) => fr.split("\n").findIndex((l) => l.includes("▸"));
    const top = rowOf(h.frame());
    await pressKey(h, "j");
    await pressKey(h, "j");
    let f = await waitForContent(h, (fr) => rowOf(fr) === top + 2);
    const chosen = selected(f);
    const rows = new Set<number>();
    for (const sort of ["created ↓", "id ↑", "state", "name"]) {
      await pressKey(h, "o");
      f = await waitForContent(h, `sort: ${sort}`);
      expect(selected(f)).toBe(chosen);
      rows.add(rowOf(f));
    }
    // The sessions did move: some order put the chosen one on another row, and it followed.
    expect(rows.size).toBeGreaterThan(1);
    await pressKey(h, "o");
    f = await waitForContent(h, "sort: updated");
    expect(selected(f)).toBe(chosen);
    expect(rowOf(f)).toBe(top + 2);

    // A state filter that hides nothing of it keeps it too; Esc drops text and state filters.
    await pressKey(h, "/");
    await typeText(h, "demo/docs");
    await pressKey(h, "enter");
    await pressKey(h, "s");
    f = await waitForContent(h, "state: active");
    expect(f).not.toMatch(/Sessions 4\/4/);
    await pressKey(h, "escape");
    f = await waitForContent(h, "Filters cleared");
    expect(f).toContain("Sessions 4/4");
    expect(f).toContain("state: all");
    expect(f).toContain("(/ filter)");
  });

  it("reads every page of the list, and G reaches the last session", async () => {
    const fx = await startReference({ server: { sessionCount: 9 }, pageSize: 3 });
    const h = mountOnFixture(fx, { columns: 120, rows: 30 });
    await waitForContent(h, "9 shown of 9 loaded");
    await pressKey(h, "G");
    expect(h.frame()).not.toContain("not every page read");
  });

  it("Ctrl-R reloads the list from the service", async () => {
    const { fx, id, h } = await listedOnReference({ columns: 120, rows: 24 });
    expect(h.frame()).not.toContain("demo/app @ main");
    await fx.client.git(id, { kind: "clone", repoUrl: "demo/app" });
    await pressKey(h, "ctrlR");
    await waitForContent(h, "demo/app @ main", 10_000);
  });

  it("shows every field of a session in the detail view", async () => {
    const { h } = await listedOnReference({ columns: 120, rows: 24 });
    await pressKey(h, "i");
    const f = await waitForContent(h, "fields · Esc or i closes");
    for (const field of ["id", "name", "state", "agent", "visibility", "sandbox_url", "repo"]) {
      expect(f).toContain(field);
    }
    // Null optional fields are left out (no error, not paused, no clone yet).
    expect(f).not.toMatch(/error_message|paused_at|github_repo/);
    // Further down: the documented fields the reference service sends, then the routes in use.
    await pressKey(h, "G");
    const end = await waitForContent(h, "API routes in use");
    expect(end).toMatch(/last_prompt\.status\s+completed/);
    expect(end).toMatch(/total_cost_usd\s+[\d.]+ \(\$\d+\.\d\d\)/);
    expect(end).toMatch(/sessions at\s+\/api\/sessions \(answered in this run\)/);
    expect(end).toMatch(/events at\s+\/api\/cloud\/sessions\/\{id\}\/events/);
    // The code hosting app under the mount the sessions were found at.
    expect(end).toMatch(
      /code hosting at\s+\/api\/github-app\/installations \(the API.s mount, found in this run\)/,
    );
    await pressKey(h, "escape");
    await waitForContent(h, "Sessions 4/4");
  });

  it("opens and closes the help overlay", async () => {
    const fx = await startReference();
    const h = mountOnFixture(fx, { columns: 120, rows: 40 });
    await waitForContent(h, "Sessions");
    await pressKey(h, "?");
    await waitForContent(h, "Everywhere");
    await pressKey(h, "?");
    await waitForContent(h, "Sessions 4/4");
  });

  it("the help overlay's columns keep a gap: the left half's text never touches the right half's keys", async () => {
    const fx = await startReference();
    const h = mountOnFixture(fx, { columns: 160, rows: 40 });
    await waitForContent(h, "Sessions");
    await pressKey(h, "?");
    const frame = await waitForContent(h, "Everywhere");
    const lines = frame.split("\n");
    const top = lines.findIndex((l) => l.includes("Keys — "));
    const end = lines.findIndex((l, i) => i > top && l.startsWith("╰"));
    const body = lines.slice(top + 1, end);
    // Two halves: the right one starts where the key on the heading's line does.
    const first = body[0] ?? "";
    const column = /Everywhere +\S/.exec(first);
    expect(column).not.toBeNull();
    const at = (column?.index ?? 0) + (column?.[0].length ?? 0) - 1;
    expect(at).toBeGreaterThan(60);
    // The three cells before the right half are blank on every line: no text runs into its keys.
    for (const l of body) expect(l.slice(at - 3, at), l).toBe("   ");
  });

  it("re-lays out on resize, never taller than the terminal, and says when it is too small", async () => {
    const fx = await startReference();
    const [a, b, c] = fx.ids as [string, string, string];
    const h = mountOnFixture(fx, { columns: 160, rows: 40 }, { initialSessions: [a, b, c] });
    // The third session waits (paused) from the start: its pane's title, marked, is narrow.
    await waitForContent(h, new RegExp(`3 (?:${c}|⏸ paused · ● live · ${c.slice(0, 6)})`));
    for (const [cols, rows] of [
      [100, 24],
      [70, 16],
      [200, 50],
    ] as const) {
      h.resize(cols, rows);
      const f = await waitForContent(
        h,
        (fr) =>
          fr.split("\n").some((l) => l.length === cols) &&
          fr.split("\n").every((l) => l.length <= cols) &&
          frameHeight(fr) === rows - 1,
      );
      // Pane 1's title: its number and session (narrow titles put state and connection
      // before the id).
      expect(f).toMatch(new RegExp(`[─═━] 1 (?:${a}|● active · ● live · ${a.slice(0, 6)})`));
    }
    h.resize(50, 12);
    await waitForContent(h, "Terminal too small");
    h.resize(120, 30);
    await waitForContent(h, `1 ${a}`);
  });
});

describe("keys that arrive in one read (typing fast, over SSH, pasting)", () => {
  it("j and Enter: the cursor moves down and that session opens", async () => {
    const fx = await startReference();
    const [a, b] = fx.ids as [string, string];
    const h = mountOnFixture(fx, { columns: 160, rows: 30 });
    await waitForContent(h, a);
    await pressKey(h, "j\r");
    await waitForContent(h, `1 ${b}`);
    expect(h.frame()).not.toContain(`1 ${a}`);
    expect(fx.streamsController.openIds).toEqual([b]);
  });

  it("Tab and j: focus moves to the next pane, which scrolls down", async () => {
    const fx = await startReference();
    const [a, b] = fx.ids as [string, string];
    const h = mountOnFixture(fx, { columns: 160, rows: 30 }, { initialSessions: [a, b] });
    await waitForContent(h, "● live 2/2");
    for (let i = 1; i <= 40; i++) fx.server.emit(b, "process_output", { text: `b line ${i}\n` });
    await waitForContent(h, "b line 40");
    // Pane 2 scrolled to its first line, then pane 1 focused.
    await pressKey(h, "2");
    await pressKey(h, "g");
    await pressKey(h, "1");
    await waitForContent(h, (f) => focusedPane(f) === 1 && /output +b line 1 +│$/m.test(f));
    await pressKey(h, "\tj");
    const f = await waitForContent(h, /output +b line 2 +║$/m);
    expect(focusedPane(f)).toBe(2);
    expect(f).not.toMatch(/output +b line 1 +║$/m);
  });

  it("a pasted line with its Enter fills the form field and submits it", async () => {
    const { id, h } = await listedOnReference({ columns: 160, rows: 30 });
    await pressKey(h, "c");
    await waitForContent(h, `Clone a repository into ${id}`);
    await pressKey(h, "demo/app\r");
    await waitForContent(h, "Clone — confirm");
    await pressKey(h, "y");
    await waitForContent(h, new RegExp(`✓ clone ${id}: cloned demo/app \\(branch main\\)`), 15_000);
  });
});

describe("quitting", () => {
  it("q quits; Ctrl-C exits at once", async () => {
    const fx = await startReference();
    const h = mountOnFixture(fx, { columns: 100, rows: 24 });
    await waitForContent(h, "Sessions");
    await pressKey(h, "q");
    expect(h.exits()).toBe(1);
    await pressKey(h, "/");
    await pressKey(h, "ctrlC");
    expect(h.exits()).toBe(2);
  });
});
