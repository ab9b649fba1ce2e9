import { afterEach, describe, expect, it } from "vitest";
import type { TimelineEntry } from "../../src/store/streams/entry.js";
import { toNdjson } from "../../src/store/streams/ndjson.js";
import {
  mountOnFixture,
  pressKey,
  startReference,
  typeText,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/** The merged timeline: several sessions' events in time order, tagged, with a pane's keys. */

afterEach(unmountReference);

describe("merged timeline", () => {
  it("T interleaves the streamed sessions' events in time order, each line tagged by session", async () => {
    const fx = await startReference();
    const [a, b] = fx.ids as [string, string];
    const saved: { id: string; entries: readonly TimelineEntry[] }[] = [];
    const h = mountOnFixture(
      fx,
      { columns: 160, rows: 30 },
      {
        initialSessions: [a, b],
        onSave: async (id, entries) => {
          saved.push({ id, entries });
          return "/tmp/merged.ndjson";
        },
      },
    );
    await waitForContent(h, (f) => (f.match(/● live ·/g)?.length ?? 0) === 2);
    const line = (id: string, n: number) =>
      fx.server.emit(id, "process_output", { stream: "stdout", text: `step ${n} of ${id}\n` });
    // Each event after the one before has reached the client, so the time order is known.
    for (let n = 1; n <= 4; n++) {
      const id = n % 2 === 1 ? a : b;
      line(id, n);
      await waitForContent(h, `step ${n} of ${id}`);
    }
    await pressKey(h, "T");
    let frame = await waitForContent(h, "Merged timeline · 2 sessions");
    const rows = frame.split("\n").filter((l) => /step \d of/.test(l));
    expect(
      rows.map((l) => /(ses_\w+)\s+output\s+step (\d) of (ses_\w+)/.exec(l)?.slice(1)),
    ).toEqual([
      [a, "1", a],
      [b, "2", b],
      [a, "3", a],
      [b, "4", b],
    ]);

    // A pane's keys: search, kind toggles, export.
    await pressKey(h, "/");
    await typeText(h, `3 of ${a}`);
    await pressKey(h, "enter");
    await waitForContent(h, `/3 of ${a} 1/1`);
    await pressKey(h, "O");
    frame = await waitForContent(h, "hidden: output");
    expect(frame).not.toMatch(/step \d of/);
    await pressKey(h, "O");
    await pressKey(h, "e");
    await waitForContent(h, "Saved 4 merged entries to /tmp/merged.ndjson");
    expect(saved[0]?.id).toBe("merged");
    const lines = toNdjson(saved[0]?.entries ?? [])
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { session_id: string; text: string });
    expect(lines.map((l) => [l.session_id, l.text])).toEqual([
      [a, `step 1 of ${a}`],
      [b, `step 2 of ${b}`],
      [a, `step 3 of ${a}`],
      [b, `step 4 of ${b}`],
    ]);

    await pressKey(h, "escape");
    await waitForContent(h, "Sessions 4/4");
  });
});
