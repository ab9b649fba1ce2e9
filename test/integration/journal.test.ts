import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { createFileJournal, type FileJournal } from "../../src/cli/journal/fileJournal.js";
import { journalCleaner } from "../../src/cli/journal/journalSetup.js";
import { registerSecret } from "../../src/cli/output.js";
import { ApiClient } from "../../src/client/apiClient.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { StreamsController } from "../../src/store/streams/streamsController.js";
import { createStreamsStore, type StreamsStore } from "../../src/store/streams/streamsStore.js";
import { type ScriptedServer, startScriptedServer } from "../helpers/scriptedHttpServer.js";
import { stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";
import { waitFor } from "./serverTestUtils.js";

/**
 * The local journal: what a pane received is kept per session on disk and shown first the
 * next time, without repeating what the server sends again, with a marker for the time
 * nobody watched. Real files in a temp folder, real loopback servers.
 */

afterEach(stopStarted);

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "as-journal-"));
  stopAfterTest(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A server that sends a new subscriber its recent events on the stream (`serve --history`). */
async function reference(historyOnOpen = 200): Promise<ReferenceServer> {
  const s = await startServer({ paceMs: 0, seed: 21, heartbeatMs: 60_000, historyOnOpen });
  stopAfterTest(() => s.close());
  return s;
}

interface Run {
  store: StreamsStore;
  controller: StreamsController;
  journal: FileJournal;
  /** Close the streams and write the journal, as quitting the UI does. */
  quit(): Promise<void>;
}

/** One run of the client: store, controller and a journal in `root`. */
function run(
  baseUrl: string,
  apiKey: string,
  root: string,
  opts: {
    maxSessionBytes?: number;
    maxTotalBytes?: number;
    capacity?: number;
    /** Read the documented history endpoint on open. */
    historyEndpoint?: boolean;
  } = {},
): Run {
  const agent = new Agent();
  const api = new ApiClient({ baseUrl, apiKey, dispatcher: agent });
  const store = createStreamsStore({ capacity: opts.capacity ?? 5000, flushMs: 5 });
  const journal = createFileJournal({
    dir: join(root, "svc"),
    root,
    clean: journalCleaner,
    flushMs: 10,
    ...(opts.maxSessionBytes !== undefined ? { maxSessionBytes: opts.maxSessionBytes } : {}),
    ...(opts.maxTotalBytes !== undefined ? { maxTotalBytes: opts.maxTotalBytes } : {}),
  });
  const controller = new StreamsController({
    config: { baseUrl, apiKey, dispatcher: agent },
    store,
    history: opts.capacity ?? 5000,
    journal,
    ...(opts.historyEndpoint ? { fetchHistory: (id: string) => api.sessionHistory(id) } : {}),
    subscribeOptions: { backoffBaseMs: 10, maxAttempts: 3 },
  });
  let done = false;
  const quit = async () => {
    if (done) return;
    done = true;
    await controller.closeAll();
    await journal.dispose();
    store.getState().dispose();
    await agent.close();
  };
  stopAfterTest(quit);
  return { store, controller, journal, quit };
}

function entries(store: StreamsStore, id: string) {
  return store.getState().sessions[id]?.timeline.toArray() ?? [];
}

function shown(store: StreamsStore, id: string): string[] {
  return entries(store, id).map((e) => `${e.kind}: ${e.text}`);
}

async function opened(r: Run, id: string): Promise<string[]> {
  r.controller.openStream(id);
  await waitFor(() => entries(r.store, id).some((e) => e.kind === "divider"), 5_000, "divider");
  return shown(r.store, id);
}

/** Open a pane on a session with nothing to show yet: wait until it is live. */
async function live(r: Run, id: string): Promise<void> {
  r.controller.openStream(id);
  await waitFor(() => r.store.getState().sessions[id]?.status.state === "live", 5_000, "live");
}

function journalLines(root: string, file: string): Record<string, unknown>[] {
  return readFileSync(join(root, "svc", file), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const output = (from: number, to: number, word = "line") =>
  Array.from({ length: to - from + 1 }, (_, i) => `output: ${word} ${from + i}`);

describe("journal: written, read back after a restart, without duplicates", () => {
  it("shows what was seen before, a gap marker, then only what is new", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    const key = s.key("member");
    const root = tempDir();
    for (let i = 1; i <= 5; i++) s.emit(id, "process_output", { text: `line ${i}\n` });

    const first = run(s.url, key, root);
    await opened(first, id);
    s.emit(id, "process_output", { text: "line 6\n" });
    s.emit(id, "process_output", { text: "line 7\n" });
    await waitFor(() => shown(first.store, id).includes("output: line 7"), 5_000, "live events");
    await first.quit();

    // On disk: owner-only folder and file, one line per event, then the closing heartbeat.
    const dir = join(root, "svc");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, `${id}.ndjson`)).mode & 0o777).toBe(0o600);
    const lines = journalLines(root, `${id}.ndjson`);
    expect(lines.map((l) => l.event)).toEqual([...Array(7).fill("process_output"), "heartbeat"]);
    expect(lines[0]).toMatchObject({ session_id: id, id: "1", data: { text: "line 1\n" } });
    expect(typeof lines[0]?.received_at).toBe("string");

    // Nobody watches while three more events happen; then the client starts again.
    for (let i = 8; i <= 10; i++) s.emit(id, "process_output", { text: `line ${i}\n` });
    const second = run(s.url, key, root);
    const t = await opened(second, id);
    const gap = t.findIndex((x) => x.startsWith("unwatched: "));
    expect(t.slice(0, gap)).toEqual(output(1, 7));
    expect(t[gap]).toMatch(/^unwatched: not watched from \d\d:\d\d(:\d\d)? to \d\d:\d\d(:\d\d)?$/);
    expect(t.slice(gap + 1, -1)).toEqual(output(8, 10));
    expect(t.at(-1)).toBe(
      "divider: live from here · above: 7 from the journal, 3 from the server, 7 repeats of the journal skipped",
    );
  });

  it("spots repeats of id-less events by their content, each journal event once", async () => {
    const scripted: ScriptedServer = await startScriptedServer();
    stopAfterTest(() => scripted.close());
    const item = (text: string, ts: number) =>
      `event: process_output\ndata: ${JSON.stringify({ text, ts })}\n\n`;
    const head = (res: ServerResponse) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
    };
    // First run: A, B, B (the same line twice, really). Second run's history: B, B, B, C.
    scripted.reply((_q, res) => {
      head(res);
      res.write(item("A", 1) + item("B", 2) + item("B", 2));
      res.write(": history-end\n\n");
    });
    const root = tempDir();
    const first = run(scripted.url, "k".repeat(20), root);
    await opened(first, "ses_q");
    await first.quit();
    scripted.fallback((_q, res) => {
      head(res);
      res.write(item("B", 2) + item("B", 2) + item("B", 2) + item("C", 3));
      res.write(": history-end\n\n");
    });
    const second = run(scripted.url, "k".repeat(20), root);
    const t = await opened(second, "ses_q");
    expect(t.filter((x) => x.startsWith("output"))).toEqual([
      "output: A",
      "output: B",
      "output: B",
      "output: B",
      "output: C",
    ]);
    expect(t.at(-1)).toContain("2 repeats of the journal skipped");
  });
});

