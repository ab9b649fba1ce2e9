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
 * "10%" and "20%" into a misleading "10%20%".
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
const CR = /\r\n?/g;
// Everything the sanitizer would touch; most text has none of it and is returned as is.
const NEEDS_WORK = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

function keepOnlySgr(match: string): string {
  return SGR.test(match) ? match : "";
}

/** Untrusted text made safe to print in a terminal. */
export function sanitize(text: string, opts?: SanitizeOptions): string {
  if (!NEEDS_WORK.test(text)) return text;
  const lines = text.includes("\r") ? text.replace(CR, "\n") : text;
  return opts?.keepSgr ? lines.replace(UNSAFE, keepOnlySgr) : lines.replace(UNSAFE, "");
}

/** Escape sequences removed, other characters left alone (for tests and snapshots). */
export function stripAnsi(text: string): string {
  return text.includes("\x1b") || /[\x90-\x9f]/.test(text) ? text.replace(ESCAPES_ONLY, "") : text;
}

/** True when the text holds nothing the sanitizer would change. */
export function isClean(text: string): boolean {
  return !NEEDS_WORK.test(text);
}
