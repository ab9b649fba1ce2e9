import { describe, expect, it } from "vitest";
import { guardFrame } from "../../src/cli/tui/frameGuard.js";
import { unsafeIdReason } from "../../src/protocol/ids.js";
import { gitRequest, isSessionId, PATHS } from "../../src/protocol/index.js";
import { sanitizeRecord } from "../../src/store/sanitizeRecord.js";
import { limitDepth, TOO_DEEP, toJsonText } from "../../src/text/json.js";
import { createRedactor, REDACTED } from "../../src/text/redact.js";
import { cutText, foldLines, sanitize, sanitizeLine } from "../../src/text/sanitize.js";

const KEY = "ask_live_Zq8vN2pLx4Rt7Wm9Yc3Bf6Hd1Kj5Gs0E";
const HALF = Math.ceil(KEY.length / 2);

function pieces(text: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + HALF <= KEY.length; i++) {
    const p = KEY.slice(i, i + HALF);
    if (text.includes(p)) found.push(p);
  }
  return found;
}

describe("sanitize: Trojan Source and line separators", () => {
  it("shows every bidi control as a visible escape instead of obeying it", () => {
    expect(sanitize("src/\u202etxt.exe")).toBe("src/<U+202E>txt.exe");
    expect(sanitize("a\u2066b\u2069c\u200fd\u061c")).toBe("a<U+2066>b<U+2069>c<U+200F>d<U+061C>");
    for (const c of [
      "\u202a",
      "\u202b",
      "\u202c",
      "\u202d",
      "\u202e",
      "\u2066",
      "\u2067",
      "\u2068",
      "\u2069",
    ]) {
      expect(sanitize(`x${c}y`)).toMatch(/^x<U\+[0-9A-F]{4}>y$/);
    }
  });

  it("treats U+2028 and U+2029 as line ends", () => {
    expect(sanitize("a\u2028b\u2029c")).toBe("a\nb\nc");
  });

  it("keeps bidi escapes visible with keepSgr too", () => {
    expect(sanitize("\x1b[31mred\u202e\x1b[0m", { keepSgr: true })).toBe(
      "\x1b[31mred<U+202E>\x1b[0m",
    );
  });
});

describe("sanitizeLine: single-line places", () => {
  it("folds every line end visibly, drops trailing ones, turns tabs into spaces", () => {
    expect(sanitizeLine("title\nses_fake  active\r\nrow\tX\n\n")).toBe(
      "title ⏎ ses_fake  active ⏎ row X",
    );
    expect(sanitizeLine("a\u2028b")).toBe("a ⏎ b");
    expect(sanitizeLine("a\x1b[2J\nb")).toBe("a ⏎ b");
  });

  it("leaves plain text as it is", () => {
    const s = "nothing to do here ✓";
    expect(sanitizeLine(s)).toBe(s);
    expect(foldLines(s)).toBe(s);
  });

  it("cutText cuts with a marker and never splits a surrogate pair", () => {
    expect(cutText("abcdef", 10)).toBe("abcdef");
    expect(cutText("abcdef", 3)).toBe("abc… [3 more characters]");
    expect(cutText("ab🎉cd", 3)).toBe("ab… [4 more characters]");
  });
});

describe("toJsonText", () => {
  it("escapes C1, DEL, bidi and line separators, and the JSON means the same", () => {
    const value = { t: "a\x9b2J\x7f\u202e\u2028b", esc: "\x1b[2J" };
    const text = toJsonText(value);
    expect(text).not.toMatch(/[\x00-\x1f\x7f-\x9f\u2028\u202e]/);
    expect(JSON.parse(text)).toEqual(value);
  });

  it("writes data nested deeper than JSON.stringify can recurse instead of crashing", () => {
    const depth = 200_000;
    const deep = JSON.parse(`${"[".repeat(depth)}1${"]".repeat(depth)}`) as unknown;
    const text = toJsonText({ deep });
    expect(text).toContain(TOO_DEEP);
    expect(() => JSON.parse(text)).not.toThrow();
  });

  it("limitDepth keeps shallow values as they are", () => {
    expect(limitDepth({ a: [1, { b: "c" }] })).toEqual({ a: [1, { b: "c" }] });
    expect(limitDepth({ a: { b: 1 } }, 1)).toEqual({ a: TOO_DEEP });
  });
});

