import { createContext } from "react";
import type { KeyRouter } from "../input/router.js";

/** The App's key router, for the screen on show to attach to (see hooks/useKeyInput.ts). */
export const KeyRouterContext = createContext<KeyRouter | null>(null);
