import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../src/protocol/events.js";
import {
  appendEvent,
  DEFAULT_MAX_ENTRY_CHARS,
  materializeItem,
  newWriter,
} from "../../src/store/streams/timeline.js";
import { TimelineBuffer } from "../../src/store/streams/timelineBuffer.js";
import {
  computeWindow,
  initialPaneView,
  matchStats,
  newCount,
  type PaneView,
  resumeFollow,
  scrollBy,
  scrollToTop,
  searchStep,
  setQuery,
  toggleFollow,
  toggleKind,
  type Viewport,
} from "../../src/ui/model/paneView.js";

const VP: Viewport = { rows: 5, width: 40, noColor: true };

function buffer(capacity = 1000) {
  const buf = new TimelineBuffer(capacity, (kind, data, id, seq, at) =>
    materializeItem(kind, data, id, seq, at, DEFAULT_MAX_ENTRY_CHARS),
  );
  const w = newWriter();
  let id = 0;
  const add = (ev: SessionEvent) => {
    id++;
    appendEvent(buf, w, { ...ev, id: String(id) }, 1_700_000_000_000 + id);
  };
  const output = (text: string) => add({ kind: "process_output", id: null, data: { text } });
  const file = (path: string) =>
    add({ kind: "file_changed", id: null, data: { path, action: "modified" } });
  return { buf, add, output, file };
}

function texts(buf: TimelineBuffer, view: PaneView, vp = VP): string[] {
  return computeWindow(buf, view, vp).lines.map((l) => (l.prefix + l.body).trimEnd());
}

describe("follow mode", () => {
  it("shows the newest lines at the bottom while following", () => {
    const { buf, output } = buffer();
    for (let i = 1; i <= 20; i++) output(`line ${i}`);
    expect(texts(buf, initialPaneView())).toEqual([
      "output  line 16",
      "output  line 17",
      "output  line 18",
      "output  line 19",
      "output  line 20",
    ]);
  });

  it("scrolling up pauses, counts what arrives meanwhile, and G resumes", () => {
    const { buf, output } = buffer();
    for (let i = 1; i <= 20; i++) output(`line ${i}`);
    let v = scrollBy(initialPaneView(), buf, VP, -1);
    expect(v.follow).toBe(false);
    expect(texts(buf, v)[0]).toBe("output  line 15");
    for (let i = 21; i <= 23; i++) output(`line ${i}`);
    // The screen stays where the user left it.
    expect(texts(buf, v)[0]).toBe("output  line 15");
    expect(newCount(buf, v)).toBe(3);
    v = resumeFollow(v);
    expect(newCount(buf, v)).toBe(0);
    expect(texts(buf, v).at(-1)).toBe("output  line 23");
  });

  it("scrolling back down to the newest line resumes following", () => {
    const { buf, output } = buffer();
    for (let i = 1; i <= 20; i++) output(`line ${i}`);
    let v = scrollBy(initialPaneView(), buf, VP, -2);
    expect(v.follow).toBe(false);
    v = scrollBy(v, buf, VP, 2);
    expect(v.follow).toBe(true);
  });

  it("toggles follow off and on in place", () => {
    const { buf, output } = buffer();
    for (let i = 1; i <= 10; i++) output(`line ${i}`);
    const off = toggleFollow(initialPaneView(), buf, VP);
    expect(off.follow).toBe(false);
    expect(texts(buf, off)).toEqual(texts(buf, initialPaneView()));
    expect(toggleFollow(off, buf, VP).follow).toBe(true);
  });

  it("goes to the top, filling the screen from there", () => {
    const { buf, output } = buffer();
    for (let i = 1; i <= 20; i++) output(`line ${i}`);
    const v = scrollToTop(initialPaneView(), buf);
    expect(texts(buf, v)[0]).toBe("output  line 1");
    expect(texts(buf, v)).toHaveLength(5);
  });

  it("scrolls by display lines through a wrapped entry", () => {
    const { buf, output } = buffer();
    output("a".repeat(32 * 3));
    for (let i = 1; i <= 5; i++) output(`line ${i}`);
    let v = scrollBy(initialPaneView(), buf, VP, -5);
    expect(texts(buf, v)[0]).toBe(`output  ${"a".repeat(32)}`);
    v = scrollBy(v, buf, VP, 1);
    expect(texts(buf, v)[0]).toBe(`        ${"a".repeat(32)}`);
  });

  it("keeps a paused view valid when its top entry is evicted", () => {
    const { buf, output } = buffer(10);
    for (let i = 1; i <= 10; i++) output(`line ${i}`);
    const v = scrollToTop(initialPaneView(), buf);
    for (let i = 11; i <= 30; i++) output(`line ${i}`);
    expect(texts(buf, v)[0]).toBe("output  line 21");
  });
});

