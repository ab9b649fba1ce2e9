import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { savePaneNdjson } from "../../src/cli/tui/savePane.js";
import { tempFolder } from "../helpers/stopAfterTest.js";
import {
  mountOnFixture,
  pressKey,
  startReference,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/** Process output of every shape in a pane and in its export: its text, its stream. */

afterEach(unmountReference);

describe("a pane shows process output of any shape by its text", () => {
  it("text, content, data, output, line, message; stderr from stream or fd; others compact", async () => {
    const dir = tempFolder("as-ui-shapes-");
    const fx = await startReference();
    const id = fx.ids[0] as string;
    // One line in the session's history: its divider says the history has been read, so the
    // shapes below come on the stream (a history's log keeps odd shapes as their JSON text).
    fx.server.emit(id, "process_output", { text: "from the history\n" });
    let savedPath = "";
    const h = mountOnFixture(
      fx,
      { columns: 120, rows: 30 },
      {
        initialSessions: [id],
        onSave: async (sessionId, entries) => {
          savedPath = await savePaneNdjson(sessionId, entries, { dir });
          return savedPath;
        },
      },
    );
    await waitForContent(h, "live from here");
    const payloads = [
      { text: "shape text\n" },
      { content: "\u001b[32m✓\u001b[0m test 3 passed" },
      { stream: "stdout", data: "shape data" },
      { stream: "stderr", data: "shape stderr" },
      { fd: 2, output: "shape fd two\n" },
      { line: "shape line" },
      { message: "shape message" },
      { pid: 4, note: "\u001b[31mred\u001b[0m end" },
    ];
    for (const p of payloads) fx.server.emit(id, "process_output", p);
    // The reference service adds its `ts` to what it sends.
    const frame = await waitForContent(h, '{"pid":4,"note":"red end","ts":');
    for (const t of [
      "shape text",
      "✓ test 3 passed",
      "shape data",
      "shape line",
      "shape message",
    ]) {
      expect(frame).toMatch(new RegExp(`output\\s+${t}`));
    }
    expect(frame).toMatch(/stderr\s+shape stderr/);
    expect(frame).toMatch(/stderr\s+shape fd two/);
    expect(frame).not.toContain("\\u001b");
    expect(frame).not.toContain('"content"');
    // Colours of output reach the terminal as SGR, nothing else does.
    const raw = h.rawFrame();
    expect(raw).toContain("\u001b[32m✓");
    expect(raw.replace(/\u001b\[[0-9;]*m/g, "")).not.toContain("\u001b");

    // The export keeps the payload as sent next to the same text.
    await pressKey(h, "e");
    await waitForContent(h, /Saved \d+ entries/);
    const path = savedPath;
    const records = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { kind: string; text: string; stream?: string; data: unknown })
      .filter((r) => r.kind === "output");
    expect(records.map((r) => [r.text.replace(/,"ts":\d+/, ""), r.stream])).toEqual([
      ["from the history", undefined],
      ["shape text", undefined],
      ["\u001b[32m✓\u001b[0m test 3 passed", undefined],
      ["shape data", "stdout"],
      ["shape stderr", "stderr"],
      ["shape fd two", "stderr"],
      ["shape line", undefined],
      ["shape message", undefined],
      ['{"pid":4,"note":"red end"}', undefined],
    ]);
    expect(records[4]?.data).toMatchObject({ stream: "stderr", data: "shape stderr" });
  });
});
