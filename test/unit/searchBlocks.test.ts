import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../src/protocol/events.js";
import type { TimelineEntry } from "../../src/store/streams/entry.js";
import {
  appendEvent,
  DEFAULT_MAX_ENTRY_CHARS,
  materializeItem,
  newWriter,
} from "../../src/store/streams/timeline.js";
import { TimelineBuffer } from "../../src/store/streams/timelineBuffer.js";
import {
  type EntrySource,
  initialPaneView,
  matchStats,
  prepareSearch,
  setQuery,
  toggleKind,
} from "../../src/ui/model/paneView.js";
import { entryMatches } from "../../src/ui/model/timelineLines.js";

/** A scrollback filled as a stream fills it (undecoded slots), counting what is decoded. */
function buffer(capacity: number) {
  let decoded = 0;
  const buf = new TimelineBuffer(capacity, (kind, data, id, seq, at) => {
    decoded++;
    return materializeItem(kind, data, id, seq, at, DEFAULT_MAX_ENTRY_CHARS);
  });
  const w = newWriter();
  let id = 0;
  const add = (ev: SessionEvent) => {
    id++;
    appendEvent(buf, w, { ...ev, id: String(id) }, 1_700_000_000_000 + id);
  };
  const output = (text: string) => add({ kind: "process_output", id: null, data: { text } });
  const file = (path: string) =>
    add({ kind: "file_changed", id: null, data: { path, action: "modified" } });
  return { buf, output, file, add, decoded: () => decoded };
}

/** The same search entry by entry (what matchSeqs did before blocks), for comparison. */
function scanned(buf: TimelineBuffer, q: string, hidden: readonly string[] = []): number[] {
  const out: number[] = [];
  for (let i = 0; i < buf.size; i++) {
    const e = buf.get(i) as TimelineEntry;
    if (!hidden.includes(e.kind) && entryMatches(e, q)) out.push(e.seq);
  }
  return out;
}

/** The same scrollback, seen without `peek`: searched entry by entry. */
function plain(buf: TimelineBuffer): EntrySource {
  return {
    get size() {
      return buf.size;
    },
    get: (i) => buf.get(i),
  };
}

describe("search over a large scrollback, block by block", () => {
  it("finds every match across blocks, the oldest and the newest, without keeping entries decoded", () => {
    // Undecoded slots, as a stream's items arrive: each decodes to an output line.
    let decoded = 0;
    const buf = new TimelineBuffer(5000, (_kind, data, id, seq, at) => {
      decoded++;
      return { seq, id, kind: "output", at, text: data };
    });
    let seq = 0;
    for (let i = 1; i <= 3000; i++) {
      seq++;
      buf.pushRaw(0, i % 700 === 1 ? `Needle ${i}` : `hay ${i}`, null, seq, seq);
    }
    buf.pushRaw(0, "needle at the end", null, ++seq, seq);
    const r = setQuery(initialPaneView(), buf, "NEEDLE");
    expect(r.found).toBe(true);
    // 1, 701, 1401, 2101, 2801 and the newest, across six blocks of 512.
    expect(matchStats(buf, r.view)).toEqual({ total: 6, ordinal: 1 });
    expect(r.view.matchSeq).toBe(seq);
    const found = setQuery(initialPaneView(), buf, "needle 2101");
    expect(found.view.matchSeq).toBe(2101);
    expect(matchStats(buf, found.view)).toEqual({ total: 1, ordinal: 1 });
    // Each entry read once for the index and not kept: reading them all decodes them again.
    const byIndex = decoded;
    expect(byIndex).toBeLessThan(3001 + 100);
    expect(buf.toArray()).toHaveLength(3001);
    expect(decoded - byIndex).toBeGreaterThan(2900);
    // The same matches as the scrollback searched entry by entry.
    expect(scanned(buf, "needle")).toEqual([1, 701, 1401, 2101, 2801, seq]);
  });

  it("drops what is evicted, finds what arrives after, and honours hidden kinds", () => {
    const { buf, output, file } = buffer(1200);
    for (let i = 1; i <= 1100; i++) {
      if (i % 100 === 0) file(`src/needle${i}.ts`);
      else output(`line ${i} needle? ${i % 250 === 0 ? "needle" : "no"}\n`);
    }
    const q = "needle";
    const v = setQuery(initialPaneView(), buf, q).view;
    expect(matchStats(buf, v)?.total).toBe(scanned(buf, q).length);
    // Evict the oldest 600 (whole blocks and part of one), add matches after.
    for (let i = 1; i <= 600; i++) output(i % 300 === 0 ? "late needle\n" : "late hay\n");
    // A new search (a different query) reads the blocks again from their index.
    const w = setQuery(initialPaneView(), buf, "needle").view;
    expect(matchStats(buf, w)?.total).toBe(scanned(buf, q).length);
    const both = setQuery(initialPaneView(), buf, "needle1").view;
    expect(matchStats(buf, both)?.total).toBe(scanned(buf, "needle1").length);
    // Files hidden: only the output lines count.
    const hidden = toggleKind(initialPaneView(), "file");
    const h = setQuery(hidden, buf, q).view;
    expect(matchStats(buf, h)?.total).toBe(scanned(buf, q, ["file"]).length);
    // The same as a scrollback searched entry by entry.
    expect(matchStats(plain(buf), h)?.total).toBe(matchStats(buf, h)?.total);
  });

  it("starts over when the scrollback is emptied and filled again", () => {
    const { buf, output } = buffer(2000);
    for (let i = 1; i <= 1500; i++) output(i === 3 ? "needle\n" : "hay\n");
    expect(matchStats(buf, setQuery(initialPaneView(), buf, "needle").view)?.total).toBe(1);
    buf.clear();
    for (let i = 1; i <= 1500; i++) output(i % 500 === 0 ? "needle\n" : "hay\n");
    expect(matchStats(buf, setQuery(initialPaneView(), buf, "hay").view)?.total).toBe(1497);
    expect(matchStats(buf, setQuery(initialPaneView(), buf, "needle").view)?.total).toBe(3);
  });

  it("opening the search box builds the text a slice per turn; the search then reads almost nothing", async () => {
    let decoded = 0;
    const buf = new TimelineBuffer(20_000, (_kind, data, id, seq, at) => {
      decoded++;
      return { seq, id, kind: "output", at, text: data };
    });
    for (let seq = 1; seq <= 10_000; seq++) buf.pushRaw(0, `line ${seq}`, null, seq, seq);
    prepareSearch(buf);
    prepareSearch(buf); // opened twice: one preparation
    expect(decoded).toBe(0);
    const turn = () => new Promise((r) => setImmediate(r));
    await turn();
    // One slice: a few blocks, not the scrollback.
    expect(decoded).toBeGreaterThan(0);
    expect(decoded).toBeLessThan(3000);
    for (let i = 0; i < 100 && decoded < 9_999; i++) await turn();
    expect(decoded).toBeGreaterThanOrEqual(9_999);
    const before = decoded;
    const r = setQuery(initialPaneView(), buf, "line 42");
    const total = matchStats(buf, r.view)?.total;
    // The search itself: a binary search or two and the newest entry, not 10,000 decodes.
    expect(decoded - before).toBeLessThan(100);
    expect(r.view.matchSeq).toBe(4299);
    expect(total).toBe(scanned(buf, "line 42").length);
  });
});