describe("journal: beside the stream's own loss accounting", () => {
  /** A connection of the second run ends after one more event; the next one is plain. */
  async function dropOnce(s: ReferenceServer, r: Run, id: string, sent: number, text: string) {
    const sub = r.controller.subscription(id);
    s.faults.set({ dropAfter: sent + 1 });
    s.emit(id, "process_output", { text });
    s.faults.set({ dropAfter: null });
    await waitFor(() => (sub?.stats.reconnects ?? 0) >= 1, 5_000, "the reconnect");
    await waitFor(() => sub?.status.state === "live", 5_000, "live again");
  }

  it("skips the journal's repeats on open, and drops by id what a replaying server sends again", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    const key = s.key("member");
    const root = tempDir();
    for (let i = 1; i <= 3; i++) s.emit(id, "process_output", { text: `line ${i}\n` });
    const first = run(s.url, key, root);
    await opened(first, id);
    await first.quit();

    s.emit(id, "process_output", { text: "line 4\n" });
    const second = run(s.url, key, root);
    const t = await opened(second, id);
    expect(t.filter((x) => x.startsWith("output"))).toEqual(output(1, 4));
    expect(t.at(-1)).toContain("3 repeats of the journal skipped");

    // A server that ignores Last-Event-ID sends everything again on the reconnect.
    s.faults.set({ ignoreLastEventId: true });
    await dropOnce(s, second, id, 4, "line 5\n");
    s.emit(id, "process_output", { text: "line 6\n" });
    await waitFor(() => shown(second.store, id).includes("output: line 6"), 5_000, "line 6");
    const after = shown(second.store, id);
    expect(after.filter((x) => x.startsWith("output"))).toEqual(output(1, 6));
    expect(after).toContain("notice: dropped 5 replayed events already shown");
    expect(second.store.getState().sessions[id]?.duplicates).toBe(5);
    // What the journal keeps is each event once, too.
    await second.quit();
    const stored = journalLines(root, `${id}.ndjson`).filter((l) => l.event !== "heartbeat");
    expect(stored.map((l) => l.id)).toEqual(["1", "2", "3", "4", "5", "6"]);
  });

  it("a restarted service numbering from 1 again: its history is new events, none skipped", async () => {
    const before = await reference();
    const id = before.sessionIds()[0] as string;
    const root = tempDir();
    for (let i = 1; i <= 3; i++) before.emit(id, "process_output", { text: `old ${i}\n` });
    const first = run(before.url, before.key("member"), root);
    await opened(first, id);
    await first.quit();
    await before.close();

    // The same session on a service that lost its events: ids 1, 2, 3 again, other events.
    const after = await reference();
    expect(after.sessionIds()[0]).toBe(id);
    for (let i = 1; i <= 3; i++) after.emit(id, "process_output", { text: `new ${i}\n` });
    const second = run(after.url, after.key("member"), root);
    const t = await opened(second, id);
    expect(t.filter((x) => x.startsWith("output"))).toEqual([
      ...output(1, 3, "old"),
      ...output(1, 3, "new"),
    ]);
    expect(t.join("\n")).not.toContain("repeats of the journal skipped");
    await second.quit();
    const stored = journalLines(root, `${id}.ndjson`).filter((l) => l.event !== "heartbeat");
    expect(stored.map((l) => `${l.id} ${(l.data as { text: string }).text.trim()}`)).toEqual([
      "1 old 1",
      "2 old 2",
      "3 old 3",
      "1 new 1",
      "2 new 2",
      "3 new 3",
    ]);
  });

  it("shows the time nobody watched and a reconnect's gap each with its own marker", async () => {
    // The documented history endpoint, a stream without history: the journal's events that
    // the history repeats are skipped by the one same-event rule.
    const s = await reference(0);
    const id = s.sessionIds()[0] as string;
    const key = s.key("member");
    const root = tempDir();
    s.faults.set({ noEventIds: true });
    for (let i = 1; i <= 3; i++) s.emit(id, "process_output", { text: `line ${i}\n` });
    const first = run(s.url, key, root, { historyEndpoint: true });
    await opened(first, id);
    await first.quit();

    s.emit(id, "process_output", { text: "line 4\n" });
    const second = run(s.url, key, root, { historyEndpoint: true });
    await opened(second, id);
    await dropOnce(s, second, id, 0, "line 5\n");
    s.emit(id, "process_output", { text: "line 6\n" });
    await waitFor(() => shown(second.store, id).includes("output: line 6"), 5_000, "line 6");
    const t = shown(second.store, id);
    const unwatched = t.findIndex((x) => x.startsWith("unwatched: not watched from"));
    const divider = t.findIndex((x) => x.startsWith("divider: live from here"));
    const gap = t.findIndex((x) => x.startsWith("notice: reconnected — events between"));
    expect(t.filter((x) => x.startsWith("output"))).toEqual(output(1, 6));
    expect(t.slice(0, unwatched)).toEqual(output(1, 3));
    expect(unwatched).toBeLessThan(divider);
    expect(t.indexOf("output: line 5")).toBeLessThan(gap);
    expect(gap).toBeLessThan(t.indexOf("output: line 6"));
    expect(second.store.getState().sessions[id]?.gaps).toBe(1);
  });
});

