/**
 * Fast paths in front of @alcalzone/ansi-tokenize, which Ink's Output uses for every text it
 * places and every line of every frame it draws. The bundle (bundle.config.mjs) puts these in
 * front of Ink's import of it; test/unit/ansiTokenize.test.ts compares each with the library.
 *
 * - `tokenize` walks its text with Intl.Segmenter, one grapheme at a time. Text made only of
 *   printable ASCII and the narrow characters of narrowWidth.ts has one grapheme per UTF-16
 *   unit, none of them wide, so its tokens are made directly. In the fleet view (B10) that is
 *   every text Ink tokenizes, about 45,000 characters a second.
 * - `styledCharsFromTokens` copies each token with a spread and a fresh copy of the current
 *   codes; when there are no codes at all each cell is one plain object.
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
}

/** `tokenize`, without the segmenter for plain narrow text. */
export function withPlainTokenize(lib: Pick<AnsiTokenizeParts, "tokenize">) {
  return (str: string, endChar?: number): Token[] => {
    if (endChar !== undefined) return lib.tokenize(str, endChar);
    if (str.includes("\x1b") || narrowWidth(str, NARROW[8]) < 0) return lib.tokenize(str);
    const out: CharToken[] = new Array(str.length);
    for (let i = 0; i < str.length; i++) {
      out[i] = { type: "char", value: str[i] as string, fullWidth: false };
    }
    return out;
  };
}

/** `styledCharsFromTokens`, without the copies when no token is a code. */
export function withPlainStyledChars(lib: Pick<AnsiTokenizeParts, "styledCharsFromTokens">) {
  return (tokens: readonly Token[]): StyledChar[] => {
    for (const t of tokens) if (t.type !== "char") return lib.styledCharsFromTokens(tokens);
    return (tokens as readonly CharToken[]).map((t) => ({
      type: t.type,
      value: t.value,
      fullWidth: t.fullWidth,
      styles: [],
    }));
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
