import type { Key } from "ink";
import type { Command, ModeKind } from "../model/keymap.js";
import { charPress, commandFor, isText, type KeyPress, splitKeys } from "./keys.js";
import { editField, type TextField, typeInto } from "./textField.js";

/**
 * The one key path. A read from the terminal is split into key presses once, in order, and
 * each press is routed against the state it finds (a press may open the dialog the next one
 * types into): a focused text field takes text and its editing keys first; anything else
 * goes to the command the keymap gives it in the current mode, whose handler the screen
 * runs. The mode already says what is on top (a dialog over an overlay over the screen).
 */

/** A mode as the key path needs it: its kind (model/mode.ts has the whole of each). */
export interface AnyMode {
  readonly kind: ModeKind;
}

/** What a screen gives the key path: its mode, its focused text field, its handlers. */
export interface KeyTarget<M extends AnyMode = AnyMode> {
  mode(): M;
  /** The text field with the cursor in this mode, if any. */
  field(mode: M): TextField | null;
  run(cmd: Command, mode: M, press: KeyPress): void;
  /**
   * A key no command of the mode takes, for a mode that takes raw keys (a session's shell);
   * false when the mode does not.
   */
  raw?(mode: M, press: KeyPress): boolean;
  /** Whether a recording plays (a replay's keys are on, a live UI's off); false if absent. */
  replaying?(): boolean;
}

/** Whether the current mode sends its keys on raw (a session's shell). */
function takesRaw<M extends AnyMode>(t: KeyTarget<M>): boolean {
  return t.mode().kind === "terminal";
}

/** One key press. */
export function routeKey<M extends AnyMode>(t: KeyTarget<M>, p: KeyPress): void {
  const mode = t.mode();
  const field = t.field(mode);
  if (field && isText(p)) {
    typeInto(field, p.text);
    return;
  }
  const cmd = commandFor(mode.kind, p, t.replaying?.() ?? false);
  if (!cmd) {
    t.raw?.(mode, p);
    return;
  }
  if (field && editField(field, cmd.id)) return;
  t.run(cmd, mode, p);
}

/**
 * Every press of one read, in order. A run of text goes whole to a focused field; with no
 * field it is that many key presses, and if one of them focuses a field, the rest of the run
 * is typed into it.
 */
export function routeInput<M extends AnyMode>(t: KeyTarget<M>, input: string, key: Key): void {
  // A multi-line field (the prompt box): only a lone Enter sends. A read that holds line
  // breaks among text is a paste (or Ctrl-J, a line feed), and its line breaks stay line
  // breaks; Alt-Enter is a new line too.
  const field = t.field(t.mode());
  if (field?.multiline) {
    if (key.return && key.meta) {
      typeInto(field, "\n");
      return;
    }
    if (!key.return && !key.ctrl && !key.meta && /[\r\n]/.test(input)) {
      typeInto(field, input);
      return;
    }
  }
  for (const p of splitKeys(input, key)) {
    // A shell takes a run of text whole, as typed.
    if (!isText(p) || t.field(t.mode()) || takesRaw(t)) {
      routeKey(t, p);
      continue;
    }
    const chars = Array.from(p.text);
    for (let i = 0; i < chars.length; i++) {
      if (i > 0 && t.field(t.mode())) {
        routeKey(t, { ...p, text: chars.slice(i).join("") });
        break;
      }
      routeKey(t, charPress(chars[i] as string));
    }
  }
}