describe("journal and the documented history", () => {
  it("what the journal kept from the live stream is not shown again from the history", async () => {
    const s = await reference(0);
    const id = s.sessionIds()[0] as string;
    const key = s.key("member");
    const root = tempDir();
    s.faults.set({ noEventIds: true });
    for (let i = 1; i <= 3; i++) s.emit(id, "process_output", { text: `line ${i}\n` });
    const first = run(s.url, key, root, { historyEndpoint: true });
    await opened(first, id);
    await waitFor(() => first.store.getState().sessions[id]?.status.state === "live", 5_000);
    // Live: the agent's words a few at a time (the log keeps them as one entry), output, a file.
    s.emit(id, "prompt_progress", { type: "text", content: "Fixing " });
    s.emit(id, "prompt_progress", { type: "text", content: "the loop.\n" });
    s.emit(id, "process_output", { text: "live 1\n" });
    s.emit(id, "file_changed", { path: "src/loop.ts", action: "modified" });
    await waitFor(() => shown(first.store, id).some((x) => x.includes("src/loop.ts")), 5_000);
    await first.quit();

    s.emit(id, "process_output", { text: "while away\n" });
    const second = run(s.url, key, root, { historyEndpoint: true });
    const t = await opened(second, id);
    const count = (text: string) => t.filter((x) => x.includes(text)).length;
    for (const text of [
      "line 1",
      "line 2",
      "line 3",
      "Fixing the loop.",
      "live 1",
      "src/loop.ts",
    ]) {
      expect(count(text), text).toBe(1);
    }
    expect(count("while away")).toBe(1);
    const unwatched = t.findIndex((x) => x.startsWith("unwatched: not watched from"));
    expect(unwatched).toBeLessThan(t.indexOf("output: while away"));
    expect(t.at(-1)).toBe(
      "divider: live from here · above: 7 from the journal, 1 from the server, 6 repeats of the journal skipped",
    );
  });
});

