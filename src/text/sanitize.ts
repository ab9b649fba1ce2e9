/**
 * The one sanitizer for untrusted text (session events, server messages, record fields).
 * It runs once, where text enters the store; nothing downstream re-sanitizes.
 *
 * Removed: C0 controls except \n and \t, DEL, C1 controls (U+0080–U+009F), and whole escape
 * sequences: CSI (7-bit ESC [ and 8-bit U+009B), OSC (ESC ] / U+009D, up to BEL, ST or the end
 * of the input when unterminated), DCS/SOS/PM/APC (ESC P/X/^/_ and their 8-bit forms, up to
 * ST or the end), and every other ESC sequence (ESC, intermediates, final byte).
 *
 * Line ends: \r\n becomes \n, and a lone \r also becomes \n. Progress bars redraw a line with
 * \r; turning it into a newline keeps every update readable, where dropping it would glue
 * "10%" and "20%" into a misleading "10%20%". The Unicode line and paragraph separators
 * (U+2028, U+2029) become \n too: some renderers break the line there, so a single-line
 * place must see them as line ends to fold them.
 *
 * Bidirectional controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) are shown as
 * visible escapes, "<U+202E>": they can make a path or a title display in another order than
 * it is stored ("Trojan Source"), and dropping them silently would hide that the server sent
 * them.
 *
 * `keepSgr` keeps only 7-bit SGR sequences whose parameters are digits and semicolons
 * (colours and text attributes); it is meant for process output only.
 */

export interface SanitizeOptions {
  /** Keep SGR colour/attribute sequences (ESC [ digits;… m). Process output only. */
  keepSgr?: boolean;
}

// Order matters: the specific introducers come before the generic "ESC + final byte" branch.
// Every body excludes ESC so an ESC is always the start of a match of its own and never
// survives inside a removed region's neighbour.
const CSI = String.raw`(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?`;
const OSC = String.raw`(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?`;
const STRING_SEQ = String.raw`(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)?`;
const OTHER_ESC = String.raw`\x1b[ -/]*[0-~]?`;
const LONE_CONTROL = String.raw`[\x00-\x08\x0b-\x1f\x7f-\x9f]`;

const UNSAFE = new RegExp(`${CSI}|${OSC}|${STRING_SEQ}|${OTHER_ESC}|${LONE_CONTROL}`, "g");
const ESCAPES_ONLY = new RegExp(`${CSI}|${OSC}|${STRING_SEQ}|${OTHER_ESC}`, "g");
const SGR = /^\x1b\[[0-9;]*m$/;
const LINE_ENDS = /\r\n?|[\u2028\u2029]/g;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// Everything the sanitizer would touch; most text has none of it and is returned as is.
const NEEDS_WORK = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
const HAS_LINE_END = /[\r\u2028\u2029]/;
const HAS_BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function visibleEscape(c: string): string {
  return `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}>`;
}

function keepOnlySgr(match: string): string {
  return SGR.test(match) ? match : "";
}

/** Untrusted text made safe to print in a terminal. */
export function sanitize(text: string, opts?: SanitizeOptions): string {
  if (!NEEDS_WORK.test(text)) return text;
  const lines = HAS_LINE_END.test(text) ? text.replace(LINE_ENDS, "\n") : text;
  const safe = opts?.keepSgr ? lines.replace(UNSAFE, keepOnlySgr) : lines.replace(UNSAFE, "");
  return HAS_BIDI.test(safe) ? safe.replace(BIDI, visibleEscape) : safe;
}

/** What a newline inside a single-line place is shown as. */
export const LINE_BREAK_MARK = " ⏎ ";

/**
 * Untrusted text for a single-line place (a table cell, a status line, an error line, a
 * header): sanitized, then every line end shown as a visible " ⏎ " (trailing ones dropped) and
 * tabs as spaces, so a newline in a title can never print a row of its own.
 */
export function sanitizeLine(text: string): string {
  return foldLines(sanitize(text));
}

/** Already sanitized text folded onto one line (see sanitizeLine). */
export function foldLines(text: string): string {
  if (!/[\n\t]/.test(text)) return text;
  return text.replace(/\n+$/, "").replace(/\n/g, LINE_BREAK_MARK).replace(/\t/g, " ");
}

/** Text cut to at most `max` characters (a surrogate pair is never split), with a marker. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}… [${text.length - end} more characters]`;
}

/** Escape sequences removed, other characters left alone (for tests and snapshots). */
export function stripAnsi(text: string): string {
  return text.includes("\x1b") || /[\x90-\x9f]/.test(text) ? text.replace(ESCAPES_ONLY, "") : text;
}

/** True when the text holds nothing the sanitizer would change. */
export function isClean(text: string): boolean {
  return !NEEDS_WORK.test(text);
}
