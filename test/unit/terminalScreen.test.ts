import { describe, expect, it } from "vitest";
import { FramePainter, rowAnsi, sgrOf } from "../../src/text/terminal/ansiFrame.js";
import { ATTR, DEFAULT_COLOUR } from "../../src/text/terminal/cells.js";
import { RawFilter } from "../../src/text/terminal/rawFilter.js";
import { TerminalScreen } from "../../src/text/terminal/screen.js";

/**
 * The sandbox's output goes through the emulator and only cells come out: what a hostile
 * shell prints never reaches the user's terminal as a control sequence, and never makes the
 * client answer on the user's behalf.
 */

async function screenOf(output: string | Uint8Array, cols = 40, rows = 6) {
  const s = new TerminalScreen({ cols, rows });
  s.write(output);
  await s.flush();
  return s;
}

/** Every escape in a painted frame, stripped of the ones this client makes itself. */
function foreignEscapes(frame: string): string[] {
  const ours = /\x1b\[(?:[0-9;]*[mHJK]|\?25[hl])/g;
  return frame.replace(ours, "").match(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g) ?? [];
}

describe("TerminalScreen", () => {
  it("draws colours and attributes from cells: palette, 256 and true colour", async () => {
    const s = await screenOf("\x1b[1;31mred\x1b[0m \x1b[38;5;202mo\x1b[48;2;1;2;3mx\x1b[0m");
    const row = s.view()[0] ?? [];
    expect(row[0]).toMatchObject({ text: "red", fg: 1, attrs: ATTR.bold });
    const o = row.find((seg) => seg.text.startsWith("o"));
    expect(o?.fg).toBe(202);
    expect(rowAnsi(row)).toContain("\x1b[0;1;31mred");
    expect(rowAnsi(row)).toContain("48;2;1;2;3");
    expect(sgrOf({ fg: DEFAULT_COLOUR, bg: 9, attrs: 0 })).toBe("\x1b[0;101m");
  });

  it("a full-screen program draws on the alternate screen, and leaving it restores the shell's", async () => {
    const s = await screenOf("$ top\r\n\x1b[?1049h\x1b[H\x1b[2JPID USER %CPU\r\n1 root 0.0");
    expect(s.alternate).toBe(true);
    expect(s.text()[0]).toBe("PID USER %CPU");
    s.write("\x1b[?1049l");
    await s.flush();
    expect(s.alternate).toBe(false);
    expect(s.text()[0]).toBe("$ top");
  });

  it("clipboard, title, hyperlink and DCS sequences are dropped; device queries are not answered", async () => {
    const hostile =
      "\x1b]52;c;cm0gLXJmIH4=\x07" + // OSC 52: write "rm -rf ~" to the clipboard
      "\x1b]0;pwned title\x07\x1b]2;other\x1b\\" + // titles
      "\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\" + // a hyperlink
      '\x1bP$q"p\x1b\\' + // DECRQSS: asks for a reply
      "\x1b[c\x1b[5n\x1b[6n\x1b[>c" + // DA, DSR, cursor position, DA2
      "\x1b[21t\x1b]10;?\x07" + // window title report, colour query
      "\u202eafter";
    const s = await screenOf(hostile);
    expect(s.text()[0]).toBe("linkafter");
    expect(s.dropped.osc).toBeGreaterThanOrEqual(5);
    expect(s.dropped.replies).toBeGreaterThanOrEqual(3);
    const frame = new FramePainter().paint(s);
    expect(foreignEscapes(frame)).toEqual([]);
    expect(frame).not.toContain("evil.example");
    expect(frame).not.toContain("pwned");
    expect(frame).not.toContain("\u202e");
  });

  it("invalid UTF-8 becomes text or nothing, never a control", async () => {
    const bytes = new Uint8Array([
      0x41, 0xff, 0xfe, 0xc3, 0x28, 0x9b, 0x33, 0x31, 0x6d, 0x42, 0xed, 0xa0, 0x80, 0x43,
    ]);
    const s = await screenOf(bytes);
    const line = s.text()[0] ?? "";
    expect(line).toMatch(/^A.*B.*C$/);
    expect(foreignEscapes(new FramePainter().paint(s))).toEqual([]);
  });

  it("scrollback is capped and searchable; a big burst is bounded and the drop is counted", async () => {
    const s = new TerminalScreen({
      cols: 40,
      rows: 5,
      scrollback: 100,
      maxPendingBytes: 64 * 1024,
    });
    for (let i = 0; i < 300; i++) s.write(`line ${i}\r\n`);
    await s.flush();
    expect(s.scrollbackLines).toBe(100);
    const hits = s.search("line 250");
    expect(hits).toHaveLength(1);
    expect(s.text(hits[0])[0]).toBe("line 250");
    // 1 GB offered at once: what the emulator cannot take is dropped, not queued.
    const mb = "x".repeat(1024 * 1024);
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 1024; i++) s.write(mb);
    expect(s.dropped.bytes).toBeGreaterThan(1000 * 1024 * 1024);
    await s.flush();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(200 * 1024 * 1024);
    s.dispose();
  });

  it("the painter writes only rows that changed", async () => {
    const s = await screenOf("one\r\ntwo", 10, 3);
    const p = new FramePainter();
    expect(p.paint(s)).toContain("one");
    s.write("!");
    await s.flush();
    const second = p.paint(s);
    expect(second).toContain("two!");
    expect(second).not.toContain("one");
  });
});

describe("RawFilter (attach --raw)", () => {
  it("drops OSC, DCS and APC strings whole, across chunk boundaries, and keeps the rest", () => {
    const f = new RawFilter();
    const parts = [
      "a\x1b]52;c;aGk=",
      "\x07b\x1b[31mc\x1b]0;ti",
      "tle\x1b\\d\x1bP1$r\x1b\\e\x9d8;;x\x9cf\x1b_apc\x1b\\g",
    ];
    const out = parts
      .map((p) => Buffer.from(f.push(Buffer.from(p, "latin1"))).toString("latin1"))
      .join("");
    expect(out).toBe("ab\x1b[31mcdefg");
    expect(f.dropped).toBe(5);
  });
});
