import { type Key, useInput } from "ink";
import { useCallback } from "react";
import {
  type Command,
  commandFor,
  endsWithEnter,
  enterKey,
  type KeyContext,
} from "../model/keymap.js";

/**
 * Every key press resolved through the one keymap table for the current context, then
 * handed over with the raw input (text fields and digits need it). One listener for the
 * whole screen, so no two handlers ever fight over a key.
 */
export function useKeymap(
  contextOf: () => KeyContext,
  onKey: (cmd: Command | null, input: string, key: Key) => void,
  isActive = true,
): void {
  const handler = useCallback(
    (input: string, key: Key) => {
      const keys = contextOf() === "dialog" ? null : separateKeys(input, key);
      if (!keys) {
        onKey(commandFor(contextOf(), input, key), input, key);
        if (contextOf() === "dialog" && endsWithEnter(input)) {
          // After the text field has taken the text of the same read.
          queueMicrotask(() => {
            const enter = enterKey(key);
            onKey(commandFor(contextOf(), "\r", enter), "\r", enter);
          });
        }
        return;
      }
      for (const ch of keys) {
        // A key may open a dialog: the rest of the run would be typing, which is the text
        // field's, not ours.
        if (contextOf() === "dialog") return;
        const k: Key = { ...key, shift: ch !== ch.toLowerCase() };
        onKey(commandFor(contextOf(), ch, k), ch, k);
      }
    },
    [contextOf, onKey],
  );
  useInput(handler, { isActive });
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Ink hands over everything one read returned as one input: keys pressed faster than the
 * screen reads them (key repeat while busy, a slow link) arrive as "jjj" and would match no
 * command. Outside text fields such a run of plain characters is that many key presses.
 */
function separateKeys(input: string, key: Key): string[] | null {
  const points = Array.from(input);
  if (points.length < 2 || CONTROL.test(input)) return null;
  if (key.ctrl || key.meta || key.escape || key.return || key.tab) return null;
  return points;
}
