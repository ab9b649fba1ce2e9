/**
 * A fast path in front of `styledCharsToString` from @alcalzone/ansi-tokenize, which Ink
 * calls on every line of every frame it draws. For each cell it asks `diffAnsiCodes` what
 * changed since the cell before (three Sets and two filtered copies each time), although
 * almost every cell has the same style as its neighbour: 10,000 diffs for a 200×50 frame,
 * a third of the cost of drawing the first frame and a good part of every full redraw.
 *
 * Where two neighbouring cells carry the same codes (same `code` and `endCode`, in order),
 * `diffAnsiCodes` returns nothing by construction (each code of the one is matched by the
 * other), so it is not asked; where a line ends unstyled there is nothing to reset. Every
 * other case goes to the library's own functions. The bundle (esbuild.config.mjs) puts this
 * in front of Ink's import; test/unit/styledRuns.test.ts compares it with the library on
 * random styled text.
 */

interface AnsiCode {
  readonly code: string;
  readonly endCode: string;
}

interface StyledChar {
  readonly value: string;
  readonly styles: readonly AnsiCode[];
}

/** The two functions of @alcalzone/ansi-tokenize the fast path falls back on. */
export interface AnsiTokenizeParts {
  ansiCodesToString(codes: readonly AnsiCode[]): string;
  diffAnsiCodes(from: readonly AnsiCode[], to: readonly AnsiCode[]): AnsiCode[];
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
  lib: AnsiTokenizeParts,
): (chars: readonly StyledChar[]) => string {
  return (chars) => {
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
