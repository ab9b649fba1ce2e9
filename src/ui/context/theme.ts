import { createContext, useContext } from "react";
import type { AttentionReason } from "../../store/attention/reasons.js";
import { charWidth } from "../../text/wrap.js";

/**
 * Semantic colours. With NO_COLOR every colour is undefined and the components fall back to
 * glyphs and words, so nothing is conveyed by colour alone.
 */
export type ColorName =
  | "accent"
  | "muted"
  | "ok"
  | "warn"
  | "error"
  | "focus"
  | "prompt"
  | "output"
  | "stderr"
  | "file"
  | "state"
  | "notice"
  | "match";

const PALETTE: Record<ColorName, string> = {
  accent: "cyan",
  muted: "gray",
  ok: "green",
  warn: "yellow",
  error: "red",
  focus: "cyan",
  prompt: "magenta",
  output: "blue",
  stderr: "red",
  file: "green",
  state: "yellow",
  notice: "gray",
  match: "yellow",
};

export interface Theme {
  readonly noColor: boolean;
  /** The colour for a role, or undefined under NO_COLOR. */
  readonly c: Readonly<Record<ColorName, string | undefined>>;
  /** Faint text; off under NO_COLOR (some terminals render it as a colour). */
  readonly dim: boolean;
}

export function createTheme(noColor: boolean): Theme {
  const c = {} as Record<ColorName, string | undefined>;
  for (const name of Object.keys(PALETTE) as ColorName[]) {
    c[name] = noColor ? undefined : PALETTE[name];
  }
  return { noColor, c, dim: !noColor };
}

export const ThemeContext = createContext<Theme>(createTheme(false));

export function useTheme(): Theme {
  return useContext(ThemeContext);
}

/**
 * State badge: a glyph and the word, so it reads the same without colour. The documented
 * lifecycle states have their own; any other state is shown as it was sent.
 */
export function stateBadge(state: string | null | undefined): {
  glyph: string;
  text: string;
  color: ColorName;
} {
  switch (state) {
    case "active":
      return { glyph: "●", text: "active", color: "ok" };
    case "running":
      return { glyph: "●", text: "running", color: "ok" };
    case "creating":
      return { glyph: "◌", text: "creating", color: "accent" };
    case "paused":
      return { glyph: "⏸", text: "paused", color: "warn" };
    case "destroying":
      return { glyph: "◍", text: "destroying", color: "muted" };
    case "destroyed":
      return { glyph: "✕", text: "destroyed", color: "error" };
    case "error":
      return { glyph: "✗", text: "error", color: "error" };
    case null:
    case undefined:
    case "":
      return { glyph: "○", text: "unknown", color: "muted" };
    default:
      return { glyph: "◆", text: state, color: "accent" };
  }
}

/** The colour each attention reason is drawn in (store/attention/reasons.ts names them). */
export const REASON_COLOR: Readonly<Record<AttentionReason, ColorName>> = {
  approval: "prompt",
  failed: "error",
  finished: "ok",
  stream: "warn",
  paused: "muted",
  destroyed: "muted",
};

/**
 * The one glyph table for terminals that cannot show Unicode (TERM=dumb, or a locale
 * without UTF-8): each glyph the UI draws, Ink's borders and its "…" included, and the
 * ASCII it is drawn with there. Every replacement is as wide as its glyph, so layouts hold.
 * The terminal writer (src/cli/tui) applies it to everything written, server text included:
 * a character the table does not know becomes "?" (two for a wide one).
 */
export const ASCII_GLYPHS: Readonly<Record<string, string>> = {
  // Box drawing: Ink's round and single borders, the focused (double) and attention (bold)
  // ones told apart by their corners.
  "─": "-",
  "│": "|",
  "┌": "+",
  "┐": "+",
  "└": "+",
  "┘": "+",
  "╭": "+",
  "╮": "+",
  "╰": "+",
  "╯": "+",
  "═": "=",
  "║": "|",
  "╔": "#",
  "╗": "#",
  "╚": "#",
  "╝": "#",
  "━": "=",
  "┄": "-",
  "┃": "!",
  "┏": "*",
  "┓": "*",
  "┗": "*",
  "┛": "*",
  // Badges, connection and marks.
  "●": "*",
  "◌": "o",
  "○": "o",
  "◍": "~",
  "◆": "+",
  "⏸": "=",
  "✕": "x",
  "✗": "x",
  "✓": "v",
  "⚠": "!",
  "↻": "@",
  "■": "#",
  "♥": "h",
  "▸": ">",
  "▶": ">",
  "▼": "v",
  "⏎": "<",
  "•": "*",
  "∞": "~",
  // The overlap mark (two sessions changed the same files).
  "⇄": "&",
  // The fleet's sparkline, low to high.
  "▁": "_",
  "▂": ".",
  "▃": "-",
  "▄": "-",
  "▅": "=",
  "▆": "=",
  "▇": "#",
  "█": "#",
  // Punctuation.
  "·": ".",
  "…": "~",
  "—": "-",
  "–": "-",
  "→": ">",
  "←": "<",
  "↑": "^",
  "↓": "v",
  "×": "x",
  "‘": "'",
  "’": "'",
  "“": '"',
  "”": '"',
  // The spinner turns as |/-\ does.
  "⠋": "|",
  "⠙": "/",
  "⠹": "-",
  "⠸": "\\",
  "⠼": "|",
  "⠴": "/",
  "⠦": "-",
  "⠧": "\\",
  "⠇": "|",
  "⠏": "/",
};

/** One character as an ASCII-only terminal gets it (see ASCII_GLYPHS); `width` is its cells. */
export function asciiGlyph(ch: string, width: number): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x80) return ch;
  return ASCII_GLYPHS[ch] ?? (width <= 0 ? "" : "?".repeat(width));
}

/** Text as an ASCII-only terminal gets it: escape sequences (ASCII) pass unchanged. */
export function toAscii(text: string): string {
  return text.replace(/[^\u0000-\u007f]/gu, (ch) =>
    asciiGlyph(ch, charWidth(ch.codePointAt(0) ?? 0)),
  );
}

/** Colours a session may get in views that mix sessions (the merged timeline). */
const SESSION_COLORS = ["cyan", "magenta", "yellow", "green", "blue", "redBright", "white"];

/**
 * A session's colour: the same one on every run and in every view (from its id), so a
 * session is recognised at a glance; the id is always shown beside it too. undefined under
 * NO_COLOR.
 */
export function sessionColor(theme: Theme, sessionId: string): string | undefined {
  if (theme.noColor) return undefined;
  let h = 2166136261;
  for (let i = 0; i < sessionId.length; i++) {
    h ^= sessionId.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return SESSION_COLORS[(h >>> 0) % SESSION_COLORS.length];
}