describe("journal: bounded", () => {
  it("keeps each session under its budget, dropping the oldest first", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    const root = tempDir();
    const r = run(s.url, s.key("member"), root, { maxSessionBytes: 8 * 1024 });
    await live(r, id);
    for (let i = 1; i <= 400; i++) {
      s.emit(id, "process_output", { text: `bounded ${i} ${"x".repeat(40)}\n` });
      // Let the journal write now and then, as a real session's pace would.
      if (i % 50 === 0) {
        await waitFor(() => shown(r.store, id).some((x) => x.includes(`bounded ${i} `)), 5_000);
        r.journal.closeSession(id);
      }
    }
    await r.quit();
    const files = readdirSync(join(root, "svc"));
    expect(files.sort()).toEqual([`${id}.1.ndjson`, `${id}.ndjson`]);
    const bytes = files.reduce((n, f) => n + statSync(join(root, "svc", f)).size, 0);
    // Both halves together within the budget, however the writes were batched.
    expect(bytes).toBeLessThanOrEqual(8 * 1024);
    expect(bytes).toBeGreaterThan(4 * 1024);
    const texts = [...journalLines(root, `${id}.1.ndjson`), ...journalLines(root, `${id}.ndjson`)]
      .filter((l) => l.event === "process_output")
      .map((l) => (l.data as { text: string }).text);
    expect(texts.at(-1)).toMatch(/^bounded 400 /);
    expect(texts.some((t) => t.startsWith("bounded 1 "))).toBe(false);
    // What is kept is the newest, in order, with nothing missing in between.
    const nums = texts.map((t) => Number(/^bounded (\d+)/.exec(t)?.[1]));
    expect(nums).toEqual(Array.from({ length: nums.length }, (_, i) => 400 - nums.length + 1 + i));
  });

  it("keeps the whole journal under its budget, deleting the least recently written files", async () => {
    const root = tempDir();
    mkdirSync(join(root, "old-service"), { recursive: true });
    const old = join(root, "old-service", "ses_old.ndjson");
    writeFileSync(old, `${"x".repeat(6000)}\n`);
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    for (let i = 1; i <= 40; i++)
      s.emit(id, "process_output", { text: `t ${i} ${"y".repeat(60)}\n` });
    const r = run(s.url, s.key("member"), root, { maxSessionBytes: 4096, maxTotalBytes: 5000 });
    await opened(r, id);
    await r.quit();
    expect(() => statSync(old)).toThrow();
    const total = readdirSync(join(root, "svc")).reduce(
      (n, f) => n + statSync(join(root, "svc", f)).size,
      0,
    );
    expect(total).toBeLessThanOrEqual(5000);
  });
});

