import { createContext, useContext } from "react";
import type { AppServices } from "../model/services.js";

/** The services of the signed-in screen, for components to select from. */
export const ServicesContext = createContext<AppServices | null>(null);

export function useServices(): AppServices {
  const s = useContext(ServicesContext);
  if (!s) throw new Error("useServices outside ServicesContext");
  return s;
}
