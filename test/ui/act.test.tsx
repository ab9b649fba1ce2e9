import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/apiClient.js";
import { runCli, tempConfigHome } from "../helpers/cli.js";
import {
  type AppHarness,
  type FixtureOptions,
  mountOnReference,
  pressKey,
  typeText,
  type UiFixture,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * Acting on a session from the UI against the reference service: the prompt box (typing, a
 * new line, a paste, recall, sending under a busy pane), the answer streaming into the pane,
 * the approve flow with its note and confirmation, the role and scope gates, 409 and 404 on
 * resolve, a prompt and a git action on a paused session, and pause from a key.
 */

afterEach(unmountReference);

const SIZE = { columns: 160, rows: 40 };

async function setup(opts: FixtureOptions = {}, stepMs = 30): Promise<[UiFixture, AppHarness]> {
  const { fx, h } = await mountOnReference(SIZE, {
    ...opts,
    server: { promptStepMs: stepMs, ...opts.server },
  });
  return [fx, h];
}

/** The first active session, opened in a pane and focused. */
async function openActive(f: UiFixture, a: AppHarness): Promise<string> {
  const id = f.server.sessions().find((s) => s.state === "active")?.id as string;
  const row = f.ids.indexOf(id);
  await waitForContent(a, id);
  for (let i = 0; i < row; i++) await pressKey(a, "down");
  await pressKey(a, "enter");
  await waitForContent(a, ` 1 ${id}`);
  await pressKey(a, "1");
  await waitForContent(a, "z zoom");
  return id;
}

describe("the prompt box", () => {
  it("types, adds a new line, keeps a paste's line breaks, sends with Enter, and the answer streams into the pane", async () => {
    const [f, a] = await setup();
    const id = await openActive(f, a);
    await pressKey(a, "R");
    await waitForContent(a, "reply › ");
    await typeText(a, "Fix the build");
    await pressKey(a, "\n"); // Ctrl-J
    await pressKey(a, "then run\rthe tests"); // a paste with a line break
    const frame = await waitForContent(a, "the tests▏");
    expect(frame).toContain("reply › Fix the build");
    expect(frame).toContain("then run");
    expect(f.server.promptRunning(id)).toBe(false);
    await pressKey(a, "enter");
    await waitForContent(a, "› you: Fix the build …");
    const done = await waitForContent(a, "✓ answer done", 10_000);
    expect(done).toContain('I\'ll look into "Fix the build then run the tests".');
    expect(done).toMatch(/\[tool\] read_file src\/index\.ts/);
    // Up recalls this session's earlier prompt.
    await pressKey(a, "R");
    await pressKey(a, "up");
    await waitForContent(a, "then run");
    await pressKey(a, "escape");
  });

  it("a prompt while one runs (sent elsewhere) is queued, not lost; C cancels the running one", async () => {
    // The running prompt waits on a clock no test moves: it runs until C cancels it, however
    // long typing takes on a busy machine.
    const [f, a] = await setup({ server: { clock: "manual", promptSteps: "clock" } });
    const id = await openActive(f, a);
    const other = new ApiClient({ baseUrl: f.server.url, apiKey: f.server.key("owner") });
    const running = other.sendPrompt(id, "long job", { onItem: () => {} });
    await expect.poll(() => f.server.promptRunning(id)).toBe(true);
    await pressKey(a, "R");
    await typeText(a, "hello");
    await pressKey(a, "enter");
    await waitForContent(a, "a prompt is running; yours is queued (1 waiting");
    await waitForContent(a, "queued 1: next › hello");
    await pressKey(a, "C");
    await waitForContent(a, "Cancelled the running prompt");
    expect((await running).kind).toBe("error");
  });

  it("on a paused session it offers to resume first, then sends", async () => {
    const [f, a] = await setup();
    const id = f.server.sessions().find((s) => s.state === "active")?.id as string;
    f.server.setState(id, "paused");
    await f.services.sessions.getState().refreshLive();
    await openActive2(f, a, id);
    await pressKey(a, "R");
    await typeText(a, "wake up");
    await pressKey(a, "enter");
    await waitForContent(a, "Resume, then send — confirm");
    await pressKey(a, "y");
    await waitForContent(a, "✓ answer done", 10_000);
    expect(f.server.sessions().find((s) => s.id === id)?.state).toBe("active");
  });
});

async function openActive2(_f: UiFixture, a: AppHarness, id: string): Promise<void> {
  await waitForContent(a, id);
  // The list's order follows the records: the filter finds the row wherever it is.
  await pressKey(a, "/");
  await typeText(a, id);
  await pressKey(a, "enter");
  await pressKey(a, "enter");
  await waitForContent(a, ` 1 ${id}`);
  await pressKey(a, "1");
  await waitForContent(a, "z zoom");
}

describe("approvals in the pane", () => {
  it("shows a pending approval; Y asks for a note, names what is approved, and the pane says what was decided", async () => {
    const [f, a] = await setup();
    const id = f.server.sessions().find((s) => s.state === "active")?.id as string;
    const ap = f.server.addApproval(id, { kind: "deploy", message: "Deploy the landing page?" });
    await openActive2(f, a, id);
    await waitForContent(a, "⚑ needs you: deploy: Deploy the landing page?");
    await waitForContent(a, `${ap.id} — Y approve · X reject`);
    await pressKey(a, "Y");
    await waitForContent(a, `Approve in ${id}`);
    await typeText(a, "ship it");
    await pressKey(a, "enter");
    const confirm = await waitForContent(a, "Approve — confirm");
    expect(confirm).toContain(`Approves deploy: Deploy the landing page?`);
    expect(confirm).toContain("Note: ship it");
    await pressKey(a, "y");
    await waitForContent(
      a,
      new RegExp(`${ap.id}: approved by usr_\\w+ at \\S+ \\(note: ship it\\)`),
    );
    await waitForContent(a, (fr) => !fr.includes("⚑ needs you"));
    expect(f.server.approvals(id)[0]?.status).toBe("approved");
  });

  it("an approval needing admin is shown disabled to a member, with the reason", async () => {
    const [f, a] = await setup({ key: "member" });
    const id = f.server.sessions().find((s) => s.state === "active")?.id as string;
    f.server.addApproval(id, { required_role: "admin", message: "Deploy?" });
    await openActive2(f, a, id);
    await waitForContent(a, "Y/X disabled: needs the admin role (yours is member)");
    await pressKey(a, "Y");
    await waitForContent(a, "approve is disabled: this approval needs the admin role");
    expect(f.server.approvals(id)[0]?.status).toBe("pending");
  });

  it("a key without sessions:write is told the scope; without sessions:prompt the reply key is", async () => {
    const [f, a] = await setup({ key: "readonly" });
    const id = f.server.sessions().find((s) => s.state === "active")?.id as string;
    f.server.addApproval(id, { message: "Deploy?" });
    await openActive2(f, a, id);
    await waitForContent(
      a,
      "disabled: approve is disabled: the key's effective scopes lack sessions:write",
    );
    await pressKey(a, "Z");
    await waitForContent(a, "pause is disabled: the key's effective scopes lack sessions:write");
  });

  it("409: resolved elsewhere meanwhile says who resolved it and when; 404 says it is gone", async () => {
    const [f, a] = await setup();
    const id = f.server.sessions().find((s) => s.state === "active")?.id as string;
    const ap = f.server.addApproval(id, { message: "Deploy?" });
    await openActive2(f, a, id);
    await waitForContent(a, "⚑ needs you");
    const other = new ApiClient({ baseUrl: f.server.url, apiKey: f.server.key("admin") });
    await other.resolveApproval(id, ap.id, "reject", "not today");
    await pressKey(a, "Y");
    await pressKey(a, "enter");
    await pressKey(a, "y");
    await waitForContent(
      a,
      new RegExp(
        `${ap.id} was already rejected by usr_\\w+ at \\S+ \\(note: not today\\); nothing was approved`,
      ),
    );

    const gone = f.server.addApproval(id, { message: "Again?" });
    await f.services.approvals?.read(id);
    await waitForContent(a, gone.id);
    f.server.faults.set({ statusFor: { path: /\/resolve$/, status: 404, count: 1 } });
    await pressKey(a, "X");
    await pressKey(a, "enter");
    await pressKey(a, "y");
    await waitForContent(a, `${gone.id} is gone`);
  });
});

describe("several pending approvals", () => {
  it("the pane, A, the queue and headless approvals and attention show the same ones; Y chooses the second, sees each whole, and decides only it", async () => {
    const [f, a] = await setup();
    const id = f.server.sessions().find((s) => s.state === "active")?.id as string;
    const first = f.server.addApproval(id, {
      kind: "deploy",
      message: "Deploy the landing page to production?",
      created_at: new Date(Date.now() - 60_000).toISOString(),
    });
    const second = f.server.addApproval(id, {
      kind: "migrate",
      message: "Run the database migration 0042_add_orgs against the staging database now?",
    });
    await openActive2(f, a, id);
    // The pane: both, oldest first, each with its id and the keys.
    const pane = await waitForContent(a, `${second.id} — Y approve · X reject`);
    expect(pane).toContain(`${first.id} — Y approve · X reject`);
    expect(pane.indexOf(first.id)).toBeLessThan(pane.indexOf(second.id));

    // The queue: one item for the session, headed by the approval Y offers first.
    const item = f.services.attention.getState().items.filter((i) => i.sessionId === id);
    expect(item.map((i) => [i.reason, i.approval?.id, i.detail])).toEqual([
      ["approval", first.id, "Deploy the landing page to production? (+1 more)"],
    ]);
    await pressKey(a, "A");
    await waitForContent(a, "awaiting approval: Deploy the landing page to production? (+1 more)");
    await pressKey(a, "escape");

    // The book read the approvals of the one session that awaits them, and no other.
    expect([...(f.services.approvals?.getState().bySession.keys() ?? [])]).toEqual([id]);

    // Headless: the same two, the same first.
    const cfg = tempConfigHome();
    try {
      const env = {
        XDG_CONFIG_HOME: cfg.dir,
        AGENT_SESSIONS_BASE_URL: f.server.url,
        AGENT_SESSIONS_API_KEY: f.server.key("owner"),
        AGENT_SESSIONS_MAX_ATTEMPTS: "1",
      };
      const listed = await runCli(["approvals", "--json"], { env });
      expect(listed.code, listed.stderr).toBe(0);
      const rows = JSON.parse(listed.stdout) as { id: string; session_id: string }[];
      expect(rows.map((r) => [r.session_id, r.id])).toEqual([
        [id, first.id],
        [id, second.id],
      ]);
      const att = await runCli(["attention", "--json"], { env });
      const doc = JSON.parse(att.stdout) as {
        items: { session_id: string; approval: { id: string } | null }[];
      };
      expect(doc.items.filter((i) => i.session_id === id).map((i) => i.approval?.id)).toEqual([
        first.id,
      ]);
    } finally {
      cfg.cleanup();
    }

    // Y: both listed whole, the first picked; ↓ picks the second.
    await pressKey(a, "Y");
    let dialog = await waitForContent(a, "2 approvals are pending: ↑/↓ picks the one to decide.");
    expect(dialog).toContain(`▸ ${first.id}: deploy: Deploy the landing page to production?`);
    expect(dialog).toContain("staging database now?");
    await pressKey(a, "down");
    dialog = await waitForContent(a, `▸ ${second.id}: migrate: Run the database migration`);
    await typeText(a, "go");
    await pressKey(a, "enter");
    const confirm = await waitForContent(a, "Approve — confirm");
    expect(confirm).toContain(`(${second.id})`);
    await pressKey(a, "y");
    await waitForContent(a, new RegExp(`${second.id}: approved by usr_\\w+`));
    expect(f.server.approvals(id).map((x) => [x.id, x.status])).toEqual([
      [second.id, "approved"],
      [first.id, "pending"],
    ]);
    // The pane keeps the one still pending, and only it.
    await waitForContent(
      a,
      (fr) => !fr.includes(`${second.id} — Y`) && fr.includes(`${first.id} — Y approve · X reject`),
    );
  });
});

describe("an approval that appears later", () => {
  it("is read again when the session's record says it awaits approval", async () => {
    const [f, a] = await setup();
    const id = await openActive(f, a);
    await waitForContent(a, "z zoom");
    const ap = f.server.addApproval(id, { kind: "deploy", message: "Now?" });
    expect(a.frame()).not.toContain("⚑ needs you");
    // The documented field; SessionSchema keeps unknown fields as sent.
    f.services.sessions
      .getState()
      .patchSession(id, { agent_status: "awaiting_approval" } as Record<string, unknown>);
    await waitForContent(a, `⚑ needs you: deploy: Now?`);
    await waitForContent(a, ap.id);
  });
});

describe("the lifecycle keys", () => {
  it("resume on a running session and pause on a paused one are disabled, saying why, in the message line and in ?", async () => {
    const [f, a] = await setup();
    const id = await openActive(f, a);
    await pressKey(a, "U");
    await waitForContent(
      a,
      "resume is disabled: the session is active; resume applies to paused sessions",
    );
    expect(a.frame()).not.toContain("Resume — confirm");
    await pressKey(a, "?");
    await waitForContent(a, "Keys —");
    // Paged through (bounded) until the lifecycle keys show.
    const note = "(disabled: the session is active; resume applies";
    for (let i = 0; i < 12 && !a.frame().includes(note); i++) await pressKey(a, "pageDown");
    const help = await waitForContent(a, note);
    expect(help).not.toMatch(/pause the session \(asks first\) \(disabled/);
    await pressKey(a, "escape");
    f.server.setState(id, "paused");
    await f.services.sessions.getState().refreshSession(id);
    await pressKey(a, "Z");
    await waitForContent(
      a,
      "pause is disabled: the session is paused; pause applies to running or active sessions",
    );
    expect(f.server.sessions().find((s) => s.id === id)?.state).toBe("paused");
    await pressKey(a, "U");
    await waitForContent(a, "Resume — confirm");
    await pressKey(a, "n");
  });

  it("Z asks, then pauses; a git action on the paused session offers to resume it first", async () => {
    const [f, a] = await setup();
    const id = await openActive(f, a);
    await pressKey(a, "Z");
    await waitForContent(a, "Pause — confirm");
    await pressKey(a, "y");
    await waitForContent(a, "Paused: Session paused successfully");
    expect(f.server.sessions().find((s) => s.id === id)?.state).toBe("paused");
    await f.services.sessions.getState().refreshSession(id);
    await pressKey(a, "p");
    const c = await waitForContent(a, "Push — confirm");
    expect(c).toContain("The session is paused: it is resumed first");
    await pressKey(a, "n");
  });
});
