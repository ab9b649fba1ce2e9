import type { Key } from "ink";
import { type AnyMode, type KeyTarget, routeInput } from "./route.js";

/**
 * The one key listener's other end: every read from the terminal goes to the screen on
 * show (the login screen or the signed-in one), through the one key path.
 */
export interface KeyRouter {
  /** A read, as Ink's one input listener reports it. */
  read(input: string, key: Key): void;
  /** The screen on show takes the keys; the function returned gives them back. */
  attach(target: KeyTarget<AnyMode>): () => void;
}

export function createKeyRouter(): KeyRouter {
  let target: KeyTarget<AnyMode> | null = null;
  return {
    read(input, key) {
      if (target) routeInput(target, input, key);
    },
    attach(t) {
      target = t;
      return () => {
        if (target === t) target = null;
      };
    },
  };
}
