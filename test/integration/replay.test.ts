import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { eventToJson } from "../../src/cli/eventFormat.js";
import { createFileJournal } from "../../src/cli/journal/fileJournal.js";
import { journalCleaner } from "../../src/cli/journal/journalSetup.js";
import { subscribeToSession } from "../../src/client/eventStream.js";
import { type ReferenceServer, startServer } from "../../src/server/index.js";
import { buildRecording, type Recording } from "../../src/store/history/recording.js";
import { createReplayStore } from "../../src/store/replay/replayEngine.js";
import { toNdjson } from "../../src/store/streams/ndjson.js";
import { StreamsController } from "../../src/store/streams/streamsController.js";
import { createStreamsStore, type StreamsStore } from "../../src/store/streams/streamsStore.js";
import { stopAfterTest, stopStarted } from "../helpers/stopAfterTest.js";
import { waitFor } from "./serverTestUtils.js";

/**
 * A recording in any of its three forms (the pane's export, `watch --json`, the journal)
 * replays into the same pane the live run showed.
 */

afterEach(stopStarted);

function events(store: StreamsStore, id: string): string[] {
  return (store.getState().sessions[id]?.timeline.toArray() ?? [])
    .filter((e) => !["notice", "divider", "unwatched"].includes(e.kind))
    .map((e) => `${e.kind}: ${e.text}`);
}

/** Everything a pane shows, once of each kind, ending with a pause. */
function emitAll(s: ReferenceServer, id: string): void {
  s.setState(id, "active");
  s.emit(id, "prompt_progress", { type: "text", content: "Reading the failing " });
  s.emit(id, "prompt_progress", { type: "text", content: "test and fixing it\n" });
  s.emit(id, "prompt_progress", { type: "text", content: "Second line\n" });
  s.emit(id, "process_output", { stream: "stdout", text: "\u001b[32m✓ 212 passed\u001b[0m\n" });
  s.emit(id, "process_output", { stream: "stderr", text: "warning: \u001b]0;evil\u0007slow\n" });
  s.emit(id, "file_changed", { path: "src/a.ts", action: "modified" });
  s.emit(id, "deploy_started", { target: "staging" });
  s.emitRaw(id, "process_output", '{"text": "cut off');
  s.setState(id, "paused");
}

function replayInto(recording: Recording, id: string): Promise<string[]> {
  const store = createStreamsStore({ flushMs: 5 });
  const replay = createReplayStore(recording, store, { speed: "max", tickMs: 5 });
  stopAfterTest(() => {
    replay.dispose();
    store.getState().dispose();
  });
  replay.openStream(id);
  return waitFor(
    () => replay.getState().played === recording.events.length && !replay.getState().playing,
    5_000,
    "the whole recording",
  ).then(() => {
    store.getState().flushNow();
    return events(store, id);
  });
}

describe("replay", () => {
  it("reproduces the live pane from its export, from watch --json and from the journal", async () => {
    const s = await startServer({ paceMs: 0, seed: 31, heartbeatMs: 60_000 });
    stopAfterTest(() => s.close());
    const id = s.sessionIds()[0] as string;
    const root = mkdtempSync(join(tmpdir(), "as-replay-"));
    stopAfterTest(() => rmSync(root, { recursive: true, force: true }));
    const agent = new Agent();
    stopAfterTest(() => agent.close());

    // The live pane, journaling, and a `watch --json` recording of the same stream.
    const store = createStreamsStore({ flushMs: 5 });
    const journal = createFileJournal({ dir: join(root, "svc"), root, clean: journalCleaner });
    const controller = new StreamsController({
      config: { baseUrl: s.url, apiKey: s.key("member"), dispatcher: agent },
      store,
      history: 5000,
      journal,
    });
    const watched: string[] = [];
    const watch = subscribeToSession({
      config: { baseUrl: s.url, apiKey: s.key("member"), dispatcher: agent },
      sessionId: id,
      onEvent: (ev) => watched.push(JSON.stringify(eventToJson(id, ev, Date.now()))),
    });
    stopAfterTest(async () => {
      watch.close();
      await controller.closeAll();
    });
    controller.openStream(id);
    await waitFor(() => store.getState().sessions[id]?.status.state === "live", 5_000, "live");
    await waitFor(() => watch.status.state === "live", 5_000, "watch live");
    emitAll(s, id);
    await waitFor(() => watched.some((l) => l.includes('"state":"paused"')), 5_000, "watched");
    await waitFor(() => events(store, id).includes("state: active → paused"), 5_000, "all shown");
    const live = events(store, id);
    const exported = toNdjson(store.getState().sessions[id]?.timeline.toArray() ?? []);
    watch.close();
    await controller.closeAll();
    await journal.dispose();
    store.getState().dispose();

    const fromExport = buildRecording([
      { name: `agent-sessions-${id}-2024-05-01T10-00-00Z.ndjson`, text: exported },
    ]);
    const fromWatch = buildRecording([{ name: "watch.ndjson", text: `${watched.join("\n")}\n` }]);
    const journalText = readFileSync(join(root, "svc", `${id}.ndjson`), "utf8");
    const fromJournal = buildRecording([{ name: `${id}.ndjson`, text: journalText }]);
    for (const rec of [fromExport, fromWatch, fromJournal]) {
      expect(rec.warnings).toEqual([]);
      expect(rec.sessions).toEqual([id]);
    }
    expect(await replayInto(fromExport, id)).toEqual(live);
    expect(await replayInto(fromWatch, id)).toEqual(live);
    // The journal stored text cleaned as the pane shows it: the same pane again.
    expect(await replayInto(fromJournal, id)).toEqual(live);
  });

  it("jumps back and forth: a pane shows what had happened by then", async () => {
    const line = (n: number) =>
      JSON.stringify({
        session_id: "ses_j",
        event: "process_output",
        id: String(n),
        data: { text: `at ${n}s\n` },
        received_at: new Date(Date.UTC(2024, 4, 1, 10, 0, n)).toISOString(),
      });
    const rec = buildRecording([
      { name: "r", text: Array.from({ length: 60 }, (_, i) => line(i + 1)).join("\n") },
    ]);
    const store = createStreamsStore({ flushMs: 5 });
    const replay = createReplayStore(rec, store, { playing: false });
    stopAfterTest(() => replay.dispose());
    replay.openStream("ses_j");
    replay.seek(Date.UTC(2024, 4, 1, 10, 0, 30));
    store.getState().flushNow();
    expect(events(store, "ses_j").at(-1)).toBe("output: at 30s");
    expect(events(store, "ses_j")).toHaveLength(30);
    replay.step(-10_000);
    store.getState().flushNow();
    expect(events(store, "ses_j")).toHaveLength(20);
    expect(events(store, "ses_j").at(-1)).toBe("output: at 20s");
    replay.step(25_000);
    store.getState().flushNow();
    expect(events(store, "ses_j").at(-1)).toBe("output: at 45s");
    expect(replay.getState()).toMatchObject({ played: 45, total: 60, playing: false });
  });
});
