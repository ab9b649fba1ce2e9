import { afterEach, describe, expect, it } from "vitest";
import {
  type AppHarness,
  listedOnReference,
  mountOnFixture,
  pressKey,
  startReference,
  typeText,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/** The integrations view and the issue tracker's edit, against the reference service. */

afterEach(unmountReference);

async function openView(key: string): Promise<AppHarness> {
  const { h } = await listedOnReference({ columns: 140, rows: 40 }, { key });
  await pressKey(h, "I");
  await waitForContent(h, "issue tracker");
  return h;
}

describe("the integrations view", () => {
  it("shows each part: installations and repositories, the token, the launch limit, health", async () => {
    const ui = await openView("owner");
    const frame = await waitForContent(ui, "service account issue");
    expect(frame).toContain("demo (Organization): 2 repositories");
    expect(frame).toContain(
      "configure: https://github.com/organizations/demo/settings/installations/41000001",
    );
    expect(frame).toMatch(/demo\/app {2}private {2}default branch main/);
    expect(frame).toContain("demo-owner (personal): no repositories");
    expect(frame).toContain("connected as demo-owner");
    expect(frame).toContain("Demo Bot (Demo, oauth): enabled, 15 launches per hour");
    expect(frame).toContain("⚠ the chat tool's service account is unhealthy");
    await pressKey(ui, "escape");
    await waitForContent(ui, (f) => !f.includes("service account issue"));
  });

  it("on a short terminal the movement keys scroll the view, End to its last line and Home back", async () => {
    const { h } = await listedOnReference({ columns: 140, rows: 16 }, { key: "owner" });
    await pressKey(h, "I");
    const top = await waitForContent(h, "demo (Organization): 2 repositories");
    expect(top).not.toContain("service account issue");
    await pressKey(h, "G");
    const end = await waitForContent(h, "service account issue");
    expect(end).not.toContain("demo (Organization): 2 repositories");
    await pressKey(h, "g");
    await waitForContent(
      h,
      (f) =>
        f.includes("demo (Organization): 2 repositories") && !f.includes("service account issue"),
    );
  });

  it("a member sees a disconnected token and may not edit: the role is named", async () => {
    const ui = await openView("member");
    const frame = await waitForContent(ui, "your code hosting token is disconnected");
    expect(frame).toContain("disconnected");
    await pressKey(ui, "e");
    await waitForContent(ui, "needs the role owner or admin; this key's owner is member");
    // Closed, the header still says it.
    await pressKey(ui, "escape");
    await waitForContent(ui, "⚠ token disconnected, chat tool unhealthy (I)");
  });

  it("an admin whose key lacks integrations:write is told the scope, not the role", async () => {
    const ui = await openView("legacy");
    await waitForContent(ui, "15 launches per hour");
    await pressKey(ui, "e");
    await waitForContent(ui, "needs integrations:write; the key's effective scopes lack it");
  });

  it("a key without integrations:read is told which scope it lacks", async () => {
    const { h } = await listedOnReference({ columns: 140, rows: 40 }, { key: "personal" });
    await pressKey(h, "I");
    await waitForContent(h, "effective scopes lack integrations:read");
  });

  it("an admin changes the launch limit after confirming; a limit outside 1–100 is refused", async () => {
    const ui = await openView("admin");
    await waitForContent(ui, "15 launches per hour");
    await pressKey(ui, "e");
    await waitForContent(ui, "Change the issue tracker's settings");
    await pressKey(ui, "backspace");
    await pressKey(ui, "backspace");
    await typeText(ui, "500");
    await pressKey(ui, "enter");
    await waitForContent(ui, "✗ Launches per hour must be a whole number from 1 to 100");
    for (let i = 0; i < 3; i++) await pressKey(ui, "backspace");
    await typeText(ui, "42");
    await pressKey(ui, "enter");
    const confirm = await waitForContent(ui, "Change the issue tracker — confirm");
    expect(confirm).toContain("After: 42 launches per hour, default repository demo/app");
    await pressKey(ui, "y");
    await waitForContent(ui, "issue tracker updated: 42 launches per hour");
    await waitForContent(ui, "Demo Bot (Demo, oauth): enabled, 42 launches per hour");
  });

  it("a narrow edit dialog wraps its text and its error whole, at words, with no leading space", async () => {
    const fx = await startReference({ key: "admin" });
    const h = mountOnFixture(fx, { columns: 60, rows: 40 });
    await waitForContent(h, "Sessions");
    await pressKey(h, "I");
    await waitForContent(h, "15 launches per hour");
    await pressKey(h, "e");
    await waitForContent(h, "Change the issue tracker's settings");
    await pressKey(h, "backspace");
    await pressKey(h, "backspace");
    await typeText(h, "500");
    await pressKey(h, "enter");
    const frame = await waitForContent(h, "✗ Launches per hour must be a whole number from");
    // The text inside the box's border and its one cell of padding, line by line.
    const inside = frame
      .split("\n")
      .map((l) => /[│║┃] (.*?)\s*[│║┃]\s*$/.exec(l)?.[1])
      .filter((l): l is string => l !== undefined);
    const at = inside.findIndex((l) => l.startsWith("✗ Launches per hour"));
    expect(inside[at]).toBe("✗ Launches per hour must be a whole number from 1 to");
    expect(inside[at + 1]).toBe("100 (launches per hour)");
    // The intro's sentence too: every line starts with a word, never the space it broke at.
    const intro = inside.findIndex((l) => l.startsWith("Only the fields below change;"));
    expect(intro).toBeGreaterThanOrEqual(0);
    expect(inside[intro + 1]).toMatch(/^\S/);
  });
});

describe("where git needs the integrations", () => {
  it("the clone form offers the repositories the app reaches, filtered as you type", async () => {
    const { id, h } = await listedOnReference({ columns: 140, rows: 40 }, { key: "owner" });
    await pressKey(h, "c");
    let frame = await waitForContent(h, "Repositories the code hosting app reaches");
    expect(frame).toMatch(/▸ demo\/app {2}private {2}default branch main/);
    expect(frame).toContain("demo/docs");
    await typeText(h, "do");
    await typeText(h, "cs");
    frame = await waitForContent(h, (f) => !f.includes("demo/app  private"));
    expect(frame).toMatch(/▸ demo\/docs {2}private {2}default branch main/);
    // Tab takes the suggestion, then Enter asks first, naming its default branch.
    await pressKey(h, "tab");
    await pressKey(h, "enter");
    frame = await waitForContent(h, "Clone — confirm");
    expect(frame).toContain("Clones demo/docs (its default branch, main)");
    expect(frame).toMatch(/branch\s+\(default branch main\)/);
    await pressKey(h, "y");
    await waitForContent(h, new RegExp(`✓ clone ${id}: cloned demo/docs`), 15_000);
  });

  it("a clone of a repository no installation reaches says so, with the configure URL", async () => {
    const fx = await startReference({ key: "owner" });
    const id = fx.ids[0] as string;
    // Wide enough for the whole failure on the status line.
    const h = mountOnFixture(fx, { columns: 400, rows: 40 });
    await waitForContent(h, id);
    await pressKey(h, "c");
    await typeText(h, "acme/other");
    await pressKey(h, "enter");
    await waitForContent(h, "Clone — confirm");
    await pressKey(h, "y");
    await waitForContent(
      h,
      "No installation of the code hosting app reaches acme/other: grant it access at https://github.com/organizations/demo/settings/installations/41000001",
      10_000,
    );
  });

  it("the pull-request form's base is the repository's default branch from the app", async () => {
    const { fx, id, h } = await listedOnReference({ columns: 160, rows: 40 }, { key: "owner" });
    fx.services.sessions.getState().patchSession(id, { repo: "demo/app", branch: "main" });
    await pressKey(h, "r");
    await waitForContent(h, "base defaults to main (the repository's");
    await typeText(h, "Fix it");
    await pressKey(h, "enter");
    await waitForContent(h, "⚠ main is the repository's default branch: a pull request from it");
  });
});
