import { describe, expect, it } from "vitest";
import { isClean, sanitize, stripAnsi } from "../../src/text/sanitize.js";

const ESC = "\x1b";
const BEL = "\x07";
const ST = `${ESC}\\`;

describe("sanitize", () => {
  it("removes an OSC 52 clipboard write, whether ended by BEL or ST", () => {
    expect(sanitize(`a${ESC}]52;c;ZXZpbA==${BEL}b`)).toBe("ab");
    expect(sanitize(`a${ESC}]52;c;ZXZpbA==${ST}b`)).toBe("ab");
  });

  it("removes an OSC 0 window-title change", () => {
    expect(sanitize(`${ESC}]0;pwned${BEL}hello`)).toBe("hello");
  });

  it("removes an unterminated OSC up to the end of the input", () => {
    expect(sanitize(`ok${ESC}]52;c;c2VjcmV0 and everything after`)).toBe("ok");
  });

  it("does not let an OSC swallow a following escape sequence's text", () => {
    // ESC inside an OSC ends it; the CSI that follows is removed as a whole.
    expect(sanitize(`${ESC}]0;t${ESC}[2Jvisible`)).toBe("visible");
  });

  it("removes cursor moves, clear screen and other CSI sequences", () => {
    expect(sanitize(`${ESC}[2J${ESC}[H${ESC}[10;20Hx${ESC}[3Ay${ESC}[?25l${ESC}[?1049h`)).toBe(
      "xy",
    );
  });

  it("removes 8-bit CSI and OSC introducers with their sequence", () => {
    expect(sanitize("a\u009b2Jb")).toBe("ab");
    expect(sanitize("a\u009d0;title\u0007b")).toBe("ab");
    expect(sanitize("a\u009d0;title\u009cb")).toBe("ab");
  });

  it("removes DCS, APC, PM and SOS strings, terminated or not", () => {
    expect(sanitize(`a${ESC}P1$r0m${ST}b`)).toBe("ab");
    expect(sanitize(`a${ESC}_Gf=100;AAAA${ST}b`)).toBe("ab");
    expect(sanitize(`a${ESC}^privacy${ST}b`)).toBe("ab");
    expect(sanitize(`a${ESC}Xstring${ST}b`)).toBe("ab");
    expect(sanitize(`a${ESC}Pno end`)).toBe("a");
    expect(sanitize("a\u0090dcs\u009cb")).toBe("ab");
  });

  it("removes two-character escapes (reset, save cursor, charset)", () => {
    expect(sanitize(`a${ESC}cb${ESC}7c${ESC}8d${ESC}(Be`)).toBe("abcde");
    expect(sanitize(`trailing${ESC}`)).toBe("trailing");
  });

  it("removes C0 controls, BEL, DEL and C1 controls but keeps newline and tab", () => {
    expect(sanitize(`a${BEL}b\x00c\x08d\x7fe\u0085f\u0081g\th\ni\x0cj`)).toBe("abcdefg\th\nij");
  });

  it("turns CRLF and lone CR into newlines", () => {
    expect(sanitize("one\r\ntwo\rthree")).toBe("one\ntwo\nthree");
    expect(sanitize("10%\r20%\r")).toBe("10%\n20%\n");
  });

  it("keeps printable text, emoji and CJK untouched", () => {
    const s = "héllo 世界 🎉👩‍👩‍👧 ✓ — «quotes» ∑";
    expect(sanitize(s)).toBe(s);
    expect(sanitize(s, { keepSgr: true })).toBe(s);
  });

  it("with keepSgr keeps colours but strips everything else", () => {
    const red = `${ESC}[31m`;
    const reset = `${ESC}[0m`;
    const truecolor = `${ESC}[38;2;255;0;0m`;
    const input = `${red}FAIL${reset} ${truecolor}x${ESC}[m${ESC}]52;c;AAAA${BEL}${ESC}[2J${ESC}[1;1H done`;
    expect(sanitize(input, { keepSgr: true })).toBe(
      `${red}FAIL${reset} ${truecolor}x${ESC}[m done`,
    );
    expect(sanitize(input)).toBe("FAIL x done");
  });

  it("with keepSgr drops look-alikes that are not plain SGR", () => {
    // Private parameter bytes, intermediates and the 8-bit form are not kept.
    expect(sanitize(`${ESC}[?31m${ESC}[31 m\u009b31mz`, { keepSgr: true })).toBe("z");
  });
});

describe("stripAnsi", () => {
  it("removes escape sequences but keeps other characters", () => {
    expect(stripAnsi(`${ESC}[1mbold${ESC}[22m\r\n${ESC}]8;;http://x${ST}link`)).toBe(
      "bold\r\nlink",
    );
    expect(stripAnsi("plain")).toBe("plain");
  });
});

describe("isClean", () => {
  it("tells text that needs sanitizing from text that does not", () => {
    expect(isClean("plain\ttext\n")).toBe(true);
    expect(isClean(`x${ESC}[31m`)).toBe(false);
    expect(isClean("a\rb")).toBe(false);
  });
});
