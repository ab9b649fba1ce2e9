import { useStore } from "zustand";
import { NO_INTEGRATIONS } from "../../../store/integrations/integrationsStore.js";
import { repoDefaultBranch } from "../../../store/integrations/reach.js";
import { useServices } from "../../context/servicesContext.js";

/**
 * A repository's default branch as the code hosting app reports it, once the integrations
 * have been read (null until then, or when the app does not reach it): for the git forms and
 * confirmations.
 */
export function useRepoDefault(repo: string | null | undefined): string | null {
  const { integrations } = useServices();
  return useStore(integrations ?? NO_INTEGRATIONS, (s) => repoDefaultBranch(s.report, repo));
}