describe("kinds and search", () => {
  it("hides a kind and skips it when scrolling", () => {
    const { buf, output, file } = buffer();
    for (let i = 1; i <= 6; i++) {
      output(`out ${i}`);
      file(`src/f${i}.ts`);
    }
    const v = toggleKind(initialPaneView(), "output");
    expect(texts(buf, v).every((t) => t.startsWith("files"))).toBe(true);
    expect(toggleKind(v, "output").hidden).toEqual([]);
  });

  it("lands on the newest match, n goes older, N newer, wrapping around", () => {
    const { buf, output } = buffer();
    for (let i = 1; i <= 30; i++) output(i % 10 === 0 ? `error ${i}` : `ok ${i}`);
    const found = setQuery(initialPaneView(), buf, "ERROR");
    expect(found.found).toBe(true);
    let v = found.view;
    // Near the end the screen is filled from above: the match is on it, not necessarily first.
    expect(texts(buf, v).some((t) => t.includes("error 30"))).toBe(true);
    expect(matchStats(buf, v)).toEqual({ total: 3, ordinal: 1 });
    v = searchStep(v, buf, VP, "older").view;
    expect(texts(buf, v)[0]).toBe("output  error 20");
    expect(matchStats(buf, v)).toEqual({ total: 3, ordinal: 2 });
    v = searchStep(v, buf, VP, "older").view;
    v = searchStep(v, buf, VP, "older").view;
    expect(matchStats(buf, v)?.ordinal).toBe(1);
    v = searchStep(v, buf, VP, "newer").view;
    expect(matchStats(buf, v)?.ordinal).toBe(3);
  });

  it("keeps its match count right as lines arrive, join onto the last one and are evicted", () => {
    const { buf, output, add } = buffer(20);
    for (let i = 1; i <= 10; i++) output(i % 5 === 0 ? `error ${i}\n` : `ok ${i}\n`);
    const v = setQuery(initialPaneView(), buf, "error").view;
    expect(matchStats(buf, v)).toEqual({ total: 2, ordinal: 1 });
    // New lines: one more match, and the current one is now second from the newest.
    output("error 11\n");
    output("ok 12\n");
    expect(matchStats(buf, v)).toEqual({ total: 3, ordinal: 2 });
    // Prompt text joins onto the newest entry: a match made by the join counts.
    add({ kind: "prompt_progress", id: null, data: { type: "text", content: "the err" } });
    expect(matchStats(buf, v)?.total).toBe(3);
    add({ kind: "prompt_progress", id: null, data: { type: "text", content: "or is fixed" } });
    expect(matchStats(buf, v)?.total).toBe(4);
    // The oldest matches leave with their entries (capacity 20).
    for (let i = 0; i < 17; i++) output(`ok later ${i}\n`);
    expect(matchStats(buf, v)?.total).toBe(2);
    expect(searchStep(v, buf, VP, "older").found).toBe(true);
  });

  it("says so when nothing matches", () => {
    const { buf, output } = buffer();
    output("hello");
    const r = setQuery(initialPaneView(), buf, "absent");
    expect(r.found).toBe(false);
    expect(matchStats(buf, r.view)).toEqual({ total: 0, ordinal: 0 });
  });
});
