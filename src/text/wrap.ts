/**
 * Layout of already-sanitized text in terminal cells: display width (SGR sequences take no
 * room, wide CJK and emoji take two), hard wrapping that carries colours onto continuation
 * lines, and tab expansion. Not a sanitizer: the text is safe when it gets here.
 */

const SGR = /\x1b\[[0-9;]*m/y;
const SGR_GLOBAL = /\x1b\[[0-9;]*m/g;
const RESET = /^\x1b\[0*m$/;
const TAB_SIZE = 4;

/** Cells a code point takes: 0 for combining marks and joiners, 2 for wide ones. */
export function charWidth(cp: number): number {
  if (cp === 0) return 0;
  if (
    (cp >= 0x300 && cp <= 0x36f) ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0x1ab0 && cp <= 0x1aff) ||
    (cp >= 0x20d0 && cp <= 0x20ff) ||
    (cp >= 0xe0100 && cp <= 0xe01ef)
  ) {
    return 0;
  }
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

export function stripSgr(text: string): string {
  return text.includes("\x1b") ? text.replace(SGR_GLOBAL, "") : text;
}

/** Cells the text takes on one line. */
export function displayWidth(text: string): number {
  let w = 0;
  for (let i = 0; i < text.length; ) {
    if (text.charCodeAt(i) === 0x1b) {
      SGR.lastIndex = i;
      const m = SGR.exec(text);
      if (m) {
        i += m[0].length;
        continue;
      }
    }
    const cp = text.codePointAt(i) ?? 0;
    w += charWidth(cp);
    i += cp > 0xffff ? 2 : 1;
  }
  return w;
}

/** Tabs to spaces up to the next stop, counting cells (SGR excluded). */
export function expandTabs(line: string): string {
  if (!line.includes("\t")) return line;
  let out = "";
  let col = 0;
  for (let i = 0; i < line.length; ) {
    const ch = line.charCodeAt(i);
    if (ch === 0x1b) {
      SGR.lastIndex = i;
      const m = SGR.exec(line);
      if (m) {
        out += m[0];
        i += m[0].length;
        continue;
      }
    }
    if (ch === 0x09) {
      const n = TAB_SIZE - (col % TAB_SIZE);
      out += " ".repeat(n);
      col += n;
      i++;
      continue;
    }
    const cp = line.codePointAt(i) ?? 0;
    const len = cp > 0xffff ? 2 : 1;
    out += line.slice(i, i + len);
    col += charWidth(cp);
    i += len;
  }
  return out;
}

/**
 * How far back from the edge a hard wrap looks for a space to break at: a word cut in two
 * ("This modul" / "e is not supported") reads worse than a line a few cells short, but a
 * long run without spaces (a path, a hash) is still cut at the edge.
 */
function breakBack(width: number): number {
  return Math.min(16, Math.floor(width / 3));
}

/**
 * One line (no newline in it) cut into pieces of at most `width` cells: at the last space
 * when one is near the edge (the space is dropped), else at the edge. SGR sequences in force
 * at a cut are repeated at the start of the next piece, so colours survive wrapping.
 */
export function wrapLine(line: string, width: number): string[] {
  const w = Math.max(1, width);
  if (line.length <= w && !line.includes("\x1b")) {
    // Fast path: every UTF-16 unit is at most one cell only for narrow text; check cheaply.
    if (displayWidth(line) <= w) return [line];
  }
  const out: string[] = [];
  const back = breakBack(w);
  let current = "";
  let col = 0;
  let active = "";
  // The last space of the current piece: where it is in `current`, its column, the colours
  // in force there.
  let space = -1;
  let spaceCol = 0;
  let spaceActive = "";
  for (let i = 0; i < line.length; ) {
    if (line.charCodeAt(i) === 0x1b) {
      SGR.lastIndex = i;
      const m = SGR.exec(line);
      if (m) {
        current += m[0];
        active = RESET.test(m[0]) ? "" : active + m[0];
        i += m[0].length;
        continue;
      }
    }
    const cp = line.codePointAt(i) ?? 0;
    const len = cp > 0xffff ? 2 : 1;
    const cw = charWidth(cp);
    if (col + cw > w && col > 0 && cp === 0x20) {
      // A space at the edge is the break itself.
      out.push(active ? `${current}\x1b[0m` : current);
      current = active;
      col = 0;
      space = -1;
      i += len;
      continue;
    }
    if (col + cw > w && col > 0) {
      if (space > 0 && col - spaceCol - 1 < back && col - spaceCol - 1 + cw <= w) {
        // Break at the space: the word being written moves to the next piece whole.
        const head = current.slice(0, space);
        out.push(spaceActive ? `${head}\x1b[0m` : head);
        current = spaceActive + current.slice(space + 1);
        col -= spaceCol + 1;
      } else {
        out.push(active ? `${current}\x1b[0m` : current);
        current = active;
        col = 0;
      }
      space = -1;
    }
    if (cp === 0x20) {
      space = current.length;
      spaceCol = col;
      spaceActive = active;
    }
    current += line.slice(i, i + len);
    col += cw;
    i += len;
  }
  out.push(current);
  return out;
}

/**
 * Prose wrapping for text without escapes: break after the last space that fits, hard-break
 * a word longer than the line. Trailing spaces at a break are dropped.
 */
export function wrapWords(line: string, width: number): string[] {
  const w = Math.max(1, width);
  if (displayWidth(line) <= w) return [line];
  const out: string[] = [];
  let rest = line;
  while (rest !== "") {
    if (displayWidth(rest) <= w) {
      out.push(rest);
      break;
    }
    // Longest prefix that fits, in code points.
    let cut = 0;
    let col = 0;
    for (const ch of rest) {
      const cw = charWidth(ch.codePointAt(0) ?? 0);
      if (col + cw > w) break;
      col += cw;
      cut += ch.length;
    }
    if (cut === 0) cut = (rest.codePointAt(0) ?? 0) > 0xffff ? 2 : 1;
    const space = rest.lastIndexOf(" ", cut);
    const at = space > 0 && space >= cut / 3 ? space : cut;
    out.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).replace(/^ +/, "");
  }
  return out;
}

/**
 * Text as display lines: split at newlines, tabs expanded, wrapped when asked: "hard" like a
 * terminal (process output), "words" at word boundaries (prose).
 */
export function layoutText(
  text: string,
  width: number,
  wrap: boolean,
  mode: "hard" | "words" = "hard",
): string[] {
  const lines = text.split("\n");
  const out: string[] = [];
  for (const raw of lines) {
    const line = expandTabs(raw);
    if (!wrap) out.push(line);
    else if (mode === "hard" || line.includes("\x1b")) {
      for (const piece of wrapLine(line, width)) out.push(piece);
    } else for (const piece of wrapWords(line, width)) out.push(piece);
  }
  return out;
}
