import { sanitize } from "./sanitize.js";

/**
 * Desktop notifications through the terminal: OSC 9 (iTerm2, WezTerm, Windows Terminal,
 * Ghostty, kitty's compatibility mode) and OSC 777 `notify` (VTE terminals, urxvt, foot), and
 * tmux's passthrough for either. What goes inside is server text, so it is made inert here.
 */

const ANY_CONTROL = /[\x00-\x1f\x7f-\x9f]/g;
/** Bidi embeddings, overrides and isolates: they would reorder the text around them. */
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

/**
 * Text safe inside an OSC string: bidi controls removed, sanitized, every control character (BEL, ESC and ST
 * would end the string early) removed, whitespace folded to single spaces,
 * cut at `max` characters.
 */
export function oscText(text: string, max = 200): string {
  // Bidi controls go before sanitize, which would otherwise show them as visible "<U+202E>".
  const flat = sanitize(text.replace(BIDI, ""))
    .replace(ANY_CONTROL, " ")
    .replace(BIDI, "")
    .replace(/\s+/g, " ")
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** OSC 9: a notification with one line of text. */
export function osc9(text: string): string {
  return `\x1b]9;${oscText(text)}\x07`;
}

/** OSC 777 notify: title and body, which may not contain its field separator. */
export function osc777(title: string, body: string): string {
  const field = (s: string) => oscText(s).replace(/;/g, ",");
  return `\x1b]777;notify;${field(title)};${field(body)}\x07`;
}

/** Inside tmux: its passthrough (ESC doubled), shown when `allow-passthrough` is on. */
export function tmuxPassthrough(seq: string): string {
  return `\x1bPtmux;${seq.replace(/\x1b/g, "\x1b\x1b")}\x1b\\`;
}
