import type { Key } from "ink";
import { type AnyMode, type KeyTarget, routeInput } from "./route.js";

/**
 * The one key listener's other end: every read from the terminal goes to the screen on
 * show (the login screen or the signed-in one), through the one key path. Reads while no
 * screen takes keys (the start-up frame, before the client has loaded) wait for the next
 * screen, a bounded few of them.
 */
export interface KeyRouter {
  /** A read, as Ink's one input listener reports it. */
  read(input: string, key: Key): void;
  /** The screen on show takes the keys; the function returned gives them back. */
  attach(target: KeyTarget<AnyMode>): () => void;
}

/** Reads kept while no screen takes keys; older ones beyond this are dropped. */
const WAITING_READS = 64;

export function createKeyRouter(): KeyRouter {
  let target: KeyTarget<AnyMode> | null = null;
  const waiting: [string, Key][] = [];
  return {
    read(input, key) {
      if (target) routeInput(target, input, key);
      else if (waiting.push([input, key]) > WAITING_READS) waiting.shift();
    },
    attach(t) {
      target = t;
      for (const [input, key] of waiting.splice(0)) {
        if (target !== t) break;
        routeInput(t, input, key);
      }
      return () => {
        if (target === t) target = null;
      };
    },
  };
}