describe("journal: damage and failure", () => {
  it("skips corrupt and truncated lines with a warning and keeps everything else", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    const root = tempDir();
    mkdirSync(join(root, "svc"), { recursive: true, mode: 0o700 });
    const good = (n: number) =>
      JSON.stringify({
        session_id: id,
        event: "process_output",
        id: `j${n}`,
        data: { text: `kept ${n}\n` },
        received_at: "2024-05-01T10:00:00.000Z",
      });
    writeFileSync(
      join(root, "svc", `${id}.ndjson`),
      `${good(1)}\nnot json at all\n${good(2)}\n{"half": "a line cut by a cra`,
      { mode: 0o600 },
    );
    const r = run(s.url, s.key("member"), root);
    const t = await opened(r, id);
    expect(t.slice(0, 3)).toEqual([
      "output: kept 1",
      "output: kept 2",
      `notice: journal: 2 unreadable lines skipped in ${id}.ndjson`,
    ]);
    expect(t[3]).toMatch(/^unwatched: not watched from 2024-05-01 \d\d:\d\d to /);
    s.emit(id, "process_output", { text: "after the damage\n" });
    await waitFor(() => shown(r.store, id).includes("output: after the damage"), 5_000);
    await r.quit();
    // The new lines start on a line of their own: the next run reads them all.
    const again = run(s.url, s.key("member"), root);
    const t2 = await opened(again, id);
    expect(t2).toContain("output: after the damage");
    expect(t2).toContain(`notice: journal: 2 unreadable lines skipped in ${id}.ndjson`);
  });

  it("on a full disk, turns itself off and says so; the stream goes on", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    const root = tempDir();
    mkdirSync(join(root, "svc"), { recursive: true, mode: 0o700 });
    // Every write to /dev/full fails with ENOSPC, as a full disk does.
    symlinkSync("/dev/full", join(root, "svc", `${id}.ndjson`));
    const r = run(s.url, s.key("member"), root);
    await live(r, id);
    s.emit(id, "process_output", { text: "one\n" });
    await waitFor(() => r.journal.status.getState().state === "failed", 5_000, "journal off");
    expect(r.journal.status.getState().reason).toMatch(/no space left on device \(ENOSPC\)/);
    s.emit(id, "process_output", { text: "two\n" });
    await waitFor(() => shown(r.store, id).includes("output: two"), 5_000, "the stream going on");
  });

  it("with a state folder it cannot create, says the journal is off at once", async () => {
    const root = tempDir();
    const file = join(root, "not-a-folder");
    writeFileSync(file, "");
    const journal = createFileJournal({
      dir: join(file, "svc"),
      root: file,
      clean: journalCleaner,
    });
    stopAfterTest(() => journal.dispose());
    await waitFor(() => journal.status.getState().state === "failed", 5_000, "journal off");
    expect(journal.status.getState().reason).toMatch(/not a folder \(ENOTDIR\)/);
    // It still loads (nothing) and takes events without complaint.
    expect((await journal.load("ses_a")).records).toEqual([]);
    journal.record("ses_a", "process_output", '{"text":"x"}', "1", Date.now());
  });
});

