/**
 * Redacting a secret (the user's API key) from text that is about to be shown. A server that
 * echoes the key back (in an error detail, a session title, agent output) must not get it
 * drawn, and neither may a piece of it: a pane that cuts a line, a field cut to a length, or
 * two fragments shown apart can each leave part of the key. So every run of text that is a
 * piece of the key at least half its length is masked, not just the whole key.
 *
 * Finding the pieces: any piece of length >= h (h = half the key) is covered by the key's
 * substrings of length exactly h found in the text, so the covered characters are the union of
 * those matches. A cheap pre-check comes first: any such piece contains one of a few aligned
 * blocks of the key, and most text contains none of them.
 *
 * Escape sequences, line ends and zero-width characters are no barrier: a key drawn with
 * colour codes or a line break between its characters is still the key, so pieces are
 * looked for in the visible text with those left out.
 *
 * Streamed text (a prompt's answer, a session's events) is redacted as one text, not item by
 * item: `stream()` keeps a window of what came before, so a key sent a few characters at a
 * time is found across items, lines and chunks (see StreamRedaction).
 */

/** Shortest secret worth registering; shorter strings would mask ordinary words. */
export const MIN_SECRET_LENGTH = 8;
/** Shortest piece masked, whatever the secret's length. */
const MIN_PIECE = 4;

export interface Redactor {
  /** Pieces of a secret (half its length or more) replaced by `[redacted key]`. */
  redact(text: string): string;
  /**
   * The same pieces replaced character for character by `•`, so the text keeps its width: for
   * a frame whose layout is already computed (see src/cli/tui/frameGuard.ts).
   */
  mask(text: string): string;
  /** True when the text holds a piece that redact/mask would hide. */
  has(text: string): boolean;
  /** A redaction over a stream of texts, seeing them as one (see StreamRedaction). */
  stream(): StreamRedaction;
  /**
   * Rows drawn one after another (a pane's visible rows), each masked as `mask` masks it in
   * their joined text, so a piece split across rows is masked in each row. `before`/`after`:
   * the text just outside them (rows above and below), seen but not returned; with `reach`
   * characters of each, a row is masked as it would be in the whole sequence, wherever it is
   * cut. Unchanged rows are returned as they were (the same array when none changed).
   */
  maskRows(rows: readonly string[], before?: string, after?: string): readonly string[];
  /** How far a piece can reach: the longest secret's length less one (0 with none). */
  readonly reach: number;
}

/**
 * Redaction of one stream of text shown one part after another (a prompt's answer, one
 * session's events). It remembers the last characters it saw (fewer than the longest secret),
 * so a piece of a secret split across parts is found and the part's share of it masked.
 */
export interface StreamRedaction {
  /**
   * The next part, redacted with what came before in view. `hold`: the part's trailing
   * characters that could begin a piece (fewer than the secret's length) are held back and
   * come out with the next part or `end()`, so a piece split across parts is masked whole;
   * without it (a part that must be shown now: a line, an event) the part is released whole,
   * and a piece that began in an earlier part has the rest of it masked here.
   */
  push(text: string, hold?: boolean): string;
  /** What is held back, released (redacted); the stream may go on afterwards. */
  end(): string;
}

export const REDACTED = "[redacted key]";
const MASK_CHAR = "•";

interface SecretPieces {
  secret: string;
  /** Length of the shortest piece masked. */
  piece: number;
  /** Aligned blocks: every piece of length >= piece contains at least one. */
  blocks: string[];
  /** Every substring of the secret of length `piece`. */
  windows: string[];
}

function piecesOf(secret: string): SecretPieces {
  const piece = Math.min(secret.length, Math.max(MIN_PIECE, Math.ceil(secret.length / 2)));
  // A window of length `piece` starting anywhere contains the aligned block of size b that
  // starts at the next multiple of b, as long as 2b - 1 <= piece.
  const b = Math.max(1, Math.floor((piece + 1) / 2));
  const blocks: string[] = [];
  for (let i = 0; i + b <= secret.length; i += b) blocks.push(secret.slice(i, i + b));
  const windows = new Set<string>();
  for (let i = 0; i + piece <= secret.length; i++) windows.add(secret.slice(i, i + piece));
  return { secret, piece, blocks, windows: [...windows] };
}

