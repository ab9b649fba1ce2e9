import { afterEach, describe, expect, it } from "vitest";
import { selectRecord } from "../../src/store/sessionsStore.js";
import type { GitApi } from "../../src/ui/model/services.js";
import {
  type AppHarness,
  listedOnReference,
  mountOnFixture,
  pressKey,
  startReference,
  typeText,
  unmountReference,
  waitForAbsence,
  waitForContent,
} from "../helpers/ui.js";

/** Git actions from the keyboard, against the reference service's real git workspaces. */

afterEach(unmountReference);

/** c, a repository, Enter, then the confirmation that the workspace will be replaced. */
async function submitClone(ui: AppHarness, id: string, repo: string): Promise<void> {
  await pressKey(ui, "c");
  await waitForContent(ui, `Clone a repository into ${id}`);
  await typeText(ui, repo);
  await pressKey(ui, "enter");
  const frame = await waitForContent(ui, "Clone — confirm");
  expect(frame).toContain("This replaces the session's workspace");
  await pressKey(ui, "y");
}

async function cloneFromDialog(ui: AppHarness, id: string): Promise<void> {
  await submitClone(ui, id, "demo/app");
  await waitForContent(
    ui,
    new RegExp(`✓ clone ${id}: cloned demo/app \\(branch main\\) at [0-9a-f]+`),
    15_000,
  );
}