describe("journal: what it stores", () => {
  it("keeps nothing of the key and no escape sequence but process output's colours", async () => {
    const s = await reference();
    const id = s.sessionIds()[0] as string;
    const key = s.key("member");
    registerSecret(key);
    const root = tempDir();
    s.emit(id, "process_output", {
      text: `\u001b[31mred\u001b[0m token=${key} \u001b]0;title\u0007\n`,
    });
    s.emit(id, "prompt_progress", { type: "text", content: `echo ${key}\u001b[2J done\n` });
    const r = run(s.url, key, root);
    await opened(r, id);
    await r.quit();
    const text = readFileSync(join(root, "svc", `${id}.ndjson`), "utf8");
    expect(text).not.toContain(key);
    const lines = journalLines(root, `${id}.ndjson`);
    expect(lines[0]?.data).toEqual({
      text: "\u001b[31mred\u001b[0m token=[redacted key] \n",
      ts: expect.any(Number),
    });
    expect(lines[1]?.data).toEqual({
      type: "text",
      content: "echo [redacted key] done\n",
      ts: expect.any(Number),
    });
  });
});

describe("journal: a service that echoes the key", () => {
  it("stores no piece of half the key or longer, whichever field carries it, and still spots repeats", async () => {
    const key = "ask_Zq7Lm2Xv9Pw4Rt6Yb1Nc8Hd3";
    registerSecret(key);
    const half = Math.ceil(key.length / 2);
    const scripted: ScriptedServer = await startScriptedServer();
    stopAfterTest(() => scripted.close());
    const sse = (event: string, data: string, id?: string) =>
      `${id === undefined ? "" : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`;
    const history =
      // The key in two prompt fragments, each exactly half of it.
      sse("prompt_progress", JSON.stringify({ type: "text", content: key.slice(0, half) }), "1") +
      sse(
        "prompt_progress",
        JSON.stringify({ type: "text", content: `${key.slice(half)}\n` }),
        "2",
      ) +
      // In an id (with an escape), an event name, a field name, and data that is not JSON.
      sse("process_output", JSON.stringify({ text: "ok\n" }), `run-${key}\u001b[2J`) +
      sse(`x-${key}`, JSON.stringify({ n: 1 }), "4") +
      sse("process_output", JSON.stringify({ [key]: "v", text: "field\n" }), "5") +
      sse("process_output", `not json ${key}`, "6");
    const stream: Parameters<typeof scripted.fallback>[0] = (_q, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`${history}: history-end\n\n`);
    };
    scripted.fallback(stream);
    const root = tempDir();
    const first = run(scripted.url, key, root);
    await opened(first, "ses_k");
    await first.quit();

    const text = readFileSync(join(root, "svc", "ses_k.ndjson"), "utf8");
    for (let i = 0; i + half <= key.length; i++) expect(text).not.toContain(key.slice(i, i + half));
    expect(text).not.toContain("\\u001b[2J");
    const lines = journalLines(root, "ses_k.ndjson");
    expect(lines.map((l) => l.id)).toEqual(["1", "2", "run-[redacted key]", "4", "5", "6", null]);
    expect(lines[3]?.event).toBe("x-[redacted key]");

    // The next run's history repeats all six: the journal's cleaned ids still match them.
    const second = run(scripted.url, key, root);
    const t = await opened(second, "ses_k");
    expect(t.at(-1)).toContain("6 repeats of the journal skipped");
  });
});
