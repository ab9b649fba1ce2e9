import { type Key, useInput } from "ink";
import { useCallback } from "react";
import { type Command, commandFor, type KeyContext } from "../keymap.js";

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
    (input: string, key: Key) => onKey(commandFor(contextOf(), input, key), input, key),
    [contextOf, onKey],
  );
  useInput(handler, { isActive });
}