/** False when the visible text cannot hold a piece: no aligned block of the secret in it. */
function mayHold(visible: string, p: SecretPieces): boolean {
  if (visible.length < p.piece) return false;
  for (const b of p.blocks) if (visible.includes(b)) return true;
  return false;
}

/** [start, end) ranges of `text` covered by pieces of the secret, sorted, merged. */
function coveredRanges(text: string, p: SecretPieces): [number, number][] {
  if (text.length < p.piece) return [];
  const ranges: [number, number][] = [];
  for (const w of p.windows) {
    let at = text.indexOf(w);
    while (at !== -1) {
      ranges.push([at, at + w.length]);
      at = text.indexOf(w, at + 1);
    }
  }
  return mergeRanges(ranges);
}

// Left out of the visible text: escape sequences (a key with colour codes between its
// characters is still drawn whole), line ends (a key broken over two lines is still read
// whole) and zero-width characters (drawn as nothing).
const ESCAPE =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -/]*[0-~]?|[\r\n\u200b-\u200d\u2060\ufeff]/g;
const HAS_ESCAPE = /[\x1b\r\n\u200b-\u200d\u2060\ufeff]/;

/** An escape sequence or one UTF-16 unit. */
const UNITS = new RegExp(`${ESCAPE.source}|[^]`, "g");

interface Visible {
  text: string;
  /** Whether the raw text has anything left out of `text`. */
  mapped: boolean;
}

function visibleOf(raw: string): Visible {
  if (!HAS_ESCAPE.test(raw)) return { text: raw, mapped: false };
  return { text: raw.replace(ESCAPE, ""), mapped: true };
}

/** Raw index of each visible UTF-16 unit (made only when something is to be rewritten). */
function rawIndexes(raw: string): number[] {
  const at: number[] = [];
  let from = 0;
  const take = (end: number) => {
    for (let i = from; i < end; i++) at.push(i);
  };
  for (const m of raw.matchAll(ESCAPE)) {
    take(m.index);
    from = m.index + m[0].length;
  }
  take(raw.length);
  return at;
}

/** A covered range of the visible text: [start, end, continues an earlier masked range]. */
type Range = [number, number, boolean];

