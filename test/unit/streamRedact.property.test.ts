import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRedactor } from "../../src/text/redact.js";
import { sanitize, stripAnsi } from "../../src/text/sanitize.js";

/**
 * The stream redactor against a service that sends the key back a few characters at a time:
 * the key split at every position across 1..N items, with escape sequences, UTF-8 and line
 * ends between and inside the pieces, is never printed, whatever the split; text without the
 * key comes out as the sanitizer leaves it, only perhaps later (held back a few characters).
 */

const KEY_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789_";
const keyArb = fc
  .array(fc.constantFrom(...KEY_CHARS), { minLength: 8, maxLength: 48 })
  .map((a) => a.join(""));

/** Zero-width for the reader: colour codes, other escape sequences, line ends. */
const noise = fc.constantFrom(
  "\x1b[31m",
  "\x1b[0m",
  "\x1b[1;38;5;200m",
  "\x1b[8m",
  "\x1b]0;title\x07",
  "\x1b[2J",
  "\n",
  "\r\n",
  "\r",
);
/** Text around the key: UTF-8 of every width, none of the key's characters. */
const filler = fc
  .array(fc.constantFrom("é", "€", "😀", "漢", " ", ".", "a", "z", "\t", "\n", "\x1b[32m"), {
    maxLength: 12,
  })
  .map((a) => a.join(""));

/** The key with noise between some of its characters, and filler before and after it. */
const stream = keyArb.chain((key) =>
  fc
    .tuple(
      filler,
      fc.array(fc.option(noise, { nil: "" }), { minLength: key.length, maxLength: key.length }),
      filler,
    )
    .map(([pre, gaps, post]) => ({
      key,
      text: pre + [...key].map((c, i) => c + (i < key.length - 1 ? gaps[i] : "")).join("") + post,
    })),
);

/** The text cut into items at these positions (sorted, deduplicated). */
function cutAt(text: string, cuts: number[]): string[] {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const items: string[] = [];
  let from = 0;
  for (const c of at) {
    items.push(text.slice(from, c));
    from = c;
  }
  items.push(text.slice(from));
  return items;
}

/** What a reader sees: escape sequences, line ends and controls left out. */
function seen(out: string): string {
  return stripAnsi(sanitize(out)).replace(/[\r\n\t]/g, "");
}

/** The items as the output path prints them: each sanitized (colours kept), then redacted. */
function printed(key: string, items: string[], hold: boolean): string {
  const s = createRedactor([key]).stream();
  let out = "";
  for (const item of items) out += s.push(sanitize(item, { keepSgr: true }), hold);
  return out + s.end();
}

describe("stream redaction", () => {
  it("a key split across items, with escapes, UTF-8 and line ends, is never printed (held back)", () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 12 }), ({ key, text }, cuts) => {
        const out = printed(key, cutAt(text, cuts), true);
        expect(seen(out)).not.toContain(key);
        expect(out).not.toContain(key);
        // Held back means masked whole: not even half of it is left in view.
        const half = Math.max(4, Math.ceil(key.length / 2));
        for (let i = 0; i + half <= key.length; i++)
          expect(seen(out)).not.toContain(key.slice(i, i + half));
      }),
      { numRuns: 400 },
    );
  });

  it("every split position of the key, one character an item and two items, is caught", () => {
    const key = "SK_LIVE_0123456789ABCDEFGHIJ";
    for (let cut = 1; cut < key.length; cut++) {
      for (const hold of [true, false]) {
        const two = printed(key, [`x ${key.slice(0, cut)}`, `${key.slice(cut)} y`], hold);
        expect(seen(two)).not.toContain(key);
      }
    }
    for (const hold of [true, false]) expect(seen(printed(key, [...key], hold))).not.toContain(key);
    expect(printed(key, [...key], true)).toBe("[redacted key]");
  });

  it("released part by part (lines, events), the key is never printed whole either", () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 12 }), ({ key, text }, cuts) => {
        const out = printed(key, cutAt(text, cuts), false);
        expect(seen(out)).not.toContain(key);
      }),
      { numRuns: 400 },
    );
  });

  it("text without the key comes out as sanitized, whatever the cuts", () => {
    // Pieces of the key shorter than half of it are ordinary text and pass.
    const text = keyArb.chain((key) =>
      fc
        .array(
          fc.oneof(
            filler,
            noise,
            fc.tuple(fc.nat(key.length - 1), fc.nat(3)).map(([at, n]) => key.slice(at, at + 1 + n)),
          ),
          { maxLength: 20 },
        )
        .map((parts) => ({ key, text: parts.join("") })),
    );
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (t, cuts, hold) => {
        const items = cutAt(t.text, cuts);
        const clean = items.map((i) => sanitize(i, { keepSgr: true })).join("");
        fc.pre(!createRedactor([t.key]).has(clean));
        expect(printed(t.key, items, hold)).toBe(clean);
      }),
      { numRuns: 400 },
    );
  });

  it("a piece continued in the next part gets no second marker", () => {
    const key = "SK_LIVE_0123456789ABCDEFGHIJ";
    const s = createRedactor([key]).stream();
    const a = s.push(`a ${key.slice(0, 20)}`);
    const b = s.push(`${key.slice(20)} b`);
    expect(a + b).toBe("a [redacted key] b");
  });

  it("rows drawn (maskRows): any window of them, with a key's length beside it, is masked as the whole sequence is, and keeps every row's width", () => {
    fc.assert(
      fc.property(
        stream,
        fc.array(fc.nat(), { maxLength: 16 }),
        fc.nat(),
        fc.nat(),
        ({ key, text }, cuts, a, b) => {
          const r = createRedactor([key]);
          // Rows as a pane lays them out: never cut inside an escape or a character.
          const units = sanitize(text, { keepSgr: true }).match(/\x1b\[[0-9;]*m|[\s\S]/gu) ?? [];
          const rows: string[] = [];
          let u = 0;
          for (const part of cutAt("\0".repeat(units.length), cuts)) {
            rows.push(units.slice(u, u + part.length).join(""));
            u += part.length;
          }
          const all = r.maskRows(rows);
          // Every row keeps its length (the layout holds), and no piece is left in view.
          all.forEach((row, i) => {
            expect(row.length).toBe((rows[i] as string).length);
          });
          const half = Math.max(4, Math.ceil(key.length / 2));
          for (let i = 0; i + half <= key.length; i++)
            expect(seen(all.join(""))).not.toContain(key.slice(i, i + half));
          // A window cut anywhere, with `reach` characters of what is beside it in view.
          const from = a % (rows.length + 1);
          const to = from + (b % (rows.length - from + 1));
          const before = rows.slice(0, from).join("");
          const after = rows.slice(to).join("");
          const win = r.maskRows(
            rows.slice(from, to),
            before.slice(Math.max(0, before.length - r.reach * 8)),
            after.slice(0, r.reach * 8),
          );
          expect(seen(win.join(""))).toBe(seen(all.slice(from, to).join("")));
        },
      ),
      { numRuns: 400 },
    );
  });
});
