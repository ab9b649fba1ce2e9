import { createContext, useContext } from "react";
import type { Controller } from "../input/controller.js";
import type { AppOptions } from "../model/services.js";
import type { UiStore } from "../model/uiStore.js";

export interface UiContextValue {
  ui: UiStore;
  controller: Controller;
  options: AppOptions;
}

export const UiContext = createContext<UiContextValue | null>(null);

export function useUi(): UiContextValue {
  const v = useContext(UiContext);
  if (!v) throw new Error("useUi outside UiContext");
  return v;
}
