import { useInput } from "ink";
import { useContext, useLayoutEffect, useState } from "react";
import { KeyRouterContext } from "../context/keyRouter.js";
import type { AnyMode, KeyTarget } from "../input/route.js";
import { createKeyRouter, type KeyRouter } from "../input/router.js";

/**
 * The App's one key listener: every read goes to the router, nowhere else. Inactive, Ink
 * stops reading stdin and leaves raw mode (the terminal is handed over).
 */
export function useKeyRouter(active = true): KeyRouter {
  const [router] = useState(createKeyRouter);
  useInput(router.read, { isActive: active });
  return router;
}

/** The screen takes the keys while it is mounted (the target should keep its identity). */
export function useKeyTarget<M extends AnyMode>(target: KeyTarget<M>): void {
  const router = useContext(KeyRouterContext);
  if (!router) throw new Error("useKeyTarget outside KeyRouterContext");
  useLayoutEffect(() => router.attach(target as KeyTarget<AnyMode>), [router, target]);
}
