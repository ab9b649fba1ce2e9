import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildReplayServices } from "../../src/cli/tui/buildReplayServices.js";
import { savePaneNdjson } from "../../src/cli/tui/savePane.js";
import { buildRecording } from "../../src/store/history/recording.js";
import { payloadText } from "../../src/text/payloadText.js";
import { stripAnsi } from "../../src/text/sanitize.js";
import { App } from "../../src/ui/App.js";
import { keyPieces } from "../helpers/hostileServer.js";
import { stopAfterTest, tempFolder } from "../helpers/stopAfterTest.js";
import {
  cleanFrame,
  mountOnReference,
  mountTree,
  pressKey,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/**
 * A service that streams the user's key back a few characters an event (issue 31): the UI
 * wired as the CLI wires it (buildServices, the journal from journalFor) never draws it, nor
 * any piece of it half its length or longer, over the rows read one after another, wherever
 * the pane's window cuts the run of pieces; the journal file, a pane's export and a replay
 * of that journal never hold it either.
 */

afterEach(unmountReference);

/**
 * The frame's text as read row after row: colours, borders, the kind tags, the merged view's
 * session tags and white space left out, so a key drawn a few characters a row reads as one string here.
 */
function rowsRead(frame: string): string {
  return cleanFrame(frame).replace(/[│║┃┆┊╎]|output|stderr|prompt|ses_[a-z0-9]+|\s/g, "");
}

/** Pieces far shorter than half the key: with the whole run masked, none is drawn at all. */
function shortPieces(key: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 6 <= key.length; i++) out.push(key.slice(i, i + 6));
  return out;
}

function leaked(text: string, pieces: readonly string[]): string | null {
  return pieces.find((p) => text.includes(p)) ?? null;
}

/**
 * What NDJSON lines show, read one line after another: each field's texts joined on their
 * own (an export's `text`; a journal's or export's payload text; a malformed line's `raw`).
 */
function shownTexts(file: string): string[] {
  const texts = ["", "", ""];
  for (const line of file.trim().split("\n")) {
    const o = JSON.parse(line) as { text?: string; data?: unknown; raw?: string };
    if (typeof o.text === "string") texts[0] += o.text;
    if (o.data !== undefined && o.data !== null) texts[1] += payloadText(o.data).text;
    if (typeof o.raw === "string") texts[2] += o.raw;
  }
  // Read as the redactor reads: colour codes and line ends are no barrier.
  return texts.map((t) => stripAnsi(t).replace(/[\r\n]/g, ""));
}

describe("the key sent back a few characters an event", () => {
  it("is never drawn in a pane, scrolled through, nor written to the journal, an export or a replay", async () => {
    const home = tempFolder("as-journal-home-");
    const exports = tempFolder("as-exports-");
    let saved: string | null = null;
    const { fx, h } = await mountOnReference(
      { columns: 140, rows: 20 },
      {
        journalHome: home,
        props: (f) => ({
          initialSessions: [f.ids[0] as string],
          // As runTui wires it: the pane's redactor goes to the export.
          onSave: async (sessionId, entries, secrets) => {
            saved = await savePaneNdjson(sessionId, entries, { dir: exports, secrets });
            return saved;
          },
        }),
      },
    );
    const id = fx.ids[0] as string;
    const key = fx.server.key("owner");
    const pieces = keyPieces(key);
    const short = shortPieces(key);
    await waitForContent(h, "● live ·");
    await pressKey(h, "z");
    // A few characters an event: output events of three (some with colours, some with a line
    // end), then prompt fragments of five, each run surrounded by ordinary lines.
    for (let i = 0; i < 8; i++) fx.server.emit(id, "process_output", { text: `before ${i}\n` });
    for (let at = 0; at < key.length; at += 3) {
      const piece = key.slice(at, at + 3);
      const text = at % 2 === 0 ? `\x1b[3${at % 8}m${piece}\x1b[0m` : `${piece}\n`;
      fx.server.emit(id, "process_output", { stream: "stdout", text });
    }
    for (let i = 0; i < 8; i++) fx.server.emit(id, "process_output", { text: `between ${i}\n` });
    for (let at = 0; at < key.length; at += 5) {
      fx.server.emit(id, "prompt_progress", { type: "text", content: key.slice(at, at + 5) });
    }
    fx.server.emit(id, "prompt_progress", { type: "text", content: "\n" });
    for (let i = 0; i < 8; i++) fx.server.emit(id, "process_output", { text: `after ${i}\n` });
    await waitForContent(h, "after 7");

    // Up one row at a time through both runs: every window cuts them somewhere else.
    for (let n = 0; n < 40; n++) await pressKey(h, "k");
    await waitForContent(h, "before 0");
    const frames = h.writes.map(rowsRead);
    // The run of output events drawn, masked character for character.
    expect(frames.some((f) => f.includes("•••"))).toBe(true);
    for (const f of frames) {
      expect(leaked(f, pieces)).toBeNull();
      expect(leaked(f, short)).toBeNull();
    }

    // The pane's export.
    await pressKey(h, "e");
    await waitForContent(h, /Saved \d+ entries/);
    const exported = readFileSync(saved as unknown as string, "utf8");
    expect(leaked(exported, pieces)).toBeNull();
    for (const t of shownTexts(exported)) expect(leaked(t, pieces)).toBeNull();
    expect(exported).toContain("[redacted key]");

    // The merged timeline, scrolled back through the same runs.
    await pressKey(h, "T");
    await waitForContent(h, "Merged timeline");
    for (let n = 0; n < 40; n++) await pressKey(h, "k");
    await waitForContent(h, "before 0");
    // The fleet view: the session's current step is the prompt line the fragments made,
    // masked whole.
    await pressKey(h, "escape");
    await pressKey(h, "v");
    const fleet = await waitForContent(h, /Fleet \d+\/\d+/);
    expect(fleet).toMatch(/•{6}/);
    for (const f of h.writes.map(rowsRead)) expect(leaked(f, pieces)).toBeNull();

    // The journal, written as the stream came (closing the fixture writes what is queued).
    h.unmount();
    await fx.close();
    const journalRoot = join(home, "agent-sessions", "journal");
    const [serviceDir] = readdirSync(journalRoot);
    const folder = join(journalRoot, serviceDir as string);
    const files = readdirSync(folder).filter((f) => f.endsWith(".ndjson"));
    expect(files.length).toBeGreaterThan(0);
    const journal = files.map((f) => ({ name: f, text: readFileSync(join(folder, f), "utf8") }));
    for (const { text } of journal) {
      expect(leaked(text, pieces)).toBeNull();
      for (const t of shownTexts(text)) expect(leaked(t, pieces)).toBeNull();
    }

    // A replay of that journal, at its end and scrolled back.
    const recording = buildRecording(journal);
    const replay = buildReplayServices(recording, { playing: false, at: recording.end });
    stopAfterTest(() => replay.dispose());
    const replayUi = mountTree(
      <App
        services={replay.services}
        profile="replay"
        baseUrl="journal"
        options={{ bell: false }}
        initialSessions={[id]}
        onExit={() => {}}
        now={replay.replay.now}
      />,
      { columns: 100, rows: 20 },
    );
    await waitForContent(replayUi, "after 7");
    for (let n = 0; n < 40; n++) await pressKey(replayUi, "k");
    for (const f of replayUi.writes.map(rowsRead)) expect(leaked(f, pieces)).toBeNull();
  });
});
