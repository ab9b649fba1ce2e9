import { EventEmitter } from "node:events";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DiffWriter } from "../../src/cli/tui/diffWriter.js";
import { ScreenModel, WIDE_TAIL, type WriteEffects } from "../../src/cli/tui/screenModel.js";
import { terminalCaps, terminalOutput } from "../../src/cli/tui/terminal.js";
import { createRedactor } from "../../src/text/redact.js";
import { displayWidth } from "../../src/text/wrap.js";
import { ASCII_GLYPHS, toAscii } from "../../src/ui/context/theme.js";

/**
 * The terminal writer: whatever Ink writes, the bytes it sends leave a terminal showing
 * exactly Ink's frame, and a frame that changes a few cells costs a few bytes.
 */

const BSU = "\u001b[?2026h";
const ESU = "\u001b[?2026l";

/** A terminal in memory: every byte written is applied to a screen model. */
class FakeTerminal extends EventEmitter {
  readonly screen: ScreenModel;
  written = "";
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
    this.screen = new ScreenModel(columns, rows);
  }
  write(data: string): boolean {
    this.written += data;
    this.screen.write(data, fx());
    return true;
  }
  resize(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    this.screen.resize(columns, rows);
    this.emit("resize");
  }
}

function fx(): WriteEffects {
  return { passthrough: [], syncStart: false, syncEnd: false };
}

/** What Ink's standard renderer writes for a frame: erase the last one, write this one. */
class InkLike {
  private lines = 0;
  constructor(private readonly w: { write(data: string): unknown }) {}
  frame(text: string): void {
    let erase = "";
    for (let i = 0; i < this.lines; i++) {
      erase += `\u001b[2K${i < this.lines - 1 ? "\u001b[1A" : ""}`;
    }
    if (this.lines > 0) erase += "\u001b[G";
    this.w.write(BSU);
    this.w.write(`${erase}${text}\n`);
    this.w.write(ESU);
    this.lines = text.split("\n").length + 1;
  }
}

/** The screen a frame leaves on a blank terminal: the reference. */
function screenOf(text: string, cols: number, rows: number): ScreenModel {
  const s = new ScreenModel(cols, rows);
  s.write(`${text}\n`, fx());
  return s;
}

function sameCells(a: ScreenModel, b: ScreenModel): boolean {
  for (let y = 0; y < a.rows; y++) {
    for (let x = 0; x < a.cols; x++) {
      if (a.chars[y]?.[x] !== b.chars[y]?.[x] || a.styles[y]?.[x] !== b.styles[y]?.[x]) {
        return false;
      }
    }
  }
  return true;
}

describe("screen model", () => {
  it("reads text, colours, wide characters, cursor moves and erasing as a terminal does", () => {
    const s = new ScreenModel(10, 3);
    s.write("ab\u001b[31mcd\u001b[39m界e\r\nxyz\u001b[1;9Hq\u001b[2;2H\u001b[K", fx());
    // rowText leaves out the wide character's second cell.
    expect(s.rowText(0)).toBe("abcd界e q ");
    expect(s.chars[0]?.[5]).toBe(WIDE_TAIL);
    expect(s.styles[0]?.[2]).toBe("31");
    expect(s.styles[0]?.[4]).toBe("");
    expect(s.rowText(1)).toBe("x         ");
    // Writing over half of a wide character blanks the other half.
    s.write("\u001b[1;6HZ", fx());
    expect(s.rowText(0)).toBe("abcd Ze q ");
  });

  it("hands back what it does not draw: private modes, the bell, sync markers", () => {
    const s = new ScreenModel(10, 3);
    const effects = fx();
    s.write("\u001b[?25l\u0007\u001b[?2026h\u001b[?2026l", effects);
    expect(effects.passthrough).toEqual(["\u001b[?25l", "\u0007"]);
    expect(effects.syncStart && effects.syncEnd).toBe(true);
  });

  it("keeps an escape sequence cut between two writes", () => {
    const s = new ScreenModel(10, 2);
    s.write("a\u001b[3", fx());
    s.write("1mb", fx());
    expect(s.rowText(0)).toBe("ab        ");
    expect(s.styles[0]?.[1]).toBe("31");
  });
});

