import { createContext, useContext } from "react";
import type { AppOptions } from "../model/services.js";
import type { UiStore } from "../model/uiStore.js";

/** The signed-in screen's UI state, for the components under it to select from. */
export interface UiContextValue {
  ui: UiStore;
  options: AppOptions;
}

export const UiContext = createContext<UiContextValue | null>(null);

export function useUi(): UiContextValue {
  const v = useContext(UiContext);
  if (!v) throw new Error("useUi outside UiContext");
  return v;
}