describe("key redaction", () => {
  const r = createRedactor([KEY]);

  it("redacts the whole key and any piece of half its length or more", () => {
    expect(r.redact(`x ${KEY} y`)).toBe(`x ${REDACTED} y`);
    const cutLeft = KEY.slice(3);
    const cutRight = KEY.slice(0, HALF);
    expect(pieces(r.redact(`…${cutLeft}|${cutRight}…`))).toEqual([]);
    // Shorter than half: not the key in any useful sense, and kept (a prefix like ask_live_).
    expect(r.redact(`id ${KEY.slice(0, 9)} here`)).toBe(`id ${KEY.slice(0, 9)} here`);
  });

  it("finds the key with escape sequences between its characters", () => {
    const striped = [...KEY].map((c) => `\x1b[3${c.charCodeAt(0) % 8}m${c}`).join("");
    const out = r.redact(`${striped}\x1b[0m`);
    expect(pieces(out.replace(/\x1b\[[0-9;]*m/g, ""))).toEqual([]);
    // The colour sequences stay, so the colours still reset.
    expect(out.endsWith("\x1b[0m")).toBe(true);
  });

  it("mask keeps the width, so a laid-out frame keeps its columns", () => {
    const line = `│ ${KEY.slice(5)} │`;
    const masked = r.mask(line);
    expect(masked.length).toBe(line.length);
    expect(pieces(masked)).toEqual([]);
    expect(masked.startsWith("│ ")).toBe(true);
    expect(masked.endsWith(" │")).toBe(true);
  });

  it("has no effect without a secret, or with one too short to matter", () => {
    expect(createRedactor().redact(KEY)).toBe(KEY);
    expect(createRedactor(["short"]).redact("short text")).toBe("short text");
  });
});

describe("frame guard", () => {
  const secrets = createRedactor([KEY]);

  it("drops OSC/DCS/APC strings, C1 and bidi controls, keeps Ink's CSI, masks key pieces", () => {
    const frame = `\x1b[2K\x1b[1A${KEY.slice(0, 30)}\x1b]52;c;cHduZWQ=\x07\n\x1b[31mred\x1b[39m\x9b2J\u202ex\x1bPq\x1b\\`;
    const out = guardFrame(frame, secrets);
    expect(out).not.toMatch(/\x1b[\]P]|[\x80-\x9f]|\u202e/);
    expect(out).toContain("\x1b[2K\x1b[1A");
    expect(out).toContain("\x1b[31mred\x1b[39m");
    expect(pieces(out)).toEqual([]);
    expect(out.split("\n")[0]?.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "")).toBe("•".repeat(30));
  });
});

describe("ids in URL paths", () => {
  it("refuses dot segments, separators, query and fragment marks, escapes and controls", () => {
    for (const id of [
      "",
      ".",
      "..",
      "...",
      "a/b",
      "a\\b",
      "a?b",
      "a#b",
      "%2e%2e",
      "a b",
      "a\x00",
      "a\x1b[2J",
      "a\u202eb",
      "x".repeat(300),
    ]) {
      expect(unsafeIdReason(id), JSON.stringify(id)).not.toBeNull();
      expect(() => PATHS.events(id)).toThrow(TypeError);
      expect(() => PATHS.session(id)).toThrow(TypeError);
      // The git paths (interface and documented) follow the same rule.
      expect(() => gitRequest(id, { kind: "push" })).toThrow(TypeError);
      expect(() => gitRequest(id, { kind: "clone", repoUrl: "demo/app" })).toThrow(TypeError);
    }
  });

  it("accepts session ids and UUID-shaped ids, one encoded path segment each", () => {
    for (const id of [
      "ses_abc",
      "ses_a-b_c",
      "5b1f0c7e-2d4a-4f7b-9a33-0c6d5e8f9a10",
      "a.b",
      "a:b",
      "日本",
    ]) {
      expect(unsafeIdReason(id)).toBeNull();
      const url = new URL(PATHS.events(id), "http://h");
      expect(url.pathname).toBe(`/api/cloud/sessions/${encodeURIComponent(id)}/events`);
      const git = new URL(gitRequest(id, { kind: "push" }).paths[0], "http://h");
      expect(git.pathname).toBe(`/api/sessions/${encodeURIComponent(id)}/git/operation`);
    }
    // What a user may type as a session id (ses_… or a UUID) is always safe in a path.
    for (const id of ["ses_abc", "5B1F0C7E-2D4A-4F7B-9A33-0C6D5E8F9A10"]) {
      expect(isSessionId(id)).toBe(true);
      expect(unsafeIdReason(id)).toBeNull();
    }
  });
});

describe("records from the service", () => {
  it("a __proto__ field stays a field and cannot lend the record inherited ones", () => {
    const raw = JSON.parse(
      '{"session_id":"ses_1","title":"a\\u001b[2Jb","__proto__":{"state":"forged"}}',
    ) as Record<string, unknown>;
    const clean = sanitizeRecord(raw);
    expect(clean.title).toBe("ab");
    expect(clean.state).toBeUndefined();
    expect(Object.keys(clean)).toContain("__proto__");
  });
});
