import type { CommandId } from "../model/keymap.js";

/**
 * A one-line text field as the key path edits it: the text typed or pasted, and the
 * keymap's editing commands. Controls never get in (a pasted newline is an Enter, split out
 * before the text reaches the field).
 */

export interface TextField {
  get(): string;
  set(value: string): void;
  /** A multi-line field (the prompt box): line breaks typed or pasted are kept. */
  multiline?: boolean;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

function dropLast(s: string): string {
  const points = Array.from(s);
  points.pop();
  return points.join("");
}

const EDITS: Partial<Record<CommandId, (value: string) => string>> = {
  deleteChar: dropLast,
  deleteWord: (v) => v.replace(/\S+\s*$/, ""),
  clearField: () => "",
};

/** Type text into the field. */
export function typeInto(field: TextField, text: string): void {
  const clean = field.multiline
    ? text
        .replace(/\r\n?/g, "\n")
        .replace(/\t/g, "  ")
        .replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, "")
    : text.replace(CONTROL, "");
  if (clean) field.set(field.get() + clean);
}

/** Apply an editing command; false when the command is not one. */
export function editField(field: TextField, cmd: CommandId): boolean {
  const edit = EDITS[cmd];
  if (!edit) return false;
  field.set(edit(field.get()));
  return true;
}
