import { Text } from "ink";
import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import { TimelineBuffer } from "../../src/store/streams/timelineBuffer.js";
import { QUIET_SEARCH_MS, useQuietSearchText } from "../../src/ui/hooks/useQuietSearchText.js";
import { initialPaneView, matchStats, setQuery } from "../../src/ui/model/paneView.js";

/**
 * A large pane that has gone quiet reads its scrollback ahead for searching (in idle slices),
 * so the first search finds its text built; a busy one reads nothing ahead.
 */

/** A scrollback of `n` undecoded slots, as a stream's items arrive, counting what is decoded. */
function filled(n: number) {
  let decoded = 0;
  const buf = new TimelineBuffer(n + 100, (_kind, data, id, seq, at) => {
    decoded++;
    return { seq, id, kind: "output", at, text: data };
  });
  let seq = 0;
  const add = (text: string) => {
    seq++;
    buf.pushRaw(0, text, null, seq, seq);
  };
  for (let i = 1; i <= n; i++) add(`line ${i}`);
  return { buf, add, decoded: () => decoded };
}

function Probe({ buf, version }: { buf: TimelineBuffer; version: number }) {
  useQuietSearchText(buf, version);
  return <Text>{`v${version}`}</Text>;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms: number): Promise<void> {
  // Bounded: `ms` in 10 ms steps.
  for (let i = 0; i < ms / 10 && !check(); i++) await pause(10);
}

describe("a quiet pane's search text", () => {
  it("is read ahead once the scrollback stops changing, and not while it changes", async () => {
    const f = filled(5000);
    let version = 0;
    const app = render(<Probe buf={f.buf} version={version} />);
    try {
      // Busy: a change every 200 ms for twice the quiet wait reads nothing ahead.
      for (let t = 0; t < (2 * QUIET_SEARCH_MS) / 200; t++) {
        await pause(200);
        f.add(`more ${t}`);
        version++;
        app.rerender(<Probe buf={f.buf} version={version} />);
      }
      expect(f.decoded()).toBe(0);
      // Quiet: every entry but the newest is read, a few blocks a turn.
      await until(() => f.decoded() >= f.buf.size - 1, QUIET_SEARCH_MS + 5000);
      expect(f.decoded()).toBeGreaterThanOrEqual(f.buf.size - 1);
      // The search that follows finds what it asks for.
      const found = setQuery(initialPaneView(), f.buf, "line 4321");
      expect(matchStats(f.buf, found.view)?.total).toBe(1);
    } finally {
      app.unmount();
    }
  });

  it("leaves a small scrollback alone: its first search reads it within a frame", async () => {
    const f = filled(300);
    const app = render(<Probe buf={f.buf} version={1} />);
    try {
      await pause(QUIET_SEARCH_MS + 300);
      expect(f.decoded()).toBe(0);
    } finally {
      app.unmount();
    }
  });
});