describe("terminal writer", () => {
  it("sends nothing for a frame that did not change, and a few bytes for one digit", () => {
    const term = new FakeTerminal(80, 10);
    const w = new DiffWriter(term);
    const ink = new InkLike(w);
    const frame = (n: number) =>
      [`\u001b[36mheader\u001b[39m ${"x".repeat(60)}`, `rate ${n} ev/s`, "─".repeat(80)].join("\n");
    ink.frame(frame(1));
    const first = term.written.length;
    ink.frame(frame(1));
    expect(term.written.length).toBe(first);
    ink.frame(frame(2));
    const delta = term.written.slice(first);
    expect(delta.length).toBeLessThan(40);
    expect(sameCells(term.screen, screenOf(frame(2), 80, 10))).toBe(true);
    // Ink wrote the whole frame three times; the terminal got one frame and a digit.
    expect(w.stats.bytesOut).toBeLessThan(w.stats.bytesIn / 2);
  });

  it("leaves the terminal showing exactly each frame, whatever the frames (property)", () => {
    const cell = fc.constantFrom(
      "a",
      "b",
      " ",
      "·",
      "─",
      "界",
      "é",
      "\u001b[31m",
      "\u001b[1m",
      "\u001b[0m",
    );
    // Ink closes every style it opens by the end of each line.
    const line = fc.array(cell, { maxLength: 30 }).map((cs) => `${cs.join("")}\u001b[0m`);
    const frame = fc.array(line, { minLength: 1, maxLength: 7 }).map((ls) => ls.join("\n"));
    fc.assert(
      fc.property(fc.array(frame, { minLength: 1, maxLength: 6 }), (frames) => {
        const term = new FakeTerminal(24, 9);
        const w = new DiffWriter(term);
        const ink = new InkLike(w);
        for (const f of frames) {
          // Ink cuts lines to the width; so does the reference, by the same terminal rules.
          ink.frame(f);
          if (!sameCells(term.screen, screenOf(f, 24, 9))) return false;
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it("repaints everything after a resize, and only ASCII on an ASCII terminal", () => {
    const term = new FakeTerminal(40, 6);
    const w = new DiffWriter(term, { ascii: true });
    const ink = new InkLike(w);
    ink.frame("╭──╮ ● live · ♥ 3s\n│界│ ✓ done…");
    expect(term.written).toMatch(/^[\u0000-\u007f]*$/);
    expect(term.screen.rowText(0).trimEnd()).toBe("+--+ * live . h 3s");
    expect(term.screen.rowText(1).trimEnd()).toBe("|??| v done~");
    const before = term.written.length;
    term.resize(30, 6);
    ink.frame("╭──╮ ● live · ♥ 3s\n│界│ ✓ done…");
    expect(term.written.slice(before)).toContain("\u001b[2J");
    expect(term.screen.rowText(0).trimEnd()).toBe("+--+ * live . h 3s");
  });
});

describe("what reaches the terminal", () => {
  const KEY = "ask_live_Zq8vN2pLx4Rt7Wm9Yc3Bf6Hd1Kj5Gs0E";
  const HALF = Math.ceil(KEY.length / 2);
  const leaked = (text: string) => {
    const plain = text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "");
    const found: string[] = [];
    for (let i = 0; i + HALF <= KEY.length; i++) {
      if (plain.includes(KEY.slice(i, i + HALF))) found.push(KEY.slice(i, i + HALF));
    }
    return found;
  };

  it("masks the key before the cell diff: a key drawn a cell per frame never shows", () => {
    for (const caps of [
      { altScreen: true, ascii: false },
      { altScreen: true, ascii: true },
      { altScreen: false, ascii: true },
    ]) {
      const term = new FakeTerminal(80, 6);
      const out = terminalOutput(term, caps, createRedactor([KEY]));
      const ink = new InkLike(out.stream);
      // Each frame differs from the last by one cell: after the diff, a write carries one
      // character of the key, which no guard behind the writer could recognise.
      for (let n = 1; n <= KEY.length; n++) ink.frame(`header\nkey: ${KEY.slice(0, n)}\nfooter`);
      out.dispose();
      expect(leaked(term.written), JSON.stringify(caps)).toEqual([]);
      if (caps.altScreen) {
        const mark = caps.ascii ? "*" : "•";
        expect(term.screen.rowText(1).trimEnd()).toBe(`key: ${mark.repeat(KEY.length)}`);
      }
    }
  });
});

describe("terminal capabilities", () => {
  it("ASCII for TERM=dumb or a locale without UTF-8; the alternate screen unless TERM=dumb", () => {
    expect(terminalCaps({ TERM: "xterm-256color", LANG: "en_US.UTF-8" })).toEqual({
      ascii: false,
      altScreen: true,
    });
    expect(terminalCaps({ TERM: "dumb", LANG: "C.UTF-8" })).toEqual({
      ascii: true,
      altScreen: false,
    });
    expect(terminalCaps({ TERM: "xterm", LANG: "C" }).ascii).toBe(true);
    // LC_ALL wins over LC_CTYPE, which wins over LANG.
    expect(terminalCaps({ TERM: "xterm", LC_ALL: "POSIX", LANG: "en_US.UTF-8" }).ascii).toBe(true);
    expect(terminalCaps({ TERM: "xterm", LC_CTYPE: "de_DE.utf8", LANG: "C" }).ascii).toBe(false);
    // Nothing set: today's terminals are UTF-8.
    expect(terminalCaps({ TERM: "xterm" }).ascii).toBe(false);
  });

  it("every glyph of the table is as wide as what it replaces", () => {
    for (const [glyph, ascii] of Object.entries(ASCII_GLYPHS)) {
      expect(displayWidth(ascii), glyph).toBe(displayWidth(glyph));
      expect(ascii).toMatch(/^[\u0020-\u007e]+$/);
    }
    expect(toAscii("界 é ● \u001b[31mred\u001b[0m")).toBe("?? ? * \u001b[31mred\u001b[0m");
  });
});
