import { afterEach, describe, expect, it } from "vitest";
import { fleetRows } from "../../src/ui/model/geometry.js";
import {
  frameHeight,
  KEYS,
  mountOnReference,
  pressKey,
  STREAMS_LIVE_MS,
  typeText,
  unmountReference,
  waitForContent,
} from "../helpers/ui.js";

/** The fleet view: its own key, live columns, the streams it keeps, a thousand rows. */

afterEach(unmountReference);

const SIZE = { columns: 160, rows: 30 };

describe("fleet view", () => {
  it("v shows every session with live columns; the rows in view stream; Enter opens a pane", async () => {
    const { fx, h } = await mountOnReference(SIZE);
    const [a, b] = fx.ids as [string, string];
    const name = fx.server.sessions()[0]?.name as string;
    await waitForContent(h, "4 shown of 4 loaded");
    await pressKey(h, "v");
    let frame = await waitForContent(
      h,
      /Fleet 4\/4 · streams 4 live of 4 \(cap 50\)/,
      STREAMS_LIVE_MS,
    );
    // At 160 columns the repository and the prompts and cost have columns too.
    expect(frame).toMatch(
      /state\s+session\s+name\s+agent\s+repository\s+activity\s+prompts · \$\s+ev\/min 10m\s+files\s+current step/,
    );
    expect(frame).toContain("destroyed and error sessions hidden (D shows)");
    expect(frame).toMatch(new RegExp(`● ● active\\s+${a}\\s+${name}\\s+claude-code`));
    // A session that waited from the start is marked with its reason; its row says paused.
    expect(frame).toMatch(/ ⏸ ● ⏸ paused/);

    // Live from the stream: activity, the sparkline, files, the current step.
    fx.server.emit(b, "prompt_progress", { type: "text", content: "Reading the config loader. " });
    fx.server.emit(b, "prompt_progress", { type: "text", content: "Now fixing the retry loop" });
    fx.server.emit(b, "file_changed", { path: "src/retry.ts", action: "modified" });
    frame = await waitForContent(h, "Now fixing the retry loop");
    const row = frame.split("\n").find((l) => l.includes(b)) ?? "";
    expect(row).toMatch(
      /demo\/docs\s+just now\s+\d+ · \$\d+\.\d\d\s+·········█\s+1\s+Now fixing the retry loop/,
    );

    // Enter on the second row: its pane, focused, over the list.
    await pressKey(h, "j");
    await pressKey(h, "enter");
    frame = await waitForContent(h, `╔═ 1 ${b}`);
    expect(frame).toContain("Sessions 4/4");
    // Back to the fleet and out with Esc.
    await pressKey(h, "v");
    await waitForContent(h, "Fleet 4/4");
    await pressKey(h, "escape");
    await waitForContent(h, "Sessions 4/4");
  });

  it("a session that fails while shown keeps its row, and the subtitle says so instead of 'hidden'", async () => {
    const { fx, h } = await mountOnReference(SIZE, { props: { options: { startInFleet: true } } });
    const [a] = fx.ids as [string];
    let frame = await waitForContent(h, "Fleet 4/4");
    expect(frame).toContain("destroyed and error sessions hidden (D shows)");
    fx.server.setState(a, "error");
    // The record read again on its own (as a stream's state change does), not the list.
    await fx.services.sessions.getState().refreshSession(a);
    frame = await waitForContent(h, new RegExp(`✗ error\\s+${a}`));
    expect(frame).toContain(
      "destroyed and error sessions hidden, but 1 that changed since the list was read is shown (D shows all)",
    );
    expect(frame).not.toContain("destroyed and error sessions hidden (D shows)");
  });

  it("at 160×15 the rows out of view are said: ↓ N more, then ↑ N more at the end", async () => {
    const { h } = await mountOnReference(
      { columns: 160, rows: 15 },
      { server: { sessionCount: 12 }, props: { options: { startInFleet: true } } },
    );
    let frame = await waitForContent(h, /↓ \d+ more · 12 shown of 12/);
    const shownRows = (f: string) => f.split("\n").filter((l) => /ses_\w{8}/.test(l)).length;
    const inView = shownRows(frame);
    expect(inView).toBeLessThan(12);
    expect(frame).toContain(`↓ ${12 - inView} more · 12 shown of 12`);
    expect(frame).not.toContain("↑");
    for (let i = 0; i < 11; i++) await pressKey(h, "j");
    frame = await waitForContent(h, /↑ \d+ more · 12 shown of 12/);
    expect(frame).toContain(`↑ ${12 - shownRows(frame)} more · 12 shown of 12`);
    expect(frame).not.toMatch(/↓ \d+ more/);
  });

  it("filters and sorts like the list, and takes `a` to its own rows", async () => {
    const { fx, h } = await mountOnReference(SIZE, {
      server: { sessionCount: 6 },
      props: { options: { startInFleet: true } },
    });
    const paused = fx.server.sessions().filter((s) => s.state === "paused");
    await waitForContent(h, "Fleet 6/6");
    await pressKey(h, "/");
    await typeText(h, "state:paused");
    await pressKey(h, "enter");
    let frame = await waitForContent(h, `Fleet ${paused.length}/6`);
    for (const p of paused) expect(frame).toContain(p.id);
    expect(frame).toContain("filter: state:paused");
    await pressKey(h, "a");
    // The cursor is on the newest one already: `a` goes on to the next; seen, it keeps its
    // mark (it is still paused).
    frame = await waitForContent(h, new RegExp(`▸⏸ ● ⏸ paused\\s+${paused[1]?.id}`));
    // A pause does not call: its mark is its reason's glyph, dimmed. (Its stream, let go
    // while the filter hid it, comes back once the rows stay put.)
    frame = await waitForContent(
      h,
      new RegExp(` ⏸ ● ⏸ paused\\s+${paused[0]?.id}`),
      STREAMS_LIVE_MS,
    );
    // Still the fleet: `a` selected the row there.
    expect(frame).toContain("Fleet");
    await pressKey(h, "o");
    await waitForContent(h, "sort: created");
    // Esc drops the filter first (the list shares it), then leaves: never a silently
    // filtered list behind the fleet.
    await pressKey(h, "escape");
    frame = await waitForContent(h, "Fleet 6/6");
    expect(frame).toContain("Filters cleared");
    await pressKey(h, "escape");
    await waitForContent(h, "Sessions 6/6");
  });

  it("too narrow for every column: the columns keep their widths and the row's end is cut", async () => {
    const size = { columns: 60, rows: 20 };
    const { h } = await mountOnReference(size, { props: { options: { startInFleet: true } } });
    const frame = await waitForContent(h, /streams 4 live of 4/, STREAMS_LIVE_MS);
    const rows = frame.split("\n").filter((l) => /ses_[0-9a-z]{8}/.test(l));
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      expect(Array.from(row).length).toBeLessThanOrEqual(size.columns);
      // The id whole, then the name cut to its column, then the activity column in full.
      expect(row).toMatch(/ses_[0-9a-z]{8} \S[^║]{5}[… ] (just now|\d+\w ago|—)/);
    }
  });

  it("a thousand sessions: only the rows on screen are drawn, and streams stay within the cap", async () => {
    const { fx, h } = await mountOnReference(SIZE, {
      server: { sessionCount: 1000 },
      fleetStreams: 5,
    });
    // The views hide destroyed and error sessions (the catalogue holds them).
    const ids = fx.server
      .sessions()
      .filter((s) => s.state !== "destroyed" && s.state !== "error")
      .map((s) => s.id);
    const all = ids.length;
    // Every page is read once (ten of 100), before any scrolling.
    await waitForContent(h, `${all} shown of ${all} loaded`);
    await pressKey(h, "v");
    await waitForContent(h, /streams 5 live of 5 \(cap 5\)/, STREAMS_LIVE_MS);
    expect(fx.server.connections()).toBe(5);
    await waitForContent(h, `${all} shown of ${all}`);
    // Everything is loaded: G goes to the very last row.
    await pressKey(h, "G");
    const last = ids.at(-1) as string;
    const frame = await waitForContent(h, last);
    expect(frame).not.toContain(ids[0] as string);
    const rows = fleetRows(SIZE);
    const drawn = frame.split("\n").filter((l) => /ses_[a-z0-9]{8}/.test(l));
    expect(drawn).toHaveLength(rows);
    expect(frameHeight(frame)).toBeLessThanOrEqual(SIZE.rows - 1);
    // The new rows in view stream; the ones scrolled away were let go (the cap holds).
    await waitForContent(h, /streams 5 live of 5 \(cap 5\)/, STREAMS_LIVE_MS);
    // The service sees the ones let go close (a moment later than the client drops them).
    await waitForContent(h, () => fx.server.connections() === 5);
    await pressKey(h, KEYS.escape);
  });
});
