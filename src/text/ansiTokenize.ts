/**
 * Fast paths in front of @alcalzone/ansi-tokenize, which Ink's Output uses for every text it
 * places and every line of every frame it draws. The bundle (bundle.config.mjs) puts these in
 * front of Ink's import of it; test/unit/ansiTokenize.test.ts compares each with the library.
 *
 * - `tokenize` walks its text with Intl.Segmenter, one grapheme at a time. Text made only of
 *   colour codes and runs of printable ASCII and the narrow characters of narrowWidth.ts has
 *   one grapheme per UTF-16 unit, none of them wide, so its tokens are made directly. In the
 *   fleet view (B10) that is every text Ink tokenizes, about 45,000 characters a second.
 * - `styledCharsFromTokens` copies each token with a spread and makes a fresh copy of the
 *   current codes for every character; one copy per run between codes is enough.
 * - `styledCharsToString` asks `diffAnsiCodes` (three Sets, two filtered copies) what changed
 *   from each cell to the next, 10,000 times for a 200×50 frame, although neighbours almost
 *   always share a style. Where two neighbours carry the same codes (same `code` and
 *   `endCode`, in order) the diff is empty by construction, so it is not asked; where a line
 *   ends unstyled there is nothing to reset.
 *
 * Everything else goes to the library's own functions.
 */

import { NARROW, narrowWidth } from "./narrowWidth.js";

interface AnsiCode {
  readonly code: string;
  readonly endCode: string;
}

interface CharToken {
  readonly type: "char";
  readonly value: string;
  readonly fullWidth: boolean;
}

type Token = CharToken | { readonly type: "ansi"; readonly code: string; readonly endCode: string };

interface StyledChar extends CharToken {
  readonly styles: readonly AnsiCode[];
}

/** The functions of @alcalzone/ansi-tokenize that the fast paths stand in front of. */
export interface AnsiTokenizeParts {
  ansiCodesToString(codes: readonly AnsiCode[]): string;
  diffAnsiCodes(from: readonly AnsiCode[], to: readonly AnsiCode[]): AnsiCode[];
  tokenize(str: string, endChar?: number): Token[];
  styledCharsFromTokens(tokens: readonly Token[]): StyledChar[];
  reduceAnsiCodesIncremental(codes: readonly AnsiCode[], newCodes: readonly AnsiCode[]): AnsiCode[];
}

/** Colour codes exactly as the library's tokenize recognises them (ESC [ digits/semicolons m). */
const SGR = /\x1b\[[0-9;]*m/g;

/** The tokens of each colour code seen, as the library makes them (few distinct codes). */
const CODE_TOKENS_KEPT = 512;

/**
 * `tokenize`, without the segmenter for text made of plain narrow runs and colour codes:
 * each character of a run is its own grapheme and one column, and each code is tokenized
 * by the library once and remembered.
 */
export function withFastTokenize(lib: Pick<AnsiTokenizeParts, "tokenize">) {
  const codeTokens = new Map<string, readonly Token[]>();
  const pushRun = (out: Token[], str: string, from: number, to: number): boolean => {
    const run = from === 0 && to === str.length ? str : str.slice(from, to);
    // A run holds no whole colour code (each was matched), so any escape left in it is a
    // control character, which narrowWidth refuses.
    if (narrowWidth(run, NARROW[8]) < 0) return false;
    for (let i = 0; i < run.length; i++) {
      out.push({ type: "char", value: run[i] as string, fullWidth: false });
    }
    return true;
  };
  return (str: string, endChar?: number): Token[] => {
    if (endChar !== undefined) return lib.tokenize(str, endChar);
    const out: Token[] = [];
    let at = 0;
    if (str.includes("\x1b")) {
      for (const m of str.matchAll(SGR)) {
        if (!pushRun(out, str, at, m.index)) return lib.tokenize(str);
        let tokens = codeTokens.get(m[0]);
        if (tokens === undefined) {
          tokens = lib.tokenize(m[0]);
          if (codeTokens.size < CODE_TOKENS_KEPT) codeTokens.set(m[0], tokens);
        }
        for (const t of tokens) out.push({ ...t });
        at = m.index + m[0].length;
      }
    }
    if (!pushRun(out, str, at, str.length)) return lib.tokenize(str);
    return out;
  };
}

/**
 * `styledCharsFromTokens`, with one styles array shared by each run of characters between
 * codes instead of a copy for every character (equal contents; nothing writes to them, and
 * Ink itself shares a character's styles with the cells a wide character covers).
 */
export function withSharedStyles(lib: Pick<AnsiTokenizeParts, "reduceAnsiCodesIncremental">) {
  return (tokens: readonly Token[]): StyledChar[] => {
    let codes: readonly AnsiCode[] = [];
    let shared: AnsiCode[] | null = null;
    const out: StyledChar[] = [];
    for (const t of tokens) {
      if (t.type === "ansi") {
        codes = lib.reduceAnsiCodesIncremental(codes, [t]);
        shared = null;
      } else {
        shared ??= [...codes];
        out.push({ type: t.type, value: t.value, fullWidth: t.fullWidth, styles: shared });
      }
    }
    return out;
  };
}

function sameStyles(a: readonly AnsiCode[], b: readonly AnsiCode[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as AnsiCode;
    const y = b[i] as AnsiCode;
    if (x.code !== y.code || x.endCode !== y.endCode) return false;
  }
  return true;
}

/** `styledCharsToString` with runs of one style written without asking for a diff. */
export function withSameStyleRuns(
  lib: Pick<AnsiTokenizeParts, "ansiCodesToString" | "diffAnsiCodes">,
) {
  return (chars: readonly { value: string; styles: readonly AnsiCode[] }[]): string => {
    let out = "";
    let prev: readonly AnsiCode[] | null = null;
    for (const ch of chars) {
      if (prev === null) out += lib.ansiCodesToString(ch.styles);
      else if (!sameStyles(prev, ch.styles)) {
        out += lib.ansiCodesToString(lib.diffAnsiCodes(prev, ch.styles));
      }
      out += ch.value;
      prev = ch.styles;
    }
    // Reset what the last character left on.
    if (prev !== null && prev.length > 0) out += lib.ansiCodesToString(lib.diffAnsiCodes(prev, []));
    return out;
  };
}