describe("git actions", () => {
  it("with no session selected, a git key says to select one, as every session key does, and opens nothing", async () => {
    const fx = await startReference({ server: { sessionCount: 0 } });
    const h = mountOnFixture(fx, { columns: 160, rows: 30 });
    await waitForContent(h, "no sessions");
    for (const key of ["c", "p", "Z"]) {
      // Another message first, so each key's own is waited for.
      await pressKey(h, "ctrlR");
      await waitForContent(h, "Refreshing identity and sessions");
      await pressKey(h, key);
      const frame = await waitForContent(h, "Select a session first (list row or pane)");
      expect(frame).not.toContain("Clone a repository into");
      expect(frame).not.toContain("Push — confirm");
    }
  });

  it("clone asks first: declining sends nothing and keeps the workspace", async () => {
    const { fx, id, h } = await listedOnReference({ columns: 160, rows: 30 });
    await cloneFromDialog(h, id);
    await pressKey(h, "c");
    await typeText(h, "demo/docs");
    await pressKey(h, "enter");
    const frame = await waitForContent(h, "Clone — confirm");
    // The record says what is there now: the dialog names what would be lost.
    expect(frame.replace(/[│\s]+/g, " ")).toContain("(now a clone of demo/app, on main)");
    expect(frame).toMatch(/\[y\] clone/);
    await pressKey(h, "n");
    await waitForContent(h, "clone cancelled: nothing was sent");
    expect(fx.services.actions.getState().history.map((o) => o.kind)).toEqual(["clone"]);
  });

  it("the first clone's confirmation claims no clone the service does not report", async () => {
    const fx = await startReference();
    const id = fx.ids[0] as string;
    // The record names the repository the session works on, and says nothing is cloned.
    const record = selectRecord(fx.services.sessions.getState(), id) as Record<string, unknown>;
    expect(record.repo).toBeTruthy();
    expect(record.cloned).toBe(false);
    const h = mountOnFixture(fx, { columns: 160, rows: 30 });
    await waitForContent(h, id);
    await pressKey(h, "c");
    await waitForContent(h, `Clone a repository into ${id}`);
    await typeText(h, "demo/docs");
    await pressKey(h, "enter");
    const frame = await waitForContent(h, "Clone — confirm");
    expect(frame).not.toContain("now a clone of");
    expect(frame.replace(/[│\s]+/g, " ")).toContain("the service says nothing is cloned in it yet");
    await pressKey(h, "n");
    await waitForContent(h, "clone cancelled: nothing was sent");
  });

  it("the clone form offers the session's repository, in line with the other field; Enter takes it", async () => {
    const fx = await startReference();
    const id = fx.ids[0] as string;
    const repo = (selectRecord(fx.services.sessions.getState(), id) as Record<string, unknown>)
      .repo as string;
    const h = mountOnFixture(fx, { columns: 160, rows: 30 });
    await waitForContent(h, id);
    await pressKey(h, "c");
    const frame = await waitForContent(h, `${repo} (the session's repository)`);
    const lines = frame.split("\n");
    const url = lines.find((l) => l.includes("▸ Repository URL")) as string;
    const branch = lines.find((l) => l.includes("Branch (optional)")) as string;
    // The focused field's text starts in the same column as the next field's.
    expect(url.indexOf(repo)).toBe(branch.indexOf("default branch"));
    await pressKey(h, "enter");
    const confirm = await waitForContent(h, "Clone — confirm");
    expect(confirm).toContain(`Clones ${repo} into the session's workspace.`);
    await pressKey(h, "n");
    await waitForContent(h, "clone cancelled: nothing was sent");
  });

  it("an outcome older than the last message never comes back to the status line", async () => {
    const { id, h } = await listedOnReference({ columns: 160, rows: 30 });
    await cloneFromDialog(h, id);
    // A newer message takes the line...
    await pressKey(h, "/");
    await typeText(h, "zzz");
    await pressKey(h, "enter");
    await pressKey(h, "escape");
    await waitForContent(h, "Filters cleared");
    await waitForAbsence(h, "✓ clone");
    // ...and a key that clears it leaves the line empty, not the older outcome again.
    await pressKey(h, "j");
    await waitForAbsence(h, "Filters cleared");
    expect(h.frame()).not.toContain("✓ clone");
  });

  it("clone, then push: cancelling sends nothing, confirming pushes and shows the result", async () => {
    const fx = await startReference();
    const id = fx.ids[0] as string;
    const h = mountOnFixture(fx, { columns: 160, rows: 30 }, { initialSessions: [id] });
    await waitForContent(h, "● live ·");
    await cloneFromDialog(h, id);
    // git's own output arrives on the session's stream too.
    await waitForContent(h, "git clone");

    await pressKey(h, "p");
    let frame = await waitForContent(h, "Push — confirm");
    expect(frame).toMatch(/session\s+ses_\w+/);
    expect(frame).toMatch(/branch\s+main/);
    expect(frame).toContain("This changes the remote repository.");
    // main is the default branch: the confirmation says so, louder.
    expect(frame).toContain("⚠ main is the repository's default branch");
    await pressKey(h, "n");
    await waitForContent(h, "push cancelled: nothing was sent");
    expect(fx.services.actions.getState().history.map((o) => o.kind)).toEqual(["clone"]);

    await pressKey(h, "p");
    await waitForContent(h, "Push — confirm");
    await pressKey(h, "y");
    // The clone is what the remote has: git says so, and so does the result.
    frame = await waitForContent(
      h,
      `✓ push ${id}: nothing to push (Everything up-to-date)`,
      15_000,
    );
    expect(frame).not.toMatch(/pushed main/);
    const last = fx.services.actions.getState().last;
    expect(last?.result?.operation).toBe("push");
    expect(last?.output).toContain("Everything up-to-date");
    await waitForContent(h, "git push");
  });

  it("a push whose branch nobody knows (no record field, nothing cloned) says plainly it may land on main", async () => {
    const fx = await startReference();
    const id = fx.ids[0] as string;
    expect(fx.server.sessions()[0]?.branch).toBeNull();
    const h = mountOnFixture(fx, { columns: 160, rows: 30 });
    await waitForContent(h, id);
    await pressKey(h, "p");
    const frame = await waitForContent(h, "Push — confirm");
    expect(frame).toMatch(/branch\s+unknown: whatever is checked out \(may be main\)/);
    expect(frame).toContain("⚠ The branch is not known here: the service pushes whatever");
    expect(frame).not.toContain("(current branch)");
    await pressKey(h, "n");
    await waitForContent(h, "push cancelled: nothing was sent");
  });

  it("create a branch, push it, open a pull request: each confirmed first", async () => {
    const { fx, id, h } = await listedOnReference({ columns: 160, rows: 30 });
    await cloneFromDialog(h, id);

    await pressKey(h, "b");
    await waitForContent(h, "Create a branch");
    await pressKey(h, "enter");
    await waitForContent(h, "New branch is required");
    await typeText(h, "feature/retry");
    await pressKey(h, "enter");
    let frame = await waitForContent(h, "Create branch — confirm");
    expect(frame).toMatch(/branch\s+main → new branch feature\/retry/);
    await pressKey(h, "y");
    await waitForContent(h, `✓ branch ${id}: created branch feature/retry`, 15_000);

    await pressKey(h, "p");
    frame = await waitForContent(h, "Push — confirm");
    expect(frame).toMatch(/branch\s+feature\/retry/);
    expect(frame).not.toContain("default branch");
    await pressKey(h, "y");
    await waitForContent(h, `✓ push ${id}: pushed feature/retry`, 15_000);

    await pressKey(h, "r");
    await waitForContent(h, "Open a pull request");
    await typeText(h, "Retry the webhook");
    await pressKey(h, "enter");
    frame = await waitForContent(h, "Open pull request — confirm");
    expect(frame).toContain('feature/retry → main, titled "Retry the');
    await pressKey(h, "y");
    await waitForContent(
      h,
      "opened pull request #1: Retry the webhook https://git.invalid/demo/app/pull/1",
      15_000,
    );
    expect(fx.server.pullRequests()).toHaveLength(1);
  });

  it("shows the server's error verbatim when it refuses", async () => {
    const { id, h } = await listedOnReference({ columns: 160, rows: 30 });
    await submitClone(h, id, "nowhere/unknown");
    await waitForContent(h, `✗ clone ${id} failed: `);
    expect(h.frame()).toContain("Unknown repository");
  });

  it("never loses an error: the status line cuts it and says where it is whole (m)", async () => {
    const { fx, id, h } = await listedOnReference({ columns: 80, rows: 24 });
    // No workspace yet: the service refuses the push with a message and a hint.
    await pressKey(h, "p");
    await waitForContent(h, "Push — confirm");
    await pressKey(h, "y");
    let frame = await waitForContent(h, `✗ push ${id} failed: `, 15_000);
    const last = fx.services.actions.getState().last;
    const whole = `push ${id} failed: ${last?.message}${last?.error?.hint ? ` — ${last.error.hint}` : ""}`;
    expect(whole.length).toBeGreaterThan(80);
    const status = frame.split("\n").find((l) => l.includes(`✗ push ${id}`)) ?? "";
    expect(status).toContain("… (m: whole message)");

    await pressKey(h, "m");
    frame = await waitForContent(h, "Messages — ");
    // Every word of the error is on screen, in order, wrapped over as many lines as it needs.
    const shown = frame
      .split("\n")
      .map((l) => l.replace(/^[│ ]+(?:\d{2}:\d{2}:\d{2})? *[✗✓·⚠]? */, "").replace(/ *│$/, ""))
      .join(" ")
      .replace(/\s+/g, " ");
    expect(shown).toContain(whole.replace(/\s+/g, " "));
    expect(frame).toMatch(/\d{2}:\d{2}:\d{2} ✗ push/);
    // The notice the status line showed before is in the log too, older, below it.
    await pressKey(h, "escape");
    await waitForAbsence(h, "Messages — ");
  });

  it("still shows the server's 403 when the key lost a scope the UI thought it had", async () => {
    const fx = await startReference({ key: "readonly" });
    const id = fx.ids[0] as string;
    // As if the role changed after the UI loaded the key: the UI offers what the server refuses.
    const info = fx.services.identity.getState().keyInfo;
    if (!info) throw new Error("identity not loaded");
    fx.services.identity.setState({
      keyInfo: { ...info, effective_scopes: [...info.effective_scopes, "sessions:write"] },
    });
    const h = mountOnFixture(fx, { columns: 160, rows: 30 });
    await waitForContent(h, id);
    await submitClone(h, id, "demo/app");
    const frame = await waitForContent(h, `✗ clone ${id} failed: `);
    expect(frame).toContain("sessions:write");
  });

  it("shows a spinner with elapsed time while running, and q asks before quitting", async () => {
    const fx = await startReference();
    const id = fx.ids[0] as string;
    const client = fx.client;
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    // The real client, its clone held back until the test lets it go.
    const api: GitApi & typeof fx.services.api = {
      verify: (s) => client.verify(s),
      me: (s) => client.me(s),
      git: async (sid, action, signal) => {
        if (action.kind === "clone") await gate;
        return client.git(sid, action, signal);
      },
    };
    const h = mountOnFixture(fx, { columns: 160, rows: 30 }, { services: { ...fx.services, api } });
    await waitForContent(h, id);
    await submitClone(h, id, "demo/app");
    await waitForContent(h, new RegExp(`[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] clone on ${id}… \\d+\\.\\ds`));
    await pressKey(h, "q");
    await waitForContent(h, "Quit while a git action runs?");
    expect(h.exits()).toBe(0);
    // n: the question goes, the action goes on, the app stays.
    await pressKey(h, "n");
    await waitForContent(h, (f) => f.includes("clone on") && !f.includes("Quit while"));
    expect(h.exits()).toBe(0);
    // y: the app exits, the action still running.
    await pressKey(h, "q");
    await waitForContent(h, "Quit while a git action runs?");
    await pressKey(h, "y");
    await waitForContent(h, () => h.exits() === 1);
    release();
    await waitForContent(h, `✓ clone ${id}`, 15_000);
    expect(h.exits()).toBe(1);
  });

  it("with no git action running, q quits at once without asking", async () => {
    const { h } = await listedOnReference({ columns: 160, rows: 30 });
    await pressKey(h, "q");
    await waitForContent(h, () => h.exits() === 1);
    expect(h.frame()).not.toContain("Quit while");
  });
});