/** Ranges sorted, the overlapping and touching ones merged. */
function mergeRanges(ranges: [number, number][]): [number, number][] {
  if (ranges.length < 2) return ranges;
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

/**
 * Each covered range of the visible text replaced: by `REDACTED` once per range (none for a
 * range that continues one masked before; escape sequences and line ends inside the range are
 * kept, so colours still reset and lines still break), or character by character.
 */
function rewrite(raw: string, v: Visible, ranges: Range[], widthKeeping: boolean) {
  const at = v.mapped ? rawIndexes(raw) : null;
  let out = "";
  let from = 0;
  for (const [s, e, continues] of ranges) {
    const rawStart = at ? (at[s] as number) : s;
    const rawEnd = at ? (at[e - 1] as number) + 1 : e;
    out += raw.slice(from, rawStart);
    const inside = raw.slice(rawStart, rawEnd);
    if (widthKeeping) out += inside.replace(UNITS, keepEscapes);
    else out += (continues ? "" : REDACTED) + (at ? (inside.match(ESCAPE)?.join("") ?? "") : "");
    from = rawEnd;
  }
  return out + raw.slice(from);
}

function keepEscapes(unit: string): string {
  return unit.length > 1 || HAS_ESCAPE.test(unit) ? unit : MASK_CHAR;
}

/** A redactor for these secrets (shorter than MIN_SECRET_LENGTH ones are ignored). */
export function createRedactor(secrets: Iterable<string> = []): Redactor & {
  /** Add a secret (e.g. a key pasted at the login screen). */
  add(secret: string): void;
} {
  const all: SecretPieces[] = [];
  const seen = new Set<string>();
  let longest = 0;
  const add = (secret: string) => {
    if (secret.length < MIN_SECRET_LENGTH || seen.has(secret)) return;
    seen.add(secret);
    all.push(piecesOf(secret));
    longest = Math.max(longest, secret.length);
  };
  for (const s of secrets) add(s);

  /** The covered ranges of every secret in this visible text. */
  const covered = (visible: string): [number, number][] => {
    const ranges: [number, number][] = [];
    for (const p of all) if (mayHold(visible, p)) ranges.push(...coveredRanges(visible, p));
    return mergeRanges(ranges);
  };

  const apply = (text: string, widthKeeping: boolean): string => {
    const v = visibleOf(text);
    const ranges = covered(v.text);
    if (ranges.length === 0) return text;
    return rewrite(
      text,
      v,
      ranges.map(([s, e]) => [s, e, false]),
      widthKeeping,
    );
  };

  /** Length of the longest end of `visible` (at most `max`) that could begin a piece. */
  const couldBegin = (visible: string, max: number): number => {
    let best = 0;
    for (const p of all) {
      const limit = Math.min(max, p.secret.length - 1, visible.length);
      // The ends of a substring of the secret are substrings too: the first miss ends it.
      let n = 0;
      while (n < limit && p.secret.includes(visible.slice(visible.length - n - 1))) n++;
      if (n > best) best = n;
    }
    return best;
  };

  const stream = (): StreamRedaction => {
    // The visible text released last (unredacted), as much as a piece could reach back.
    let tail = "";
    let tailMasked = false;
    let held = "";
    const release = (raw: string): string => {
      const v = visibleOf(raw);
      if (v.text === "") return raw;
      const seenText = tail + v.text;
      const off = tail.length;
      const mine: Range[] = [];
      for (const [s, e] of covered(seenText)) {
        if (e > off) mine.push([Math.max(s, off) - off, e - off, s < off && tailMasked]);
      }
      tail = seenText.slice(-Math.max(0, longest - 1));
      const last = mine[mine.length - 1];
      tailMasked = last !== undefined && last[1] === v.text.length;
      return mine.length === 0 ? raw : rewrite(raw, v, mine, false);
    };
    return {
      push(text, hold = false) {
        if (all.length === 0) return text;
        const input = held + text;
        held = "";
        if (!hold) return release(input);
        const v = visibleOf(input);
        const seenText = tail + v.text;
        let keep = v.text.length - couldBegin(seenText, v.text.length);
        // A piece found already is released whole (masked), never cut by what is held.
        for (const [s, e] of covered(seenText)) {
          if (s < tail.length + keep && e > tail.length + keep) keep = e - tail.length;
        }
        if (keep === v.text.length) return release(input);
        const cut = v.mapped ? (rawIndexes(input)[keep] as number) : keep;
        held = input.slice(cut);
        return release(input.slice(0, cut));
      },
      end() {
        const rest = held;
        held = "";
        return rest === "" ? "" : release(rest);
      },
    };
  };

  const maskRows = (rows: readonly string[], before = "", after = ""): readonly string[] => {
    if (all.length === 0 || rows.length === 0) return rows;
    const head = visibleOf(before).text;
    const seen = rows.map(visibleOf);
    let joined = head;
    for (const v of seen) joined += v.text;
    const ranges = covered(joined + visibleOf(after).text);
    if (ranges.length === 0) return rows;
    const out = rows.slice();
    let from = head.length;
    rows.forEach((row, i) => {
      const v = seen[i] as Visible;
      const to = from + v.text.length;
      const mine: Range[] = [];
      for (const [s, e] of ranges) {
        const start = Math.max(s, from);
        const end = Math.min(e, to);
        if (start < end) mine.push([start - from, end - from, false]);
      }
      if (mine.length > 0) out[i] = rewrite(row, v, mine, true);
      from = to;
    });
    return out;
  };

  return {
    add,
    get reach() {
      return Math.max(0, longest - 1);
    },
    maskRows,
    redact: (text) => (all.length === 0 ? text : apply(text, false)),
    mask: (text) => (all.length === 0 ? text : apply(text, true)),
    has: (text) => all.length > 0 && covered(visibleOf(text).text).length > 0,
    stream,
  };
}

/** A redactor for one key (none when the key is empty or too short to matter). */
export function keyRedactor(key: string | null | undefined): Redactor {
  return createRedactor(key ? [key] : []);
}

/** A function form for options: text → text with the key's pieces redacted. */
export type RedactFn = (text: string) => string;

export const noRedaction: RedactFn = (text) => text;
