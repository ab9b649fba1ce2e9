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

/** [start, end) ranges of `text` covered by pieces of the secret, sorted, merged. */
/**
 * False when the text cannot hold a piece: no aligned block of the secret in it. Escape
 * sequences between the characters of a block defeat this check, so text with an ESC in it
 * always passes to the full search.
 */
function mayHold(text: string, p: SecretPieces): boolean {
  if (text.length < p.piece) return false;
  if (text.includes("\x1b")) return true;
  for (const b of p.blocks) if (text.includes(b)) return true;
  return false;
}

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
  if (ranges.length === 0) return ranges;
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

// Escape sequences are zero-width: a key with colour codes between its characters is still
// drawn whole, so pieces are looked for in the visible text.
const ESCAPE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -/]*[0-~]?/g;

/** An escape sequence or one UTF-16 unit. */
const UNITS = new RegExp(`${ESCAPE.source}|[^]`, "g");

interface Visible {
  text: string;
  /** Raw index of each visible UTF-16 unit; null when the text has no escape sequence. */
  at: number[] | null;
}

function visibleOf(raw: string): Visible {
  if (!raw.includes("\x1b")) return { text: raw, at: null };
  let text = "";
  const at: number[] = [];
  let from = 0;
  const take = (end: number) => {
    for (let i = from; i < end; i++) at.push(i);
    text += raw.slice(from, end);
  };
  for (const m of raw.matchAll(ESCAPE)) {
    take(m.index);
    from = m.index + m[0].length;
  }
  take(raw.length);
  return { text, at };
}

/**
 * Each covered range of the visible text replaced: by `REDACTED` once per range (escape
 * sequences inside the range are kept, so colours still reset), or character by character.
 */
function rewrite(raw: string, v: Visible, ranges: [number, number][], widthKeeping: boolean) {
  const at = v.at;
  let out = "";
  let from = 0;
  for (const [s, e] of ranges) {
    const rawStart = at ? (at[s] as number) : s;
    const rawEnd = at ? (at[e - 1] as number) + 1 : e;
    out += raw.slice(from, rawStart);
    const inside = raw.slice(rawStart, rawEnd);
    if (widthKeeping) out += inside.replace(UNITS, keepEscapes);
    else out += REDACTED + (at ? (inside.match(ESCAPE)?.join("") ?? "") : "");
    from = rawEnd;
  }
  return out + raw.slice(from);
}

function keepEscapes(unit: string): string {
  return unit.startsWith("\x1b") ? unit : MASK_CHAR;
}

/** A redactor for these secrets (shorter than MIN_SECRET_LENGTH ones are ignored). */
export function createRedactor(secrets: Iterable<string> = []): Redactor & {
  /** Add a secret (e.g. a key pasted at the login screen). */
  add(secret: string): void;
} {
  const all: SecretPieces[] = [];
  const seen = new Set<string>();
  const add = (secret: string) => {
    if (secret.length < MIN_SECRET_LENGTH || seen.has(secret)) return;
    seen.add(secret);
    all.push(piecesOf(secret));
  };
  for (const s of secrets) add(s);

  const apply = (text: string, widthKeeping: boolean): string => {
    let out = text;
    for (const p of all) {
      // The cheap check on the raw text first: it fails for nearly all text.
      if (!mayHold(out, p)) continue;
      const v = visibleOf(out);
      const ranges = coveredRanges(v.text, p);
      if (ranges.length > 0) out = rewrite(out, v, ranges, widthKeeping);
    }
    return out;
  };

  return {
    add,
    redact: (text) => (all.length === 0 ? text : apply(text, false)),
    mask: (text) => (all.length === 0 ? text : apply(text, true)),
    has: (text) =>
      all.some((p) => mayHold(text, p) && coveredRanges(visibleOf(text).text, p).length > 0),
  };
}

/** A redactor for one key (none when the key is empty or too short to matter). */
export function keyRedactor(key: string | null | undefined): Redactor {
  return createRedactor(key ? [key] : []);
}

/** A function form for options: text → text with the key's pieces redacted. */
export type RedactFn = (text: string) => string;

export const noRedaction: RedactFn = (text) => text;
