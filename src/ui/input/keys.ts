import type { Key } from "ink";
import {
  type Command,
  enabledNow,
  KEYMAP,
  type KeySpec,
  type ModeKind,
  type NamedKey,
} from "../model/keymap.js";

/**
 * Key presses, split out of what the terminal sent in one read, and matched against the
 * keymap table.
 *
 * Ink hands over everything one read returned as one input, cutting only at escape
 * sequences: keys pressed faster than the screen reads them (key repeat, type-ahead over a
 * slow link, "j" then Enter, Tab then "j") or a pasted line with its Enter arrive together
 * as "jjj", "j\r", "\tj", "key…\r". splitKeys turns such a read into the presses it holds, in
 * order, once; none is lost.
 */

export interface KeyPress {
  /** Printable text: one character, or a run of them (pasted or typed ahead); "" otherwise. */
  text: string;
  name: NamedKey | null;
  ctrl: boolean;
  shift: boolean;
  meta: boolean;
}

const FLAGS: readonly [keyof Key, NamedKey][] = [
  ["upArrow", "up"],
  ["downArrow", "down"],
  ["leftArrow", "left"],
  ["rightArrow", "right"],
  ["pageUp", "pageUp"],
  ["pageDown", "pageDown"],
  ["home", "home"],
  ["end", "end"],
  ["return", "return"],
  ["escape", "escape"],
  ["tab", "tab"],
  ["backspace", "backspace"],
  ["delete", "delete"],
];

function press(p: Partial<KeyPress>): KeyPress {
  return { text: "", name: null, ctrl: false, shift: false, meta: false, ...p };
}

/** One printable character as a key press (a capital letter is shift + the letter). */
export function charPress(ch: string): KeyPress {
  return press({ text: ch, shift: ch.length === 1 && ch >= "A" && ch <= "Z" });
}

/** The presses of one read, as Ink reports it (input and key flags). */
export function splitKeys(input: string, key: Key): KeyPress[] {
  for (const [flag, name] of FLAGS) {
    if (key[flag]) {
      // Ink reports a lone Esc as meta too.
      return [
        press({ name, ctrl: key.ctrl, shift: key.shift, meta: key.meta && name !== "escape" }),
      ];
    }
  }
  if (key.ctrl || key.meta) {
    return input === ""
      ? []
      : [press({ text: input, ctrl: key.ctrl, shift: key.shift, meta: key.meta })];
  }
  return splitText(input);
}

/**
 * A run of characters as key presses: control characters are the keys they stand for
 * (CR or LF Enter, CR LF one Enter, HT Tab, DEL and BS backspacing, 0x01–0x1a Ctrl-letter),
 * other control characters are dropped, and the printable text between them stays one run.
 */
export function splitText(input: string): KeyPress[] {
  const out: KeyPress[] = [];
  let run = "";
  const flush = () => {
    if (run === "") return;
    out.push(Array.from(run).length === 1 ? charPress(run) : press({ text: run }));
    run = "";
  };
  for (let i = 0; i < input.length; i++) {
    const code = input.charCodeAt(i);
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f);
    if (!control) {
      run += input[i];
      continue;
    }
    flush();
    if (code === 0x0d || code === 0x0a) {
      out.push(press({ name: "return" }));
      if (code === 0x0d && input.charCodeAt(i + 1) === 0x0a) i++;
    } else if (code === 0x09) out.push(press({ name: "tab" }));
    else if (code === 0x7f) out.push(press({ name: "delete" }));
    else if (code === 0x08) out.push(press({ name: "backspace" }));
    else if (code >= 0x01 && code <= 0x1a) {
      out.push(press({ text: String.fromCharCode(code + 0x60), ctrl: true }));
    }
    // Ctrl-]: the key that leaves a session's shell.
    else if (code === 0x1d) out.push(press({ text: "]", ctrl: true }));
  }
  flush();
  return out;
}

/** Printable text meant for a text field: no Ctrl or Alt held. */
export function isText(p: KeyPress): boolean {
  return p.text !== "" && p.name === null && !p.ctrl && !p.meta;
}

/** Whether a key press matches a key of the table. */
export function keyMatches(spec: KeySpec, p: KeyPress): boolean {
  if (spec.name) {
    if (p.name !== spec.name) return false;
    return Boolean(spec.shift) === p.shift && Boolean(spec.ctrl) === p.ctrl;
  }
  if (spec.char === undefined || p.name !== null) return false;
  if (Boolean(spec.ctrl) !== p.ctrl || p.meta) return false;
  return p.text === spec.char;
}

/**
 * The command a key press means in a mode: the one row enabled there with a matching key.
 * While a recording plays (`replaying`) a replay's rows are on and a live UI's are off;
 * otherwise the other way round (Space plays/pauses a replay, marks a row in a live UI).
 */
export function commandFor(mode: ModeKind, p: KeyPress, replaying = false): Command | null {
  for (const cmd of KEYMAP) {
    if (!cmd.modes.includes(mode) || !enabledNow(cmd, replaying)) continue;
    if (cmd.keys.some((s) => keyMatches(s, p))) return cmd;
  }
  return null;
}
