import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createFileJournal } from "../../src/cli/journal/fileJournal.js";
import { journalCleaner } from "../../src/cli/journal/journalSetup.js";
import { buildServices, type ServicesHandle } from "../../src/cli/tui/buildServices.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { App } from "../../src/ui/App.js";
import { closeAfterTest, stopAfterTest, tempFolder } from "../helpers/stopAfterTest.js";
import { pinTimeZone } from "../helpers/timeZone.js";
import {
  mountOnFixture,
  mountTree,
  startReference,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * What a pane shows of history: the journal's events, the gap marker for the time nobody
 * watched, the server's history, the divider where live events begin; the header saying the
 * journal is off when it cannot write; the session's state before its first event.
 */

// The gap marker shows local times; pin them.
pinTimeZone("UTC");

afterEach(unmountReference);

const tempDir = () => tempFolder("as-ui-journal-");

async function reference(historyOnOpen?: number): Promise<ReferenceServer> {
  const server = await startServer({
    paceMs: 0,
    seed: 7,
    heartbeatMs: 60_000,
    sessionCount: 3,
    ...(historyOnOpen !== undefined ? { historyOnOpen } : {}),
  });
  return closeAfterTest(server);
}

/** buildServices, disposed after the test. */
function build(...args: Parameters<typeof buildServices>): ServicesHandle {
  const handle = buildServices(...args);
  stopAfterTest(() => handle.dispose());
  return handle;
}

function mount(s: ReferenceServer, services: ServicesHandle["services"], id: string) {
  return mountTree(
    <App
      services={services}
      profile="work"
      baseUrl={s.url}
      options={{ bell: false }}
      initialSessions={[id]}
      onExit={() => {}}
    />,
    { columns: 140, rows: 30 },
  );
}

describe("a pane with history", () => {
  it("shows the journal, the gap marker, the server's history and the divider, in that order", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    const root = tempDir();
    mkdirSync(join(root, "svc"), { recursive: true, mode: 0o700 });
    const line = (n: number, at: string) =>
      JSON.stringify({
        session_id: id,
        event: "process_output",
        id: `old-${n}`,
        data: { text: `seen yesterday ${n}\n` },
        received_at: at,
      });
    writeFileSync(
      join(root, "svc", `${id}.ndjson`),
      `${line(1, "2024-05-01T10:11:00.000Z")}\n${line(2, "2024-05-01T10:12:00.000Z")}\n`,
    );
    s.emit(id, "process_output", { text: "while away 1\n" });
    s.emit(id, "process_output", { text: "while away 2\n" });
    const journal = createFileJournal({ dir: join(root, "svc"), root, clean: journalCleaner });
    const handle = build(
      { baseUrl: s.url, apiKey: s.key("owner") },
      { journal, journalStatus: journal.status },
    );
    const ui = mount(s, handle.services, id);
    const frame = await waitForContent(ui, "live from here");
    const rows = frame.split("\n");
    const at = (text: string) => rows.findIndex((r) => r.includes(text));
    expect(at("seen yesterday 1")).toBeLessThan(at("seen yesterday 2"));
    expect(at("seen yesterday 2")).toBeLessThan(at("┄┄ not watched from 2024-05-01 10:12 to"));
    expect(at("┄┄ not watched from")).toBeLessThan(at("while away 1"));
    expect(at("while away 2")).toBeLessThan(at("── ▼ live from here"));
    expect(frame).toContain(
      "── ▼ live from here · above: 2 from the journal, 2 from the server ──",
    );
    // The stream has no history: what is sent once it is connected shows below the divider.
    await vi.waitFor(
      () => expect(handle.services.streams.getState().sessions[id]?.status.state).toBe("live"),
      { timeout: 5000, interval: 10 },
    );
    s.emit(id, "process_output", { text: "now live\n" });
    const after = await waitForContent(ui, "now live");
    const r2 = after.split("\n");
    expect(r2.findIndex((r) => r.includes("now live"))).toBeGreaterThan(
      r2.findIndex((r) => r.includes("live from here")),
    );
  });

  it("shows a command's output from the history as the text it printed, in each shape the demo sends", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    s.emit(id, "process_output", { content: " ✓ test/config.test.ts (8 tests) 11ms\n" });
    s.emit(id, "process_output", { stream: "stderr", data: " × returns 404 for unknown ids\n" });
    s.emit(id, "process_output", { stream: "stdout", text: " Test Files  3 passed (3)\n" });
    const handle = build({ baseUrl: s.url, apiKey: s.key("owner") });
    const ui = mount(s, handle.services, id);
    const frame = await waitForContent(ui, "live from here");
    expect(frame).toContain("✓ test/config.test.ts (8 tests) 11ms");
    expect(frame).toContain("× returns 404 for unknown ids");
    expect(frame).toContain("Test Files  3 passed (3)");
    expect(frame).not.toContain('{"content"');
    expect(frame).not.toContain('"data":');
    // Live, the same event reads the same.
    s.emit(id, "process_output", { content: " ✓ test/retry.test.ts (5 tests) 31ms\n" });
    const after = await waitForContent(ui, "✓ test/retry.test.ts (5 tests) 31ms");
    expect(after).not.toContain('{"content"');
  });

  it("says in the header that the journal is off when it cannot write, and works on", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    const root = tempDir();
    const blocked = join(root, "a-file");
    writeFileSync(blocked, "");
    const journal = createFileJournal({
      dir: join(blocked, "svc"),
      root: blocked,
      clean: journalCleaner,
    });
    const handle = build(
      { baseUrl: s.url, apiKey: s.key("owner") },
      { journal, journalStatus: journal.status },
    );
    const ui = mount(s, handle.services, id);
    await waitForContent(ui, "⚠ journal off: not a folder (ENOTDIR)");
    s.emit(id, "process_output", { text: "still streaming\n" });
    await waitForContent(ui, "still streaming");
  });

  it("shows the session's state in the pane title before its first event", async () => {
    const fx = await startReference({ pageSize: 1, server: { historyOnOpen: 0 } });
    // The last session is not on the first page, and has sent no event.
    const id = fx.ids.at(-1) as string;
    fx.server.setState(id, "paused");
    // Its history (which holds that state change) is not served, so nothing but the record
    // can have drawn the title: the check cannot race the history's arrival.
    fx.server.faults.set({
      statusFor: { path: /\/history$/, status: 404, count: Number.POSITIVE_INFINITY },
    });
    const ui = mountOnFixture(fx, { columns: 140, rows: 30 }, { initialSessions: [id] });
    const frame = await waitForContent(ui, new RegExp(`1 ${id} ⏸ paused`));
    expect(frame).toContain("waiting for events…");
    expect(frame).not.toContain("from the server");
  });

  it("a key with sessions:read only: the history, one plain notice, the record's changes", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    s.emit(id, "prompt_progress", { type: "user", content: "summarise the diff" });
    s.emit(id, "process_output", { text: "2 files changed\n" });
    const handle = build({ baseUrl: s.url, apiKey: s.key("listonly") }, { recordPollMs: 50 });
    const ui = mount(s, handle.services, id);
    const frame = await waitForContent(ui, "live events need sessions:prompt");
    expect(frame).toContain("[user] summarise the diff");
    expect(frame).toContain("2 files changed");
    expect(frame).not.toContain("Insufficient scope");
    s.setState(id, "paused");
    const after = await waitForContent(ui, "→ paused");
    // Said once: in the pane's lines (the title may carry it too).
    const lines = after.split("\n").filter((l) => l.includes("stream stopped: live events need"));
    expect(lines).toHaveLength(1);
    expect(after).not.toContain("Insufficient scope");
  });
});
